"""The browser tests' servers and browser: :func:`serve.launch.streamlit_server` with the tests'
environment, and the bench's headless Chromium (:mod:`bench.browser`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.browser import CHROMIUM, CHROMIUM_ARGS, launch_chromium
from serve import launch
from serve.launch import ROOT, SERVER_LOGS, SERVER_PIDS

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "ROOT", "SERVER_LOGS", "SERVER_PIDS", "launch_chromium"]
# The lab's workers at the server's own priority: on the test box every worker's browser and
# server compete for the cores, and a run at niceness 10 behind them starved (CI, 120 s).
TEST_ENV = {"ATLAS_LAB_NICENESS": "0"}


@contextmanager
def streamlit_server(
    script: str = "app.py", log: Path | None = None, extra_args: tuple[str, ...] = ()
) -> Iterator[tuple[str, float]]:
    """``streamlit run script`` on a free port with the tests' environment (``extra_args``: more
    command-line options); yields (base_url, seconds to healthy)."""
    with launch.streamlit_server(script, log, extra_args, env=TEST_ENV) as served:
        yield served


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
