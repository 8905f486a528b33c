"""link.js, the chart component's hover link: its pure helpers run in node, on the options
and figures the app sends (``viz.hover_link``, ``viz.multi_head_lines``, ``viz.alignment``): a lines
chart's geometry, the lines it draws read back as (query, key) pairs, the shapes that show a focus
(a heatmap's outline; a lines chart's veil and lines) and what the pointer is on (a heatmap's
cell; a lines chart's token or line, through a stand-in for plotly's div with linear axes). The
registry and the drawing (attach) run in Chromium: test_browser_multi_head_link.py and
test_browser_alignment_link.py."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.node_js import ASSETS, needs_node, run_exports
from viz.alignment import ACCENT, alignment_heatmap, alignment_lines, alignment_lines_link
from viz.hover_link import HIGHLIGHT_PX, HoverLink, heatmap_link
from viz.multi_head_lines import head_lines, lines_link

LINK_JS = ASSETS / "link.js"
SRC = ["a", "black", "dog", "runs", "</s>"]
TGT = ["un", "chien", "</s>"]
SHAPE = {"name": "atlas-link", "xref": "x", "yref": "y", "layer": "above"}

# The stand-in's plot area: linear axes, x over [-0.6, 1.6] in 440 px (200 px a unit) and y over
# [5, -1] in 600 px (reversed, as the lines charts draw their tokens top down: 100 px a unit), at
# (50, 30) px in an SVG whose box is at (10, 20) on the page.
X_RANGE, Y_RANGE, LENGTHS, OFFSETS, BOX = (-0.6, 1.6), (5.0, -1.0), (440, 600), (50, 30), (10, 20)

pytestmark = needs_node


def _js(calls: list[dict], tmp_path) -> list:
    return run_exports(LINK_JS, calls, tmp_path)


def _call(fn: str, *args) -> dict:
    return {"fn": fn, "args": list(args)}


def _weights(seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(len(SRC)), size=len(TGT))


def _axis(lo: float, hi: float, offset: int, length: int) -> str:
    scale = f"({hi} - {lo}) / {length}"
    return (f"{{_offset: {offset}, _length: {length}, p2l: (p) => {lo} + p * {scale},"
            f" l2p: (l) => (l - {lo}) / ({scale})}}")  # fmt: skip


def _gd(data: list[dict], layout: dict | None = None) -> str:
    """JavaScript: a stand-in for the plotly div drawing ``data`` (its layout: ``layout``)."""
    axes = (f"{{xaxis: {_axis(*X_RANGE, OFFSETS[0], LENGTHS[0])},"
            f" yaxis: {_axis(*Y_RANGE, OFFSETS[1], LENGTHS[1])}}}")  # fmt: skip
    full = f"Object.assign({json.dumps(layout or {})}, {axes})"
    box = f"{{getBoundingClientRect: () => ({{left: {BOX[0]}, top: {BOX[1]}}})}}"
    return (f"({{data: {json.dumps(data)}, _fullLayout: {full},"
            f" querySelector: (s) => (s === '.main-svg' ? {box} : null)}})")  # fmt: skip


def _member(link: HoverLink, data: list[dict], layout: dict | None = None) -> dict:
    """An arg: the member attach(ctx) makes of a chart (its options, div, geometry, segments)."""
    js = f"""((options, gd) => {{
      const geometry = mod.geometry(options);
      const lines = options.role === "lines";
      const segments = lines ? mod.segmentsOf(gd, options.linked || [], geometry) : [];
      return {{options, gd, geometry, segments}};
    }})({json.dumps(link.options())}, {_gd(data, layout)})"""
    return {"$js": js}


def _pixel(x: float, y: float) -> tuple[float, float]:
    """The point (x, y) in the plot area's pixels."""
    px = (x - X_RANGE[0]) / (X_RANGE[1] - X_RANGE[0]) * LENGTHS[0]
    return px, (y - Y_RANGE[0]) / (Y_RANGE[1] - Y_RANGE[0]) * LENGTHS[1]


