"""Home in Chromium: the models table shows every model, its last row included, with no
scroll bar of its own, on a laptop, a phone and a projector in classroom mode; and the line about
the anatomy says what that page does (its vectors are typed in: they cannot be dragged)."""

from __future__ import annotations

import pytest

from tests.app_helpers import open_app

pytestmark = pytest.mark.browser
TABLE = '[data-testid="stTable"]'
# every row of the table, its last row's bottom, the table's own bottom, and any part of it that
# scrolls (a scroll bar of its own would hide rows)
MEASURE = """el => {
  const rows = el.querySelectorAll('tbody tr');
  const last = rows[rows.length - 1].getBoundingClientRect();
  const scrolls = [el, ...el.querySelectorAll('*')].filter(
    e => e.scrollHeight > e.clientHeight + 1 && getComputedStyle(e).overflowY !== 'visible');
  return {rows: rows.length, last: last.bottom, bottom: el.getBoundingClientRect().bottom,
          height: last.height, scrolls: scrolls.length};
}"""


def _expected_rows() -> int:
    return len(open_app().table[0].value)


@pytest.mark.parametrize(
    ("width", "height", "query"),
    [(1280, 800, ""), (390, 844, ""), (1280, 720, "?classroom=true")],
)
def test_models_table_shows_its_last_row(browser, app_url, width, height, query):
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{app_url}/{query}")
        table = page.locator(TABLE)
        table.wait_for()
        table.scroll_into_view_if_needed()
        seen = table.evaluate(MEASURE)
        assert seen["rows"] == _expected_rows() and seen["scrolls"] == 0, seen
        assert seen["last"] <= seen["bottom"] + 1 and seen["height"] > 10, seen
    finally:
        context.close()


def test_home_says_what_the_anatomy_does(page, app_url):
    page.goto(app_url)
    page.get_by_text("Scores, softmax, weighted sum on vectors you type in.").wait_for()
    assert "drag" not in page.locator('[data-testid="stMain"]').inner_text()
