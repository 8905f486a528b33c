"""AppTest: the Attention anatomy page's tables of numbers: a box per cell, so what a
person types is what the page reads ("-3" stays -3, "−3" too); a cell that is not a usable number
leaves its row out with a message; rows are added and deleted; and edits are not lost when the
table is drawn again after a run without it (W while another score is chosen, the table after a
visit to another page)."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app_helpers import figures, open_app
from tests.test_app import _array

ANATOMY = "app_pages/anatomy/anatomy.py"


def _boxes(at: AppTest, table: str) -> list:
    """The text boxes of ``table`` ('anat_items' or 'anat_W'), row by row."""
    return [w for w in at.text_input if w.key.startswith(f"{table}_cell_")]


def _scores(at: AppTest) -> list[float]:
    for fig in figures(at):
        if fig["layout"].get("title", {}).get("text", "").startswith("Scores"):
            return _array(fig["data"][0]["y"])
    raise AssertionError("no scores chart")


@pytest.mark.parametrize("typed", ["-3", "\u22123", " -3 "])
def test_a_typed_negative_number_is_read(typed: str):
    at = open_app(ANATOMY)
    _boxes(at, "anat_items")[4].set_value(typed).run()  # item B's key x: (-1, 1) -> (-3, 1)
    assert _scores(at) == pytest.approx([5.0, -5.0, -2.0, 1.0])  # q = (2, 1)
    assert at.query_params["anat_items"] == "2,1,1,0;-3,1,0,1;0,-2,-1,0;1,-1,0,-1"


@pytest.mark.parametrize("typed", ["abc", "1e5", ""])
def test_an_unusable_cell_leaves_its_row_out(typed: str):
    at = open_app(ANATOMY)
    _boxes(at, "anat_items")[15].set_value(typed).run()  # item D's value y
    assert any("Rows with an empty cell" in c.value for c in at.caption)
    assert len(_scores(at)) == 3 and not at.exception


def test_rows_are_added_and_deleted():
    at = open_app(ANATOMY)
    at.button(key="anat_items_add").click().run()
    boxes = _boxes(at, "anat_items")
    assert len(boxes) == 20 and boxes[16].value == ""
    for box, value in zip(boxes[16:], ["0.5", "0.5", "2", "2"], strict=True):
        box.set_value(value)
    at.run()
    assert len(_scores(at)) == 5 and _scores(at)[4] == pytest.approx(1.5)
    delete = [b for b in at.button if b.key.startswith("anat_items_delete_")]
    delete[0].click().run()  # item A
    assert len(_scores(at)) == 4
    assert at.query_params["anat_items"].startswith("-1,1,0,1;")
    assert [b.disabled for b in at.button if b.key.startswith("anat_items_delete_")] == [False] * 4


def test_the_fewest_rows_cannot_be_deleted_and_the_most_not_added():
    at = open_app(ANATOMY, {"anat_items": "1,0,1,0;0,1,0,1;1,1,2,2"})
    deletes = [b for b in at.button if b.key.startswith("anat_items_delete_")]
    assert all(b.disabled for b in deletes) and len(deletes) == 3
    at = open_app(ANATOMY, {"anat_items": ";".join(["1,0,1,0"] * 8)})
    assert at.button(key="anat_items_add").disabled


def test_W_edits_survive_another_score():
    at = open_app(ANATOMY, {"anat_score": "general"})
    _boxes(at, "anat_W")[1].set_value("2").run()  # W = [[1, 2], [0, 1]]
    at.selectbox(key="anat_score").set_value("dot").run()
    assert not _boxes(at, "anat_W")
    at.selectbox(key="anat_score").set_value("general").run()
    assert [b.value for b in _boxes(at, "anat_W")] == ["1", "2", "0", "1"]
    # q^T W k with q = (2, 1): W k_A = (1 + 2, 1) for k_A = (2, 1) ... scores of the four keys
    W = np.array([[1.0, 2.0], [0.0, 1.0]])
    keys = np.array([[2.0, 1.0], [-1.0, 1.0], [0.0, -2.0], [1.0, -1.0]])
    assert _scores(at) == pytest.approx((keys @ W.T @ np.array([2.0, 1.0])).tolist())


def test_table_edits_survive_a_visit_to_another_page():
    at = open_app(ANATOMY)
    _boxes(at, "anat_items")[0].set_value("4").run()
    at.switch_page("app_pages/home/home.py").run()
    at.switch_page(ANATOMY).run()
    assert _boxes(at, "anat_items")[0].value == "4"
    assert _scores(at)[0] == pytest.approx(9.0)  # q . k_A = 2 * 4 + 1 * 1