def _pointer(px: float, py: float) -> dict:
    """A mousemove at the plot area's pixel (px, py)."""
    return {"clientX": BOX[0] + OFFSETS[0] + px, "clientY": BOX[1] + OFFSETS[1] + py}


def _lines_trace(pairs: list[tuple[float, float]], query_x: int = 0) -> dict:
    """A trace of lines from the query at height a to the key at height b, as the app draws them."""
    xs, ys = [], []
    for a, b in pairs:
        xs += [query_x, 1 - query_x, None]
        ys += [a, b, None]
    return {"type": "scatter", "mode": "lines", "x": xs, "y": ys}


def _lines_chart(pairs, n_queries=3, n_keys=4) -> tuple[HoverLink, list[dict]]:
    link = HoverLink("g", "lines", n_queries, n_keys, linked=(1,), colour="red", width=4)
    return link, [{"type": "scatter", "x": [None], "y": [None]}, _lines_trace(pairs)]


# ------------------------------------------------------------------ a lines chart's geometry


def test_the_geometry_is_where_the_tokens_are(tmp_path):
    w = np.random.default_rng(0).dirichlet(np.ones(4), size=(2, 3))
    head_view = lines_link(head_lines(w, list("abcd"), list("xyz"), heads=[0, 1]), 1, "g")
    alignment = alignment_lines_link(alignment_lines(_weights(), SRC, TGT), "g")
    odd = HoverLink("g", "lines", 2, 3, query_x=2, query_y=(5.0,), key_y=(1.0, 0.5, 0.0))
    out = _js([_call("geometry", link.options()) for link in (head_view, alignment, odd)], tmp_path)
    assert out[0] == {"qx": 0, "kx": 1, "qy": [0, 1, 2], "ky": [0, 1, 2, 3],
                      "qIndex": [[0, 0], [1, 1], [2, 2]], "kIndex": [[k, k] for k in range(4)]}  # fmt: skip
    assert out[1] == {"qx": 1, "kx": 0, "qy": [0, 2, 4], "ky": [0, 1, 2, 3, 4],
                      "qIndex": [[0, 0], [2, 1], [4, 2]], "kIndex": [[k, k] for k in range(5)]}  # fmt: skip
    # query_x is 0 unless 1; heights of the wrong length are the default ones
    assert out[2] == {"qx": 0, "kx": 1, "qy": [0, 1], "ky": [1.0, 0.5, 0.0],
                      "qIndex": [[0, 0], [1, 1]], "kIndex": [[1.0, 0], [0.5, 1], [0.0, 2]]}  # fmt: skip


@pytest.mark.parametrize(
    ("ys", "y", "expected"),
    [
        ([], 1.0, None),
        ([0, 2, 4], 2.9, 1),
        ([0, 2, 4], 3.1, 2),
        ([0, 2, 4], 3.0, 1),  # halfway: the first
        ([0, 2, 4], -7.0, 0),
        ([0, 2, 4], 70.0, 2),
        ([4, 2, 0], 0.2, 2),
    ],
)
def test_nearest_is_the_index_of_the_nearest_height(ys, y, expected, tmp_path):
    assert _js([_call("nearest", ys, y)], tmp_path) == [expected]


def _pairs_drawn(fig, link: HoverLink, tmp_path) -> set[tuple[int, int]]:
    data = json.loads(json.dumps(fig.to_dict()["data"]))
    geometry = {"$js": f"mod.geometry({json.dumps(link.options())})"}
    (out,) = _js([_call("segmentsOf", {"$js": _gd(data)}, list(link.linked), geometry)], tmp_path)
    assert len(out) == len({tuple(p) for p in out})  # each line once
    return {tuple(p) for p in out}


@pytest.mark.parametrize("threshold", [0.0, 0.2, 0.45])
def test_the_segments_are_an_alignments_lines(threshold, tmp_path):
    z = _weights()
    fig = alignment_lines(z, SRC, TGT, threshold=threshold)
    drawn = _pairs_drawn(fig, alignment_lines_link(fig, "g"), tmp_path)
    assert drawn == {(i, j) for i, j in zip(*np.nonzero(z >= max(threshold, 1e-9)), strict=True)}
    assert threshold or len(drawn) == z.size


