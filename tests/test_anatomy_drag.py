"""Dragging on the Attention anatomy page, without a browser: the options the diagram's
drag behaviour gets (app_pages/anatomy/drag.py), the rounding to the inputs' step, the dragged keys put
back into the table's rows, the callback that writes them into the page's state (AppTest), and
drag.js's own arithmetic run in node against ``models.analysis.toy.anatomy`` for every score
function, so that the browser's preview and the server's values are the same numbers."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from app_pages.anatomy.drag import STEP, drag_options, member, moved_rows, snap
from models.analysis.toy import ADDITIVE_V, ADDITIVE_W_K, ADDITIVE_W_Q, anatomy
from tests.app_helpers import open_app
from tests.node_js import ASSETS, needs_node, run_exports
from ui import plotly_component
from viz import vector_diagram

DRAG_JS = ASSETS / "drag.js"
ADDITIVE = {"W_q": ADDITIVE_W_Q, "W_k": ADDITIVE_W_K, "v": ADDITIVE_V}
ITEMS = np.array(
    [[2.0, 1.0, 1.0, 0.0], [-1.0, 1.0, 0.0, 1.0], [0.0, -2.0, -1.0, 0.0], [1.0, -1.0, 0.0, -1.0]]
)


def _options(score: str = "dot", temperature: float = 1.0, W=None, items=ITEMS, query=(2.0, 1.0)):
    names = [chr(ord("A") + i) for i in range(len(items))]
    result = anatomy(query, items[:, :2], items[:, 2:], score_name="dot")
    fig = vector_diagram(query, items[:, :2], items[:, 2:], result.context, names)
    return fig, drag_options(
        fig, np.array(query), items, names, score=score, W=W, additive=ADDITIVE,
        temperature=temperature,
    )  # fmt: skip


def test_snap_rounds_to_the_step_as_a_typed_number_reads():
    assert snap(2.34) == 2.3 and snap(2.34) == float("2.3")  # not 23 * 0.1
    assert snap(-0.26) == -0.3 and snap(0.04) == 0.0
    assert snap(123.0) == 100.0 and snap(-1e9) == -100.0  # the table's limit
    assert snap(1.26, 0.5) == 1.5
    # every value within the table's limit lands on the step's grid, at most half a step away,
    # as the number a box shows with the step's decimals; snapped again, it stays
    decimals = len(repr(STEP).partition(".")[2])
    for x in np.random.default_rng(1).uniform(-100, 100, 500):
        snapped = snap(float(x))
        assert abs(snapped - x) <= STEP / 2 + 1e-9, (x, snapped)
        assert snapped == float(f"{snapped:.{decimals}f}") == snap(snapped), (x, snapped)


def test_the_options_point_at_the_diagrams_traces():
    fig, options = _options()
    for group in ("query", "keys", "context"):
        arrows, tips = options.traces[group]
        assert fig.data[tips].name == f"{group} tips"
        assert fig.data[arrows].mode == "lines+markers" and arrows == tips - 1
    assert options.query == [2.0, 1.0] and options.keys[1] == [-1.0, 1.0]
    assert options.values[2] == [-1.0, 0.0] and options.key_tips == ["k:A", "k:B", "k:C", "k:D"]
    assert options.role == "vectors" and options.group == member("scores")["group"]
    assert options.W is None and options.v is None and options.step == STEP
    payload = options.payload()
    assert json.loads(json.dumps(payload, allow_nan=False)) == payload  # plain JSON


def test_the_options_carry_the_score_functions_parameters():
    W = np.array([[1.0, 2.0], [0.0, 1.0]])
    __, general = _options("general", W=W)
    assert general.W == [[1.0, 2.0], [0.0, 1.0]] and general.W_q is None
    __, additive = _options("additive", temperature=0.5, W=W)
    assert additive.W is None and additive.v == list(ADDITIVE_V) and additive.temperature == 0.5
    assert additive.W_q == [list(r) for r in ADDITIVE_W_Q]
    with pytest.raises(ValueError):  # not a vector diagram
        drag_options(go.Figure(), np.zeros(2), ITEMS, list("ABCD"), score="dot", W=None,
                     additive=ADDITIVE, temperature=1.0)  # fmt: skip


def test_dragged_keys_go_to_the_complete_rows_in_order():
    nan = math.nan
    rows = [[1.0, 1.0, 1.0, 0.0], [nan, 2.0, 0.0, 1.0], [3.0, 3.0, 0.0, 0.0]]
    moved = moved_rows(rows, [[0.5, -0.5], [2.5, 2.0]])
    assert moved[0] == [0.5, -0.5, 1.0, 0.0] and moved[2] == [2.5, 2.0, 0.0, 0.0]
    assert math.isnan(moved[1][0]) and moved[1][1:] == [2.0, 0.0, 1.0]
    assert rows[0] == [1.0, 1.0, 1.0, 0.0]  # not changed in place
    with pytest.raises(ValueError, match="2 complete rows"):
        moved_rows(rows, [[0.0, 0.0]])


def _drag_script() -> None:
    import math

    import streamlit as st

    from app_pages.anatomy.drag import apply_drag
    from app_pages.anatomy.number_table import set_rows

    if "anat_items" not in st.session_state:
        set_rows("anat_items", [[2, 1, 1, 0], [math.nan, 1, 0, 1], [0, -2, -1, 0], [1, -1, 0, -1]])
        st.session_state["anat_qx"], st.session_state["anat_qy"] = 2.0, 1.0
    st.session_state["anat_vectors"] = {"drag": st.session_state.get("sent")}
    apply_drag("anat_vectors")


@pytest.mark.parametrize(
    ("sent", "query", "key_c"),
    [
        ({"query": [0.34, -1.26], "keys": [[2, 1], [0, -2], [1, -1]]}, [0.3, -1.3], [0.0, -2.0]),
        ({"query": [2, 1], "keys": [[2, 1], [-0.71, 3.05], [1, -1]]}, [2.0, 1.0], [-0.7, 3.1]),
        ({"query": [1, 1], "keys": [[2, 1], [1, -1]]}, [2.0, 1.0], [0.0, -2.0]),  # not 3 keys
        ({"query": ["x", 1], "keys": [[2, 1], [0, -2], [1, -1]]}, [2.0, 1.0], [0.0, -2.0]),
    ],
)
def test_the_callback_writes_the_dragged_vectors_into_the_state(sent, query, key_c):
    at = AppTest.from_function(_drag_script)
    at.session_state["sent"] = sent
    at.run()
    assert not at.exception
    assert [at.session_state["anat_qx"], at.session_state["anat_qy"]] == query
    rows = at.session_state["anat_items"]
    assert rows[2][:2] == key_c and math.isnan(rows[1][0])  # row B (incomplete) is skipped
    version = at.session_state["anat_items_version"]
    assert version == (2 if key_c != [0.0, -2.0] else 1)  # new boxes only when a key moved


@needs_node
@pytest.mark.parametrize(
    ("score", "temperature"),
    [("dot", 1.0), ("scaled_dot", 1.0), ("general", 0.7), ("additive", 1.0), ("dot", 1e-6),
     ("dot", 1e6), ("scaled_dot", 3.0)],
)  # fmt: skip
def test_the_browsers_stages_equal_the_servers(score, temperature, tmp_path):
    W = np.array([[0.5, -1.2], [2.0, 0.3]])
    query = (0.3, -1.7)
    keys = np.array([[2.1, 1.0], [-1.0, 1.4], [0.0, -2.0], [1.0, -1.0], [2.1, 1.0]])
    items = np.concatenate([keys, np.array([[1, 0], [0, 1], [-1, 0], [0, -1], [3, 3]])], axis=1)
    __, options = _options(score, temperature, W=W, items=items, query=query)
    call = {"fn": "preview", "args": [options.payload(), query, keys.tolist()]}
    (browser,) = run_exports(DRAG_JS, [call], tmp_path)
    server = anatomy(query, keys, items[:, 2:], score_name=score, temperature=temperature, W=W)
    np.testing.assert_allclose(browser["scores"], server.scores, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(browser["weights"], server.weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(browser["context"], server.context, rtol=1e-12, atol=1e-14)
    assert [f"{w:.3f}" for w in browser["weights"]] == [f"{w:.3f}" for w in server.weights]


@needs_node
def test_the_browser_rounds_and_writes_numbers_as_python_does(tmp_path):
    rng = np.random.default_rng(0)
    xs = [*(rng.uniform(-120, 120, 200)), 0.05, -0.05, 0.15, 2.25, -2.35, 1e-17]
    calls = [{"fn": "snap", "args": [float(x), STEP, 100.0]} for x in xs]
    numbers = [-0.0, -0.0004, 0.0004, 1.23456, -5.0, 0.5, 123.4567]
    calls += [{"fn": "fixed3", "args": [x]} for x in numbers]
    out = run_exports(DRAG_JS, calls, tmp_path)
    assert out[: len(xs)] == [snap(x) for x in xs]
    # JSON has no negative zero: node's -0 comes back as 0; check its text separately
    assert out[len(xs) :] == ["-0.000", "-0.000", "0.000", "1.235", "-5.000", "0.500", "123.457"]
    assert [f"{x:.3f}" for x in numbers] == out[len(xs) :]


def test_without_the_component_the_page_has_no_handles_to_mention(monkeypatch):
    """Without the component (``ATLAS_PLOTLY_COMPONENT=0``) the charts are st.plotly_chart's: no
    drag, so no sentence about dragging; the query inputs step by the drag's step."""
    monkeypatch.setenv(plotly_component.ENV, "0")
    at = open_app("app_pages/anatomy/anatomy.py")
    assert not at.exception
    assert not [c for c in at.caption if "Drag" in c.value]
    assert at.number_input(key="anat_qx").step == STEP
    # a click on the box's + moves the query by one step, onto the drag's grid
    at.number_input(key="anat_qx").increment().run()
    assert at.number_input(key="anat_qx").value == snap(2.0 + STEP)
