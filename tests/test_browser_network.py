"""Nothing leaves the machine at run time.

In Chromium, every page of ``ui/pages.toml`` and home is loaded and changed once (classroom mode
switched on in the sidebar: a rerun that redraws every chart), a few pages at a time, while every
request and websocket their tabs open is recorded: any host other than the app's own fails the
test. The tab's icon is the app's own file, and the navigation still shows its Material icons
(drawn with the font Streamlit bundles).
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from models.checkpoints import SHIPPED_ROOT
from tests.browser_helpers import served_fixtures, still, wait_still
from tests.tab_pool import TabPool, Wait, goto, need
from ui.registry import PAGES

pytestmark = pytest.mark.browser
LOCAL_SCHEMES = {"data", "blob", "about"}  # never a network request
TABS = 3  # pages loaded at once (tests/tab_pool.py)
CLASSROOM_ON = "() => new URLSearchParams(location.search).get('classroom') === 'true'"


@pytest.fixture(scope="module")
def checkpoints() -> Path:
    """The shipped checkpoints (committed): every page draws its real charts."""
    return SHIPPED_ROOT


url, tab = served_fixtures("streamlit_network", 180_000)


def _elsewhere(address: str, own: str) -> bool:
    """``address`` goes to a host other than ``own`` (host:port), or by an unexpected scheme."""
    parts = urllib.parse.urlsplit(address)
    if parts.scheme in LOCAL_SCHEMES:
        return False
    return parts.scheme not in {"http", "https", "ws", "wss"} or parts.netloc != own


def test_elsewhere():
    own = "127.0.0.1:8501"
    assert not _elsewhere("http://127.0.0.1:8501/static/js/index.js", own)
    assert not _elsewhere("ws://127.0.0.1:8501/_stcore/stream", own)
    assert not _elsewhere("data:image/svg+xml;base64,AAAA", own)
    assert _elsewhere("https://fonts.gstatic.com/s/i/materialsymbolsrounded/visibility.svg", own)
    assert _elsewhere("http://127.0.0.1:9999/", own)
    assert _elsewhere("ftp://127.0.0.1:8501/", own)


def _visit(base: str, path: str):
    """A pool's job: load ``/path``, wait until it is still, then switch classroom mode on in the
    sidebar and wait for the page to redraw."""

    def job(page):
        yield from goto(page, f"{base}/{path}")
        need((yield still(page, timeout_ms=180_000)), f"/{path} to be still")
        page.locator('[data-testid="stSidebar"]').get_by_text("Classroom mode").click()
        need((yield Wait(CLASSROOM_ON, timeout_ms=180_000)), "classroom=true in the URL")
        need((yield still(page, timeout_ms=180_000)), f"/{path} to redraw")

    return job


def test_no_request_leaves_the_machine(tab, url):
    """Every page at once in ``TABS`` tabs of one browser context, every request of the context
    and every websocket of its tabs recorded."""
    seen: list[str] = []

    def heard(request) -> None:
        seen.append(request.url)

    tab.context.on("request", heard)  # the worker's shared context: taken off again below

    def open_tab(_key):
        page = tab.context.new_page()
        page.set_default_timeout(180_000)
        page.on("websocket", lambda socket: seen.append(socket.url))
        return page, page.close

    paths = ["", *(entry.url_path for entry in PAGES if entry.exists())]
    pool = TabPool(open_tab, width=TABS)
    for path in paths:
        pool.add(path, "app", _visit(url, path))
    try:
        for path in paths:
            pool.result(path)
    finally:
        pool.close()
        tab.context.remove_listener("request", heard)
    own = urllib.parse.urlsplit(url).netloc
    assert sum(address.startswith(f"ws://{own}/") for address in seen) == len(paths)
    elsewhere = sorted({address for address in seen if _elsewhere(address, own)})
    assert not elsewhere, f"requests that leave the machine: {elsewhere}"


def test_icons_are_the_apps_own(tab, url):
    tab.goto(f"{url}/anatomy")
    wait_still(tab)
    icons = tab.evaluate("[...document.querySelectorAll('link[rel~=icon]')].map(link => link.href)")
    assert icons and all(icon.startswith(f"{url}/") for icon in icons), icons
    response = tab.request.get(icons[0])
    assert response.ok and response.headers["content-type"].startswith("image/png")
    navigation = tab.locator('[data-testid="stSidebarNav"] [data-testid="stIconMaterial"]')
    assert navigation.count() == 1 + sum(entry.exists() for entry in PAGES)  # home + pages
    assert navigation.first.inner_text() == "home"  # a ligature of the bundled icon font
