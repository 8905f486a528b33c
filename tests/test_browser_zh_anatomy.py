"""The Attention anatomy page in Chinese, in Chromium.

``?lang=zh`` with the default vectors, then with typed input (a query coordinate typed in, a cell
of the key/value table edited, the general score and hard attention picked): no English word is
left on screen, in the charts' SVG text, in their hover text or in the table's labels, other than
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


def _headers(page) -> list[str]:
    """The key/value table's column names: the shown labels of its first row's boxes (the
    other rows' labels are hidden)."""
    labels = page.locator('[data-testid="stTextInput"] label').all_inner_texts()
    return [label.strip() for label in labels if label.strip()][:4]


def _cell(page, row: int, col: int):
    """The text box of the table's cell (row, col), both from 0 (the general score's W comes
    after the table's boxes)."""
    return page.locator('[data-testid="stTextInput"] input').nth(4 * row + col)


def _check_chinese(page, allowed: set[str]) -> None:
    """No English word beyond ``allowed`` on screen, in the charts or their hover text (the
    boxes' hidden labels included); no missing-glyph box."""
    labels = page.locator('[data-testid="stTextInput"] input').evaluate_all(
        "boxes => boxes.map(b => b.getAttribute('aria-label') || '')"
    )
    texts = shown_texts(page) + chart_hover_texts(page) + labels
    assert_chinese(texts, allowed)


def _edit_first_key(page, row: int, value: str) -> None:
    """Type ``value`` into the 'key x' cell of ``row`` (0-based) of the table and commit it."""
    cell = _cell(page, row, 0)
    cell.fill(value)
    cell.press("Enter")
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")


def _assert_view_kept(page, query_label: str, hard_label: str) -> None:
    """The typed query, the edited cell, the score function and the toggle are all still there."""
    wait_settled(page, 3)
    assert page.get_by_role("spinbutton", name=query_label).input_value() == "3.00"
    assert _cell(page, 1, 0).input_value() == "7"
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