@pytest.mark.parametrize("head", [0, 1])
def test_the_segments_are_the_linked_heads_lines(head, tmp_path):
    w = np.random.default_rng(1).dirichlet(np.ones(4), size=(2, 3))
    fig = head_lines(w, list("abcd"), list("xyz"), heads=[0, 1], threshold=0.2)
    drawn = _pairs_drawn(fig, lines_link(fig, head, "g"), tmp_path)
    assert drawn == {(i, j) for i, j in zip(*np.nonzero(w[head] >= 0.2), strict=True)}
    assert drawn != _pairs_drawn(fig, lines_link(fig, 1 - head, "g"), tmp_path)


def test_a_lines_end_off_the_token_heights_is_the_nearest_token(tmp_path):
    link = HoverLink("g", "lines", 3, 4, linked=(0, 1, 7), query_x=1, query_y=(0.0, 1.5, 3.0))
    data = [_lines_trace([(1.4, 0.2), (3.0, 2.6)], query_x=1),
            {"x": [1, 0, None, 1, 0], "y": [None, 1, None, 0.0, 3.0]}]  # fmt: skip
    geometry = {"$js": f"mod.geometry({json.dumps(link.options())})"}
    out = _js([_call("segmentsOf", {"$js": _gd(data)}, [0, 1, 7], geometry)], tmp_path)
    assert out == [[[1, 0], [2, 3], [0, 3]]]  # a gap skipped, a trace not there left out


# ------------------------------------------------------------------ showing the focus


def test_focus_keys_tell_the_foci_apart(tmp_path):
    foci = [None, {"kind": "cell", "i": 1, "j": 2}, {"kind": "cell", "i": 2, "j": 1},
            {"kind": "query", "i": 1}, {"kind": "key", "j": 1}, {"kind": "cell", "i": 0, "j": 0}]  # fmt: skip
    keys = _js([_call("focusKey", focus) for focus in foci], tmp_path)
    assert keys[0] == "" and len(set(keys)) == len(foci)
    assert keys[1:] == ["cell:1:2", "cell:2:1", "query:1:", "key::1", "cell:0:0"]


def test_a_heatmap_outlines_the_cell_row_or_column(tmp_path):
    options = heatmap_link(alignment_heatmap(_weights(), SRC, TGT), "g").options()
    assert (options["n_queries"], options["n_keys"]) == (3, 5)
    foci = [{"kind": "cell", "i": 1, "j": 2}, {"kind": "query", "i": 2}, {"kind": "key", "j": 4}]
    out = _js([_call("outline", options, focus) for focus in foci], tmp_path)
    rect = SHAPE | {"type": "rect", "line": {"color": "#D55E00", "width": 3}}
    assert out == [
        [rect | {"x0": 1.5, "x1": 2.5, "y0": 0.5, "y1": 1.5}],  # the cell: row 1, column 2
        [rect | {"x0": -0.5, "x1": 4.5, "y0": 1.5, "y1": 2.5}],  # the row: every key
        [rect | {"x0": 3.5, "x1": 4.5, "y0": -0.5, "y1": 2.5}],  # the column: every query
    ]


