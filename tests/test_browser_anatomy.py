"""The Attention anatomy page's key/value table, as a person types into it, in
Chromium: "-3" typed at full speed into a cell stays -3 (Streamlit's grid lost the minus when the
second key came before its cell editor was ready), a cell that is not a number is refused with a
message, rows are added and deleted, and all four columns and the delete buttons fit the column at
a laptop's and a phone's width. The vector diagram's names do not overlap at either width."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser_helpers import wait_settled
from tests.legibility import check_page

pytestmark = pytest.mark.browser
BOXES = '[data-testid="stTextInput"] input'
APP = '[data-testid="stApp"]'


def _cell(page, row: int, col: int):
    """The box of the table's cell (row, col), both from 0."""
    return page.locator(BOXES).nth(4 * row + col)


def _scores(page) -> list[str]:
    """The numbers written on the bars of the scores chart (the page's first chart)."""
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    return chart.locator(".bartext, .textpoint text").all_text_contents()


def _commit(page, cell, keys: str) -> None:
    """Select the cell's text and type ``keys`` at full speed (no pause between keys), then
    Enter; wait for the rerun it starts to end (on a busy machine it starts late: the next cell
    typed into before then could be drawn again under the typing). Typed again if the cell does
    not hold ``keys`` once the rerun is over (a rerun of the cell before, started late under a
    full suite's load, drew the table again under the typing: seen once)."""
    for _attempt in range(3):
        cell.click()
        cell.press("ControlOrMeta+a")
        page.keyboard.type(keys)  # every key at once: the old grid dropped the first of "-3"
        page.keyboard.press("Enter")
        try:
            page.wait_for_selector(f"{APP}[data-test-script-state=running]", timeout=3000)
        except PlaywrightTimeout:
            pass  # over before it was seen
        page.wait_for_function(
            f"!document.querySelector('{APP}[data-test-script-state=running], [data-stale=true]')",
            polling=100,
        )
        if cell.input_value() == keys:
            return


def test_typing_minus_three_into_a_cell(page, app_url):
    page.goto(f"{app_url}/anatomy")
    wait_settled(page, 3)
    _commit(page, _cell(page, 1, 0), "-3")  # item B's key x: (-1, 1) becomes (-3, 1)
    page.wait_for_url(re.compile(r"anat_items=2%2C1%2C1%2C0%3B-3%2C1%2C0%2C1%3B"))
    assert _cell(page, 1, 0).input_value() == "-3"
    # q = (2, 1): B's score is 2 * -3 + 1 * 1 = -5
    page.wait_for_function(
        "[...document.querySelectorAll('[data-testid=stPlotlyChart] text')]"
        ".some(t => t.textContent === '−5.000' || t.textContent === '-5.000')"
    )


def test_a_cell_that_is_not_a_number_is_refused(page, app_url):
    page.goto(f"{app_url}/anatomy")
    wait_settled(page, 3)
    cell = _cell(page, 2, 3)
    cell.click()
    cell.press("ControlOrMeta+a")
    page.keyboard.type("abc")
    page.keyboard.press("Enter")
    page.get_by_text("Type a number, such as -3 or 0.5.").wait_for()
    assert "%3B0%2C-2%2C-1%2C0%3B" in page.url  # item C is still (0, -2), (-1, 0)


def test_rows_are_added_and_deleted(page, app_url):
    page.goto(f"{app_url}/anatomy")
    wait_settled(page, 3)
    page.get_by_role("button", name="Add an item").click()
    page.locator(BOXES).nth(16).wait_for()  # a fifth row, empty
    page.get_by_text("Rows with an empty cell").wait_for()
    for col, value in enumerate(["0.5", "0.5", "2", "2"]):
        _commit(page, _cell(page, 4, col), value)
    page.wait_for_url(re.compile(r"anat_items=.*%3B0\.5%2C0\.5%2C2%2C2"))
    page.locator('[class*="st-key-anat_items_delete_"] button').first.click()  # item A's
    page.wait_for_url(re.compile(r"anat_items=-1%2C1%2C0%2C1%3B"))  # B is now the first row
    page.wait_for_function(  # the boxes are drawn again from the new rows
        f"document.querySelectorAll('{BOXES}').length === 16"
        f" && document.querySelector('{BOXES}').value === '-1'"
    )


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844), (1280, 720)])
def test_every_column_fits_and_the_diagram_reads(browser, app_url, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        classroom = height == 720
        page.goto(f"{app_url}/anatomy" + ("?classroom=true" if classroom else ""))
        wait_settled(page, 3)
        column = page.locator('[data-testid="stColumn"]').first.bounding_box()
        right = column["x"] + column["width"]
        boxes = page.locator(BOXES)
        for i in range(16):  # every box of the 4 x 4 table, 'value y' included, in the column
            box = boxes.nth(i).bounding_box()
            assert box["width"] >= 40 and box["x"] + box["width"] <= right + 1, (i, box, right)
        problems = [p for p in check_page(page, classroom=classroom) if "anat_vectors" in p]
        assert not problems, problems
    finally:
        context.close()
