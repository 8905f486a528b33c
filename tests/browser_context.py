"""One browser context per test worker, handed to the tests as many: a test's "context" is a
:class:`Tabs`, whose pages open in the worker's one real context at the test's own viewport and
close with it.

Why: a page of the app loads about 8 MB of JavaScript (Streamlit's frontend, plotly.js). In a
fresh context Chromium parses and compiles all of it again; in a persistent one that has loaded it
twice, V8's code cache gives it back compiled (Chromium keeps no code cache for incognito
contexts, which ``browser.new_context()`` makes). Measured on the 2-core machine: plotly.js alone
costs a page's main thread 0.9 s in a fresh context and 0.16 s from the cache, and the suite opens
several hundred pages. Each page is still its own Streamlit session (a session is a websocket, not
a cookie), so the tests stay apart.

A tab a test is done with is kept for the next one (:meth:`SharedBrowser.give_back`) when the test
left nothing on it (no listener, no route): it is taken to ``about:blank`` (which ends its
Streamlit session) and opened again at the next test's viewport. Its renderer keeps what it has
decoded and compiled: twelve chart-page loads cost Chromium 38-39 s of CPU in a new tab each and
22-23 s in one tab reused (docs/development.md, "How long make test takes").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.server import CHROMIUM, CHROMIUM_ARGS

DEFAULT_VIEWPORT = {"width": 1280, "height": 720}  # a persistent context's own
DEFAULT_TIMEOUT_MS = 30_000  # Playwright's
SPARE_TABS = 3  # tabs kept for the next tests
# the listeners Playwright itself keeps on every page: a page with more was listened to by a test
OWN_LISTENERS = {"close": 1, "crash": 1}
_FORGET = "() => { try { sessionStorage.clear(); } catch (e) {} }"  # the tab's own storage


def _untouched(page: Any) -> bool:
    """The test left no listener and no route on ``page`` (Playwright's own state of the page,
    read where its public API has no question for it)."""
    impl = getattr(page, "_impl_obj", None)
    if impl is None or getattr(impl, "_routes", None):
        return False
    return {name: len(impl.listeners(name)) for name in impl.event_names()} == OWN_LISTENERS


class Tabs:
    """Stands in for a Playwright ``BrowserContext``: ``new_page()`` opens a page of the shared
    ``context`` at ``viewport``; ``close()`` closes the pages it opened, never the context; any
    other attribute is the shared context's."""

    def __init__(self, shared: SharedBrowser, viewport: dict[str, int] | None) -> None:
        self._shared = shared
        self._context = shared.context
        self._viewport = viewport
        self._pages: list[Any] = []

    def new_page(self) -> Any:
        page = self._shared.new_page(self._viewport)
        self._pages.append(page)
        return page

    def close(self) -> None:
        for page in self._pages:
            self._shared.give_back(page)
        self._pages.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class SharedBrowser:
    """Stands in for a Playwright ``Browser`` over one persistent ``context``:
    ``new_context(viewport=...)`` returns :class:`Tabs` of it, ``new_page(viewport=...)`` a page
    of it (a spare tab where there is one); ``close()`` closes the context (and the browser with
    it)."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self._spare: list[Any] = []

    def new_context(self, viewport: dict[str, int] | None = None, **options: Any) -> Tabs:
        if options:  # a setting of the whole context: not one the shared context can give
            raise TypeError(
                f"the shared browser context takes a viewport only, not {sorted(options)}"
            )
        return Tabs(self, viewport)

    def new_page(self, viewport: dict[str, int] | None = None) -> Any:
        """A blank tab at ``viewport`` (the context's default when None): a spare one if any."""
        if self._spare:
            page = self._spare.pop()
            page.bring_to_front()  # the active tab, as a new one is
        else:
            page = self.context.new_page()
        page.set_viewport_size(viewport or DEFAULT_VIEWPORT)
        return page

    def give_back(self, page: Any) -> None:
        """A test is done with ``page``: keep it blank for the next test, or close it (a page the
        test listened to or routed, a page that would not go blank, one spare too many)."""
        if page.is_closed():
            return
        if len(self._spare) >= SPARE_TABS or not _untouched(page):
            page.close()
            return
        try:
            page.mouse.move(0, 0)  # no pointer left over where the next test's page draws
            page.evaluate(_FORGET)
            page.goto("about:blank")
        except Exception:  # a page that is crashed or stuck: not worth keeping
            page.close()
            return
        page.set_default_timeout(DEFAULT_TIMEOUT_MS)
        self._spare.append(page)

    def close(self) -> None:
        self.context.close()


def launch_shared(playwright: Any, folder: Path) -> SharedBrowser:
    """The system Chromium, headless, with its profile in ``folder``: a persistent context, since
    Chromium keeps no compiled code (V8's code cache) for an incognito one, which every
    ``browser.new_context()`` is."""
    context = playwright.chromium.launch_persistent_context(
        str(folder), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )
    return SharedBrowser(context)
