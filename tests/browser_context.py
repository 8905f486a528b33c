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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.server import CHROMIUM, CHROMIUM_ARGS


class Tabs:
    """Stands in for a Playwright ``BrowserContext``: ``new_page()`` opens a page of the shared
    ``context`` at ``viewport``; ``close()`` closes the pages it opened, never the context; any
    other attribute is the shared context's."""

    def __init__(self, context: Any, viewport: dict[str, int] | None) -> None:
        self._context = context
        self._viewport = viewport
        self._pages: list[Any] = []

    def new_page(self) -> Any:
        page = self._context.new_page()
        if self._viewport:
            page.set_viewport_size(self._viewport)
        self._pages.append(page)
        return page

    def close(self) -> None:
        for page in self._pages:
            if not page.is_closed():
                page.close()
        self._pages.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class SharedBrowser:
    """Stands in for a Playwright ``Browser`` over one persistent ``context``:
    ``new_context(viewport=...)`` returns :class:`Tabs` of it, ``new_page(viewport=...)`` a page
    of it; ``close()`` closes the context (and the browser with it)."""

    def __init__(self, context: Any) -> None:
        self._context = context

    def new_context(self, viewport: dict[str, int] | None = None, **options: Any) -> Tabs:
        if options:  # a setting of the whole context: not one the shared context can give
            raise TypeError(
                f"the shared browser context takes a viewport only, not {sorted(options)}"
            )
        return Tabs(self._context, viewport)

    def new_page(self, viewport: dict[str, int] | None = None) -> Any:
        page = self._context.new_page()
        if viewport:
            page.set_viewport_size(viewport)
        return page

    def close(self) -> None:
        self._context.close()


def launch_shared(playwright: Any, folder: Path) -> SharedBrowser:
    """The system Chromium, headless, with its profile in ``folder``: a persistent context, since
    Chromium keeps no compiled code (V8's code cache) for an incognito one, which every
    ``browser.new_context()`` is."""
    context = playwright.chromium.launch_persistent_context(
        str(folder), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )
    return SharedBrowser(context)
