"""A copied link opens its page inside the app: shared sidebar, st.navigation, not legacy mode."""

from __future__ import annotations

import pytest

from ui.registry import PAGES, ROOT

pytestmark = pytest.mark.browser


def test_no_legacy_pages_folder():
    """A pages/ folder beside app.py would switch deep links to Streamlit's legacy multipage mode."""
    assert not (ROOT / "pages").exists()


@pytest.mark.parametrize("url_path", ["anatomy", "positional_encoding"])
def test_deep_link_in_a_fresh_session_has_the_app_sidebar(page, app_url, url_path):
    page.goto(f"{app_url}/{url_path}")
    page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stSelectbox"]')
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
    titles = [entry.title for entry in PAGES if entry.exists()]
    assert "Home" in nav and all(title in nav for title in titles), nav
    assert "app" not in nav.split()  # the legacy mode lists the entry script as a page named "app"
