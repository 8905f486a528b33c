"""The headless Chromium that the bench and the browser tests drive: the system's, never a
downloaded browser (``$CHROMIUM_PATH``, else /usr/bin/chromium); and the wait for a settled page
that both use."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    *("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"),
    *("--disable-background-networking", "--disable-component-update", "--disable-sync"),
]


def launch_chromium(playwright):
    """Launch the system Chromium headless with :data:`CHROMIUM_ARGS`."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


CHART = '[data-testid="stPlotlyChart"]'


def wait_settled(page, n_charts: int) -> None:
    """The script has finished, at least ``n_charts`` plotly charts are drawn, nothing is left
    from the run before (Streamlit marks such elements ``data-stale`` until the rerun ends) and
    no element is still a skeleton (its code loading)."""
    page.wait_for_function(
        f"document.querySelectorAll('{CHART} .main-svg').length >= {n_charts}", polling=200
    )
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")
    # nor an element whose code is still loading (Streamlit draws a skeleton in its place)
    page.wait_for_function(
        "!document.querySelector('[data-stale=true], [data-testid=stSkeleton]')", polling=200
    )
