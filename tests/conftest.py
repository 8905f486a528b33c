"""Session fixtures for browser tests: one Streamlit server and one headless Chromium."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.server import CHROMIUM, ROOT, launch_chromium, streamlit_server

SCREENSHOTS = ROOT / "docs" / "screenshots"


def _need_chromium() -> None:
    """Skip (locally) or fail (CI=true) when Chromium or Playwright is missing."""
    problem = None
    if not Path(CHROMIUM).exists():
        problem = f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401, PLC0415
        except ImportError:
            problem = "the playwright Python package is not installed (requirements-dev.txt)"
    if problem and os.environ.get("CI", "").lower() == "true":
        pytest.fail(problem)
    if problem:
        pytest.skip(problem)


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory):
    """``streamlit run app.py`` on a free port; yields its base URL once /_stcore/health is ok."""
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with streamlit_server("app.py", log=log) as (url, _):
        yield url


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session."""
    _need_chromium()
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, app_url):
    """A fresh browser page (own context) per test."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(120_000)  # generous: the CI box may be busy (2 cores, training)
    yield page
    context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The committed screenshot folder used by the README."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
