"""Helpers shared by the browser tests of the model pages: a server pointed at a checkpoint
folder, a fresh tab, and the wait for a settled page."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.server import streamlit_server

CHART = '[data-testid="stPlotlyChart"]'


@contextmanager
def served_with(env: str, folder: Path, log: Path) -> Iterator[str]:
    """``streamlit run app.py`` with ``$env`` = ``folder`` (restored afterwards); yields its URL."""
    old = os.environ.get(env)
    os.environ[env] = str(folder)
    try:
        with streamlit_server("app.py", log=log) as (base, _):
            yield base
    finally:
        if old is None:
            os.environ.pop(env, None)
        else:
            os.environ[env] = old


@contextmanager
def open_tab(browser, timeout_ms: int = 120_000) -> Iterator[object]:  # noqa: ANN001
    """A page in its own browser context (1400 x 1000), closed afterwards."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    try:
        yield page
    finally:
        context.close()


def wait_settled(page, n_charts: int) -> None:  # noqa: ANN001
    """The script has finished and at least ``n_charts`` plotly charts are drawn."""
    page.wait_for_function(
        f"document.querySelectorAll('{CHART} .main-svg').length >= {n_charts}", polling=200
    )
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")