def test_a_wrapped_heatmap_outlines_the_focus_in_every_block(tmp_path):
    """A map wrapped in blocks of columns (viz.wrap): each block's heatmap trace is on its own
    axes; the outline is drawn on each (plotly clips it to the block), and hovering any block's
    trace focuses the cell."""
    link = heatmap_link(alignment_heatmap(_weights(), SRC, TGT), "g")
    blocks = (("x", "y", 0, 2), ("x2", "y2", 3, 4))
    options = link.in_blocks(blocks, traces=1).options()
    assert options["blocks"] == [[0, "x", "y", 0], [1, "x2", "y2", 3]]
    out = _js([_call("outline", options, {"kind": "cell", "i": 1, "j": 3})], tmp_path)
    rect = {"type": "rect", "line": {"color": "#D55E00", "width": 3}, "name": "atlas-link"}
    cell = {"x0": 2.5, "x1": 3.5, "y0": 0.5, "y1": 1.5, "layer": "above"}
    assert out == [
        [rect | cell | {"xref": "x", "yref": "y"}, rect | cell | {"xref": "x2", "yref": "y2"}]
    ]
    member = {"options": options}
    points = ((0, [2, 4]), (1, [2, 1]), (2, [2, 4]))
    events = [{"points": [{"curveNumber": n, "pointNumber": at}]} for n, at in points]
    found = _js([_call("cellOf", member, event) for event in events], tmp_path)
    # block 1's trace holds columns 3 and 4 only: its point (2, 1) is the cell (2, 4)
    assert found == [{"kind": "cell", "i": 2, "j": 4}, {"kind": "cell", "i": 2, "j": 4}, None]


@pytest.mark.parametrize(
    ("layout", "colour"),
    [
        ({"plot_bgcolor": "#fafafa", "paper_bgcolor": "black"}, "#fafafa"),
        ({"plot_bgcolor": "rgba(0, 0, 0, 0)", "paper_bgcolor": "#0e1117"}, "#0e1117"),
        ({"plot_bgcolor": "rgba(255,255,255,0.00)", "paper_bgcolor": "navy"}, "navy"),
        ({"plot_bgcolor": "transparent", "paper_bgcolor": "rgba(0,0,0,0)"}, "white"),
        ({"plot_bgcolor": "rgba(0, 0, 0, 0.5)"}, "rgba(0, 0, 0, 0.5)"),  # not clear
        ({}, "white"),
        (None, "white"),  # not drawn yet: no full layout
    ],
)
def test_the_veil_is_the_colour_behind_the_lines(layout, colour, tmp_path):
    gd = {} if layout is None else {"$js": _gd([], layout)}
    assert _js([_call("background", gd)], tmp_path) == [colour]


def test_a_lines_chart_veils_its_lines_and_draws_the_focused_ones(tmp_path):
    z = _weights()
    fig = alignment_lines(z, SRC, TGT, threshold=0.25)
    link = alignment_lines_link(fig, "g")
    data = json.loads(json.dumps(fig.to_dict()["data"]))
    member = _member(link, data, {"plot_bgcolor": "#fafafa"})
    weakest = np.unravel_index(np.argmin(z), z.shape)
    assert z[weakest] < 0.25  # its line is not drawn
    foci = [{"kind": "cell", "i": int(weakest[0]), "j": int(weakest[1])},
            {"kind": "query", "i": 1}, {"kind": "key", "j": 2}]  # fmt: skip
    out = _js([_call("highlighted", member, focus) for focus in foci], tmp_path)
    veil = SHAPE | {"type": "rect", "x0": 0, "x1": 1, "y0": -0.5, "y1": 4.5,
                    "fillcolor": "#fafafa", "opacity": 0.8, "line": {"width": 0}}  # fmt: skip
    qy, ky = link.query_y, link.key_y

    def line(i, j):  # the queries on the right (x = 1), the keys on the left
        return SHAPE | {"type": "line", "x0": 1, "x1": 0, "y0": qy[i], "y1": ky[j],
                        "line": {"color": ACCENT, "width": HIGHLIGHT_PX}}  # fmt: skip

    assert all(shapes[0] == veil for shapes in out)
    assert out[0][1:] == [line(int(weakest[0]), int(weakest[1]))]  # drawn even where not drawn
    query = [tuple(s) for s in zip(*np.nonzero(z >= 0.25), strict=True) if s[0] == 1]
    key = [tuple(s) for s in zip(*np.nonzero(z >= 0.25), strict=True) if s[1] == 2]
    assert query and key  # a query's drawn lines, a key's: in any order
    assert sorted(out[1][1:], key=json.dumps) == sorted([line(*p) for p in query], key=json.dumps)
    assert sorted(out[2][1:], key=json.dumps) == sorted([line(*p) for p in key], key=json.dumps)


