"""Home in Chromium, a defect: a link to ``/home`` (the path app.py gives Home) showed
Streamlit's "Page not found" before the main page; it shows Home, in the link's language."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
INTRO = "This atlas lets you watch attention at work."
NOT_FOUND = "Page not found"
MAIN = '[data-testid="stMain"]'


@pytest.mark.parametrize("path", ["/home", "/home?lang=en", "/"])
def test_home_path_shows_home(page, app_url, path):
    page.goto(f"{app_url}{path}")
    page.locator(MAIN).get_by_text(INTRO).wait_for()
    page.locator(MAIN).get_by_text("The story, page by page").wait_for()  # the whole page ran
    assert page.get_by_text(NOT_FOUND).count() == 0
    assert page.get_by_role("dialog").count() == 0
    assert page.url.split("?")[0].endswith(path.split("?")[0])  # no redirect to the main page
    labels = page.locator('[data-testid="stSidebarNav"] a span[label]')  # the icon's name aside
    shown = [label.get_attribute("label") for label in labels.all()]
    assert shown.count("Home") == 1  # the alias at /home is hidden


def test_home_path_keeps_the_links_language(page, app_url):
    page.goto(f"{app_url}/home?lang=zh")
    page.locator(MAIN).get_by_role("heading", name="注意力图谱").wait_for()
    assert page.get_by_text(NOT_FOUND).count() == 0
