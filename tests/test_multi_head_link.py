"""The Multi-head page's events from the hand, Python side: a click on any cell of an overview
panel chooses that layer and head (``picked_in_overview`` reading the chart component's click),
the hover link's options (viz/hover_link.py) name the right traces of the head map and of the
lines, the page sends them to the chart component, and without the component (AppTest,
``ATLAS_PLOTLY_COMPONENT=0``) the page says to use the pickers. The browser side:
test_browser_multi_head_link.py."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app_helpers import charts, open_app
from tests.requirements_env import need
from tests.tiny_transformer import build_tiny_transformers
from ui import plotly_component
from viz.hover_link import HIGHLIGHT_PX, heatmap_link
from viz.multi_head import grid_tiles, head_heatmap
from viz.multi_head_lines import HEAD_COLOURS, head_lines, lines_link

PAGE = "app_pages/multi_head/multi_head.py"
SENTENCE = "a black dog runs on the green grass ."


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_transformers(tmp_path_factory.mktemp("tiny_mh_link"))


def _weights() -> np.ndarray:
    return np.random.default_rng(1).dirichlet(np.ones(5), size=(3, 4)).astype(np.float32)


def test_lines_link_names_the_linked_heads_lines_and_colour() -> None:
    w = _weights()  # (H=3, T_q=4, T_k=5)
    fig = head_lines(w, list("abcde"), list("wxyz"), heads=[0, 2], threshold=0.0)
    link = lines_link(fig, 2, "g")
    assert (link.role, link.group, link.n_queries, link.n_keys) == ("lines", "g", 4, 5)
    traces = fig.data
    assert link.linked and {traces[n].name for n in link.linked} == {"head 3"}
    assert all(traces[n].line.color == HEAD_COLOURS[2] for n in link.linked)
    assert (link.colour, link.width) == (HEAD_COLOURS[2], HIGHLIGHT_PX)
    # every line of head 3 (threshold 0: all 4 x 5) is in the linked traces, as (i, j) segments
    pairs = {
        (traces[n].y[k], traces[n].y[k + 1])
        for n in link.linked
        for k in range(0, len(traces[n].y), 3)
    }
    assert pairs == {(i, j) for i in range(4) for j in range(5)}
    assert all(list(traces[n].x) == [0, 1, None] * (len(traces[n].x) // 3) for n in link.linked)
    options = link.options()
    assert json.loads(json.dumps(options)) == options and options["linked"] == list(link.linked)


def test_a_linked_head_that_is_not_shown_has_no_lines_but_its_colour() -> None:
    w = _weights()
    fig = head_lines(w, list("abcde"), list("wxyz"), heads=[0], token=2)
    link = lines_link(fig, 1, "g")
    assert link.linked == () and link.colour == HEAD_COLOURS[1]
    assert lines_link(fig, 0, "g").linked  # head 1's lines of token 2
    with pytest.raises(ValueError, match="no token columns"):
        lines_link(head_heatmap(w[0], list("abcde"), list("wxyz")), 0, "g")


def test_heatmap_link_gives_the_heatmaps_shape() -> None:
    fig = head_heatmap(_weights()[0], list("abcde"), list("wxyz"))
    link = heatmap_link(fig, "g")
    assert (link.role, link.trace, link.n_queries, link.n_keys) == ("heatmap", 0, 4, 5)


def _click_app(shape: tuple[int, int, int, int], cell: object) -> None:
    """Run by AppTest: the overview's click on ``cell`` ([row, col]) read by the callback."""
    import streamlit as st

    from app_pages.multi_head.settings import picked_in_overview
    from viz.multi_head import grid_tiles

    if "mh_layer" not in st.session_state:
        st.session_state["mh_layer"], st.session_state["mh_head"] = 1, 1
    st.session_state["mh_grid"] = {"selection": {"points": [{"point_number": cell}]}}
    picked_in_overview(grid_tiles(shape))