def test_the_veil_spans_both_token_columns(tmp_path):
    """A head view (queries on the left) with more keys than queries, a chart whose queries
    reach past its keys at both ends, one whose keys start lower: the veil covers every token of
    both columns."""
    head_view, data = _lines_chart([(0, 0), (2, 3)], n_queries=3, n_keys=5)
    wide = HoverLink("g", "lines", 2, 3, query_y=(-0.75, 4.25))
    low = HoverLink("g", "lines", 2, 3, query_y=(1.0, 2.0), key_y=(-2.0, 0.0, 1.0))
    cell = {"kind": "cell", "i": 1, "j": 2}
    calls = [_call("highlighted", _member(link, data), cell) for link in (head_view, wide, low)]
    (veil, line), (wide_veil, wide_line), (low_veil, __) = _js(calls, tmp_path)
    assert (low_veil["y0"], low_veil["y1"]) == (-2.5, 2.5)  # from a key to a query
    assert (veil["y0"], veil["y1"]) == (-0.5, 4.5)  # the keys' span
    assert (wide_veil["y0"], wide_veil["y1"]) == (-1.25, 4.75)  # the queries'
    assert (line["x0"], line["y0"], line["x1"], line["y1"]) == (0, 1, 1, 2)  # query 1 -> key 2
    assert (wide_line["x0"], wide_line["y0"], wide_line["x1"], wide_line["y1"]) == (0, 4.25, 1, 2)
    assert line["line"] == {"color": "red", "width": 4}


def test_pairs_are_the_focused_cell_or_the_drawn_lines_of_a_token(tmp_path):
    link, data = _lines_chart([(0, 0), (0, 2), (2, 1), (1, 2)])
    member = _member(link, data)
    foci = [{"kind": "cell", "i": 2, "j": 3}, {"kind": "query", "i": 0}, {"kind": "key", "j": 2},
            {"kind": "query", "i": 5}]  # fmt: skip
    out = _js([_call("pairs", member, focus) for focus in foci], tmp_path)
    assert out == [[[2, 3]], [[0, 0], [0, 2]], [[0, 2], [1, 2]], []]


# ------------------------------------------------------------------ what the pointer is on


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        ({"points": [{"curveNumber": 1, "pointNumber": [2, 4]}]}, {"kind": "cell", "i": 2, "j": 4}),
        ({"points": [{"curveNumber": 0, "pointNumber": [2, 4]}]}, None),  # another trace
        ({"points": [{"curveNumber": 1, "pointNumber": 7}]}, None),  # not a heatmap's point
        ({"points": []}, None),
        (None, None),
    ],
)
def test_a_heatmaps_hovered_point_is_its_cell(event, expected, tmp_path):
    member = {"options": HoverLink("g", "heatmap", 3, 5, trace=1).options()}
    assert _js([_call("cellOf", member, event)], tmp_path) == [expected]


@pytest.mark.parametrize(
    ("point", "segment", "expected"),
    [
        ((1, 1), (0, 0, 2, 2), 0.0),  # on it
        ((0, 2), (0, 0, 2, 2), math.sqrt(2)),  # beside it
        ((5, 0), (0, 0, 2, 0), 3.0),  # past its end: to the end
        ((-3, -4), (0, 0, 2, 0), 5.0),  # before its start
        ((3, 4), (0, 0, 0, 0), 5.0),  # a point
    ],
)
def test_distance_is_to_the_nearest_point_of_the_segment(point, segment, expected, tmp_path):
    (out,) = _js([_call("distance", *point, *segment)], tmp_path)
    assert out == pytest.approx(expected)


