"""One browser context per test worker, handed to the tests as many: a test's "context" is a
:class:`Tabs`, whose pages open in the worker's one real context at the test's own viewport and
close with it.

Why: a page of the app loads about 8 MB of JavaScript (Streamlit's frontend, plotly.js). In a
fresh context Chromium parses and compiles all of it again; in one that has loaded it before, its
HTTP cache and V8's code cache give it back compiled. Measured on the 2-core machine
(docs/development.md): loading /alignment costs the page's main thread 2.0-2.3 s in a fresh
context and 0.8 s in a warm one, and the suite opens several hundred pages. Each page is still
its own Streamlit session (a session is a websocket, not a cookie), so the tests stay apart.
"""

from __future__ import annotations

from typing import Any


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
    """Stands in for a Playwright ``Browser``: ``new_context(viewport=...)`` returns :class:`Tabs`
    of one shared context (one per other set of options, should a test ask for any)."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self._contexts: dict[tuple, Any] = {}

    def new_context(self, viewport: dict[str, int] | None = None, **options: Any) -> Tabs:
        key = tuple(sorted(options.items()))
        if key not in self._contexts:
            self._contexts[key] = self._browser.new_context(**options)
        return Tabs(self._contexts[key], viewport)

    def close(self) -> None:
        for context in self._contexts.values():
            context.close()
        self._contexts.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)