@pytest.mark.parametrize(
    ("cell", "chosen"),
    [
        ([0, 0], (1, 1)),
        ([1 * 9 + 3, 4 * 9 + 7], (2, 5)),  # 8 cells a side, a 1-cell gap: layer 2, head 5
        ([1 * 9 + 3, 4 * 9 + 8], (1, 1)),  # the gap after head 5
        ([8, 9], (1, 1)),  # a gap: nothing chosen
        ([5 * 9 + 7, 11 * 9 + 7], (6, 12)),
        (None, (1, 1)),  # st.plotly_chart's click on a heatmap has no point_number
        (["a", 2], (1, 1)),
    ],
)
def test_a_click_on_any_cell_of_a_panel_chooses_it(cell: object, chosen: tuple[int, int]):
    shape = (6, 12, 8, 8)
    assert grid_tiles(shape).gap == 1
    at = AppTest.from_function(_click_app, args=(shape, cell), default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    assert (at.session_state["mh_layer"], at.session_state["mh_head"]) == chosen


def _captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def test_without_the_component_the_page_says_to_use_the_pickers(tiny: Path, monkeypatch):
    monkeypatch.setenv(plotly_component.ENV, "0")
    at = open_app(PAGE, {"mh_model": "transformer", "mh_text": SENTENCE}, timeout=180)
    assert "with the pickers below" in _captions(at) and "Click a panel" not in _captions(at)
    (grid,) = [c for c in at.get("plotly_chart") if c.proto.id.endswith("-mh_grid")]
    assert [t["type"] for t in json.loads(grid.proto.spec)["data"]] == ["heatmap"]
    assert at.selectbox(key="mh_layer").value == 1 and at.selectbox(key="mh_head").value == 1


def _payloads(at: AppTest) -> dict[str, dict]:
    """The chart component's payloads by chart key (figure, behaviours, select)."""
    sent = [c for c in charts(at) if c.component]
    return {
        c.key: {"figure": c.figure, "behaviours": c.behaviours, "select": c.select} for c in sent
    }


def test_the_component_gets_the_click_and_the_hover_link(tiny: Path, monkeypatch):
    """ATLAS_PLOTLY_COMPONENT=1 under AppTest: the overview sends clicks, the page says so; the
    head map (layer 2, head 3) and the lines are linked, the lines' options naming head 3's."""
    need(importlib.util.find_spec("atlas_plotly") is not None, "atlas-plotly: run `make setup`")
    monkeypatch.setenv(plotly_component.ENV, "1")
    params = {"mh_model": "transformer", "mh_text": SENTENCE, "mh_layer": "2", "mh_head": "3"}
    at = open_app(PAGE, params, timeout=180)
    assert "Click a panel" in _captions(at)
    charts = _payloads(at)
    assert charts["mh_grid"]["select"] is True
    head_map = charts["mh_head_map"]["behaviours"]["link"]
    lines = charts["mh_lines"]["behaviours"]["link"]
    assert head_map["group"] == lines["group"] and head_map["role"] == "heatmap"
    data = charts["mh_lines"]["figure"]["data"]
    assert lines["linked"] and {data[n]["name"] for n in lines["linked"]} == {"head 3"}
    assert lines["colour"] == HEAD_COLOURS[2]
    assert (head_map["n_queries"], head_map["n_keys"]) == (lines["n_queries"], lines["n_keys"])
    for key in ("mh_grid", "mh_agg_map", "mh_shares"):
        assert "link" not in charts[key]["behaviours"]  # only the head and its lines


def test_the_narrow_map_and_lines_fit_half_a_projectors_row(monkeypatch):
    """Multi-head in classroom mode: for half the row the head's map drops its cells'
    numbers and the head view puts its legend under the lines; both then fit half of a 1280x720
    row at the least legible scale for an 11-token sentence (they did not: 602 and 425 px at the
    builders' font, against 390)."""
    from ui import fit
    from viz.multi_head import head_heatmap
    from viz.multi_head_lines import head_lines

    tokens = [
        "▁A",
        "▁black",
        "▁dog",
        "▁is",
        "▁running",
        "▁on",
        "▁the",
        "▁green",
        "▁grass",
        ".",
        "</s>",
    ]
    w = np.random.default_rng(0).dirichlet(np.ones(11), size=(8, 11))  # (H, T, T)
    title = "left: queries, the tokens that attend<br>right: keys, the tokens attended to"
    monkeypatch.setattr(fit, "classroom_mode", lambda: True)
    half = fit.Column((1, 1), 0).holds_width
    wide_map = head_heatmap(w[0], tokens, tokens, title="layer 1, head 1<br>11 queries x 11 keys")
    narrow_map = head_heatmap(
        w[0], tokens, tokens, title="layer 1, head 1<br>11 queries x 11 keys", numbers=False
    )
    assert wide_map.data[0].texttemplate and not narrow_map.data[0].texttemplate
    assert not half(wide_map.layout.width)
    assert half(narrow_map.layout.width)
    heads = list(range(8))
    right = head_lines(w, tokens, tokens, heads=heads, title=title)
    below = head_lines(w, tokens, tokens, heads=heads, title=title, legend_below=True)
    assert not half(right.layout.width) and half(below.layout.width)
    assert below.layout.legend.orientation == "h" and below.layout.margin.r < right.layout.margin.r
    assert below.layout.height > right.layout.height  # the legend's rows under the lines


@pytest.mark.parametrize("numbers", [True, False])
def test_the_widths_measured_without_drawing_are_the_drawn_ones(numbers):
    """The page chooses its layout from head_heatmap_width and head_lines_width (nothing drawn
    twice): they are the widths the builders then give."""
    from viz.multi_head import head_heatmap, head_heatmap_width
    from viz.multi_head_lines import head_lines, head_lines_width

    tokens = ["▁A", "▁black", "▁dog", "<b>", "&amp;", ".", "</s>"]
    w = np.random.default_rng(1).dirichlet(np.ones(7), size=(4, 7))  # (H, T, T)
    title = "layer 1, head 1<br>7 queries x 7 keys"
    fig = head_heatmap(w[0], tokens, tokens, title=title, numbers=numbers)
    assert head_heatmap_width(tokens, tokens, title=title, numbers=numbers) == fig.layout.width
    lines = head_lines(w, tokens, tokens, heads=[0, 2], title=title, legend_below=not numbers)
    width = head_lines_width(tokens, tokens, title=title, legend_below=not numbers, n_heads=2)
    assert width == lines.layout.width