def test_the_pointer_on_a_token_focuses_it(tmp_path):
    link, data = _lines_chart([(0, 0)])
    alignment = HoverLink("g", "lines", 3, 5, linked=(0,), query_x=1, query_y=(0.0, 2.0, 4.0))
    points = [(-0.3, 1.2), (-0.3, 2.45), (-0.3, 2.6), (1.3, 2.9), (1.3, -0.6), (0.5, 1.5)]
    calls = [_call("pointedLines", _member(link, data), _pointer(*_pixel(*p))) for p in points]
    points = [(-0.3, 3.6), (1.3, 3.2), (1.3, 0.9), (-0.3, 4.6)]
    calls += [_call("pointedLines", _member(alignment, []), _pointer(*_pixel(*p))) for p in points]
    out = _js(calls, tmp_path)
    assert out[:6] == [
        {"kind": "query", "i": 1},  # the queries on the left
        {"kind": "query", "i": 2},  # within half a step
        None,  # past the last query by more than half a step
        {"kind": "key", "j": 3},  # the keys on the right
        None,
        None,  # between the columns, on no line
    ]
    assert out[6:] == [
        {"kind": "key", "j": 4},  # the alignment: keys (sources) on the left
        {"kind": "query", "i": 2},  # queries (targets) on the right, two units apart
        {"kind": "query", "i": 0},  # within half of that step
        None,  # the keys are one unit apart
    ]


def test_the_pointer_on_a_line_focuses_its_cell(tmp_path):
    link, data = _lines_chart([(0, 0), (0, 2), (2, 1)])
    member = _member(link, data)

    def along(i, j, t, off=0.0):
        """The pixel a fraction t along the line i -> j, ``off`` px across it."""
        (x0, y0), (x1, y1) = _pixel(0, i), _pixel(1, j)
        length = math.hypot(x1 - x0, y1 - y0)
        nx, ny = -(y1 - y0) / length, (x1 - x0) / length
        return _pointer(x0 + t * (x1 - x0) + off * nx, y0 + t * (y1 - y0) + off * ny)

    events = [along(0, 0, 0.5), along(0, 2, 0.3), along(2, 1, 0.2, 5.5), along(2, 1, 0.2, -5.5),
              along(0, 2, 0.8, 6.5), along(1, 1, 0.15), along(1, 3, 0.6)]  # fmt: skip
    out = _js([_call("pointedLines", member, event) for event in events], tmp_path)
    assert out == [
        {"kind": "cell", "i": 0, "j": 0},
        {"kind": "cell", "i": 0, "j": 2},
        {"kind": "cell", "i": 2, "j": 1},  # within 6 px of it, either side
        {"kind": "cell", "i": 2, "j": 1},
        None,  # 6.5 px from the line
        None,  # where no line is drawn
        None,
    ]
    # near where the lines 0 -> 0 (level) and 0 -> 2 (up at 45 degrees here) start: the nearer
    x0, y0 = _pixel(0, 0)
    near_both = [_pointer(x0 + 10, y0 - 2), _pointer(x0 + 10, y0 - 6)]
    out = _js([_call("pointedLines", member, event) for event in near_both], tmp_path)
    assert out == [{"kind": "cell", "i": 0, "j": 0}, {"kind": "cell", "i": 0, "j": 2}]


def test_the_pointer_outside_the_plot_or_before_a_draw_is_on_nothing(tmp_path):
    """Tokens near the plot area's edges (queries at -0.9 and 4.9, keys at 0 to 3): just outside
    the area, the pointer would be on one of them."""
    link = HoverLink("g", "lines", 2, 4, query_y=(-0.9, 4.9))
    (left, bottom), (right, top) = _pixel(-0.3, -0.9), _pixel(1.3, 4.9)
    inside = [_pointer(left, bottom), _pointer(left, top), _pointer(right, _pixel(1.3, 2)[1])]
    events = [_pointer(-1, bottom), _pointer(left, -1), _pointer(left, LENGTHS[1] + 1),
              _pointer(LENGTHS[0] + 1, _pixel(1.3, 2)[1])]  # fmt: skip
    calls = [_call("pointedLines", _member(link, []), event) for event in inside + events]
    undrawn = {"$js": "({gd: {_fullLayout: undefined, querySelector: () => null}})"}
    calls.append(_call("pointedLines", undrawn, _pointer(10, 10)))
    out = _js(calls, tmp_path)
    assert out[:3] == [
        {"kind": "query", "i": 0},
        {"kind": "query", "i": 1},
        {"kind": "key", "j": 2},
    ]
    assert out[3:] == [None] * 5
