"""The Attention anatomy page in Chinese (issue 16), in Chromium.

``?lang=zh`` with the default vectors, then with typed input (a query coordinate typed in, a cell
of the key/value table edited, the general score and hard attention picked): no English word is
left on screen, in the charts' SVG text, in their hover text or in the table's headers, other than
the formula's names listed below; no missing-glyph box; switching to English and back keeps the
typed query, the edited table, the score function and the toggle.
"""

from __future__ import annotations

import re

import pytest

from tests.browser_helpers import (
    assert_chinese,
    chart_hover_texts,
    shown_texts,
    switch_language,
    wait_settled,
)

pytestmark = pytest.mark.browser
# What stays as it is (docs/glossary.md), word by word: the softmax formula's \exp (KaTeX), the
# download formats, and Luong's name of the general score, kept beside its Chinese (双线性 (general)).
KEPT = {"exp", "CSV", "JSON"}
GENERAL = {"general"}
EDITOR = '[data-testid="stDataFrame"]'
ROW_PX, HEADER_PX = 35, 35  # the data editor's row and header heights


def _table(page):
    """The key/value table (the first data editor; the general score's W is the second), once
    its accessible grid (what the canvas shows, as a hidden table) is filled in."""
    table = page.locator(EDITOR).first
    table.locator('[role="columnheader"]').nth(4).wait_for(state="attached")
    table.locator("#glide-cell-2-0").wait_for(state="attached")
    return table


def _headers(page) -> list[str]:
    """The key/value table's column headers (drawn on a canvas; read from its accessible grid)."""
    headers = _table(page).locator('[role="columnheader"]').all_text_contents()
    return [h for h in headers if h]


def _cell(page, col: int, row: int) -> str:
    """The text of the table's cell (col, row): col 1 is the item's letter, 2 to 5 the numbers."""
    return _table(page).locator(f"#glide-cell-{col}-{row}").text_content()


def _check_chinese(page, allowed: set[str]) -> None:
    """No English word beyond ``allowed`` on screen, in the charts, their hover text or the table's
    headers; no missing-glyph box."""
    texts = shown_texts(page) + chart_hover_texts(page) + _headers(page)
    assert_chinese(texts, allowed)


def _edit_first_key(page, row: int, value: str) -> None:
    """Type ``value`` into the 'key x' cell of ``row`` (0-based) of the table and commit it."""
    box = _table(page).bounding_box()  # the grid itself is a canvas
    # the row-marker and index columns take about 83 px; 'key x' is the next, about 88 px wide
    page.mouse.dblclick(box["x"] + 127, box["y"] + HEADER_PX + ROW_PX * row + ROW_PX / 2)
    editor = page.locator("#portal input, #portal textarea").first  # the grid's cell editor
    editor.fill(value)
    editor.press("Enter")
    page.wait_for_function(
        f"document.querySelector('{EDITOR}').querySelector('#glide-cell-2-{row}')"
        f"?.textContent === '{value}'"
    )
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")


def _assert_view_kept(page, query_label: str, hard_label: str) -> None:
    """The typed query, the edited cell, the score function and the toggle are all still there."""
    wait_settled(page, 3)
    assert page.get_by_role("spinbutton", name=query_label).input_value() == "3.00"
    assert _cell(page, 2, 1) == "7"
    assert re.search(r"anat_qx=3(&|$)", page.url) and "anat_score=general" in page.url
    assert "anat_hard=true" in page.url and "anat_items=2%2C1%2C1%2C0%3B7%2C" in page.url
    assert page.get_by_role("switch", name=hard_label).is_checked()


def test_anatomy_in_chinese(page, app_url):
    page.goto(f"{app_url}/anatomy?lang=zh")
    wait_settled(page, 3)
    page.get_by_role("heading", name="注意力剖析").wait_for()
    assert _headers(page) == ["键 x", "键 y", "值 x", "值 y"]
    _check_chinese(page, KEPT)

    query_x = page.get_by_role("spinbutton", name="查询 x")
    query_x.fill("3")
    query_x.press("Enter")
    page.wait_for_url(re.compile(r"anat_qx=3"))
    _edit_first_key(page, 1, "7")
    page.wait_for_url(re.compile(r"anat_items=2%2C1%2C1%2C0%3B7%2C"))
    page.get_by_role("combobox", name="打分函数").click()
    page.get_by_role("option", name="双线性 (general)").click()
    page.wait_for_url(re.compile(r"anat_score=general"))
    page.get_by_text("硬注意力（采样一项）").click()
    page.get_by_text("硬注意力采样到的是").wait_for()
    wait_settled(page, 3)
    _check_chinese(page, KEPT | GENERAL)

    switch_language(page, "English", "en")
    page.get_by_role("heading", name="Attention anatomy").wait_for()
    _assert_view_kept(page, "query x", "Hard attention (sample one item)")
    assert _headers(page) == ["key x", "key y", "value x", "value y"]
    switch_language(page, "简体中文", "zh")
    page.get_by_role("heading", name="注意力剖析").wait_for()
    _assert_view_kept(page, "查询 x", "硬注意力（采样一项）")
    _check_chinese(page, KEPT | GENERAL)
