"""The app under AppTest, opened the way a browser navigates to a page."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.server import ROOT

APP = str(ROOT / "app.py")


def open_app(
    page: str | None = None,
    params: dict[str, str] | None = None,
    first: dict[str, str] | None = None,
    timeout: float = 60,
) -> AppTest:
    """Run the app (home, with the ``first`` URL params), then open ``page`` with ``params`` (a
    navigation clears the URL params, as in the browser); no exception was raised."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for name, value in (first or {}).items():
        at.query_params[name] = value
    at.run()
    if page:
        at.switch_page(page)
        for name, value in (params or {}).items():
            at.query_params[name] = value
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at
