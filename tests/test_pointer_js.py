"""pointer.js, the chart component's pointer and hit-testing (shared by link.js and drag.js), run in
node on stand-ins for plotly's div: its axes (``_offset``, ``_length``, ``p2l``, ``l2p``, linear)
and its ``.main-svg``'s box. The pointer's pixel in the plot area, inside or outside it, data <->
pixels, the nearest height and segment distance, and the nearest handle within a radius that
depends on the pointer's type. The behaviours that use them run in Chromium
(test_browser_anatomy_drag.py, test_browser_multi_head_link.py, test_browser_alignment_link.py)."""

from __future__ import annotations

import math

import pytest

from tests.node_js import ASSETS, needs_node, run_exports

POINTER_JS = ASSETS / "pointer.js"

# The stand-in's plot area: x over [0, 10] in 500 px (50 px a unit), y over [10, 0] in 400 px
# (reversed, as plotly draws y upwards: 40 px a unit), at (60, 20) px in an SVG whose box is at
# (5, 7) on the page.
X_RANGE, Y_RANGE, LENGTHS, OFFSETS, BOX = (0.0, 10.0), (10.0, 0.0), (500, 400), (60, 20), (5, 7)

pytestmark = needs_node


def _js(calls: list[dict], tmp_path) -> list:
    return run_exports(POINTER_JS, calls, tmp_path)


def _call(fn: str, *args) -> dict:
    return {"fn": fn, "args": list(args)}


def _axis(lo: float, hi: float, offset: int, length: int) -> str:
    scale = f"({hi} - {lo}) / {length}"
    return (f"{{_offset: {offset}, _length: {length}, p2l: (p) => {lo} + p * {scale},"
            f" l2p: (l) => (l - {lo}) / ({scale})}}")  # fmt: skip


def _gd(drawn: bool = True, svg: bool = True) -> dict:
    """An arg: a stand-in for plotly's div (no full layout unless drawn; no .main-svg without svg)."""
    layout = (f"{{xaxis: {_axis(*X_RANGE, OFFSETS[0], LENGTHS[0])},"
              f" yaxis: {_axis(*Y_RANGE, OFFSETS[1], LENGTHS[1])}}}")  # fmt: skip
    box = f"{{getBoundingClientRect: () => ({{left: {BOX[0]}, top: {BOX[1]}}})}}"
    found = box if svg else "null"
    js = (f"({{_fullLayout: {layout if drawn else 'undefined'},"
          f" querySelector: (s) => (s === '.main-svg' ? {found} : null)}})")  # fmt: skip
    return {"$js": js}


AXES = {"$js": f"mod.axesOf({_gd()['$js']})"}


def _pixel(x: float, y: float) -> dict:
    """The data point (x, y) in the plot area's pixels."""
    px = (x - X_RANGE[0]) / (X_RANGE[1] - X_RANGE[0]) * LENGTHS[0]
    return {"px": px, "py": (y - Y_RANGE[0]) / (Y_RANGE[1] - Y_RANGE[0]) * LENGTHS[1]}


def _event(px: float, py: float, pointer_type: str = "mouse") -> dict:
    """A pointer event at the plot area's pixel (px, py)."""
    return {"clientX": BOX[0] + OFFSETS[0] + px, "clientY": BOX[1] + OFFSETS[1] + py,
            "pointerType": pointer_type}  # fmt: skip


# ------------------------------------------------------------------ where the pointer is


def test_the_axes_are_the_full_layouts_once_drawn(tmp_path):
    half = {"$js": "({_fullLayout: {xaxis: {_offset: 1}}})"}  # no y axis
    out = _js([_call("axesOf", g) for g in (_gd(), _gd(drawn=False), half, {}, None)], tmp_path)
    assert out[0] == {"x": {"_offset": 60, "_length": 500}, "y": {"_offset": 20, "_length": 400}}
    assert out[1:] == [None] * 4


def test_the_pixel_is_the_pointer_less_the_box_and_the_plots_offset(tmp_path):
    events = [_event(0, 0), _event(125.5, 399), _event(-30, 410)]
    calls = [_call("pixelOf", _gd(), AXES, event) for event in events]
    calls += [_call("pointed", _gd(), event) for event in events]
    out = _js(calls, tmp_path)
    pixels = [{"px": 0, "py": 0}, {"px": 125.5, "py": 399}, {"px": -30, "py": 410}]
    assert out[:3] == pixels  # outside the plot too (inPlot tells)
    assert [o["p"] for o in out[3:]] == pixels
    assert out[3]["axes"]["x"]["_offset"] == 60


def test_before_a_draw_the_pointer_is_nowhere(tmp_path):
    calls = [_call("pointed", _gd(drawn=False), _event(10, 10)),
             _call("pointed", _gd(svg=False), _event(10, 10)),
             _call("pixelOf", _gd(), None, _event(10, 10))]  # fmt: skip
    assert _js(calls, tmp_path) == [None, None, None]


@pytest.mark.parametrize(
    ("p", "inside"),
    [
        ((0, 0), True),  # the corners and edges are the plot's
        ((500, 400), True),
        ((250, 0), True),
        ((0, 200), True),
        ((-0.5, 200), False),
        ((500.5, 200), False),
        ((250, -1), False),
        ((250, 401), False),
    ],
)
def test_inside_the_plot_is_within_its_lengths(p, inside, tmp_path):
    assert _js([_call("inPlot", AXES, {"px": p[0], "py": p[1]})], tmp_path) == [inside]


def test_pixels_and_data_go_both_ways(tmp_path):
    points = [(0, 0), (10, 10), (2.5, 7.5), (-1, 12)]  # outside the ranges too
    calls = [_call("toPixel", AXES, x, y) for x, y in points]
    calls += [_call("toData", AXES, _pixel(x, y)) for x, y in points]
    out = _js(calls, tmp_path)
    assert out[:4] == [_pixel(x, y) for x, y in points]
    assert out[1] == {"px": 500, "py": 0} and out[0] == {"px": 0, "py": 400}  # y upwards
    for (x, y), data in zip(points, out[4:], strict=True):
        assert data == {"x": pytest.approx(x), "y": pytest.approx(y)}


# ------------------------------------------------------------------ what the pointer is near


@pytest.mark.parametrize(
    ("ys", "y", "expected"),
    [
        ([], 1.0, None),
        ([0, 2, 4], 2.9, 1),
        ([0, 2, 4], 3.0, 1),  # halfway: the first
        ([4, 2, 0], 3.0, 0),
        ([1, 1, 5], 1.0, 0),  # the same height twice: the first
        ([0, 2, 4], 70.0, 2),
    ],
)
def test_nearest_is_the_first_nearest_height(ys, y, expected, tmp_path):
    assert _js([_call("nearest", ys, y)], tmp_path) == [expected]


@pytest.mark.parametrize(
    ("point", "segment", "expected"),
    [
        ((1, 1), (0, 0, 2, 2), 0.0),
        ((0, 2), (0, 0, 2, 2), math.sqrt(2)),
        ((5, 0), (0, 0, 2, 0), 3.0),  # past its end: to the end
        ((3, 4), (0, 0, 0, 0), 5.0),  # a point
    ],
)
def test_distance_is_to_the_segments_nearest_point(point, segment, expected, tmp_path):
    (out,) = _js([_call("distance", *point, *segment)], tmp_path)
    assert out == pytest.approx(expected)


def test_a_finger_reaches_further_than_a_mouse_or_a_pen(tmp_path):
    kinds = ["mouse", "pen", "touch", "", "stylus"]  # an unknown type: a mouse's
    assert _js([_call("hitRadius", kind) for kind in kinds], tmp_path) == [14, 14, 24, 14, 14]


def _near(points, p, pointer_type="mouse") -> dict:
    radius = {"$js": f"mod.hitRadius({pointer_type!r})"}
    return _call("nearestWithin", AXES, points, p, radius)


def test_the_nearest_handle_within_the_radius_is_taken(tmp_path):
    handles = [[2.0, 5.0], [4.0, 5.0], [4.0, 6.0]]  # 100 px apart in x, 40 px in y
    at = _pixel(2.0, 5.0)
    calls = [
        _near(handles, at),
        _near(handles, {"px": at["px"] + 13.9, "py": at["py"]}),
        _near(handles, {"px": at["px"] + 14, "py": at["py"]}),  # on the radius: taken
        _near(handles, {"px": at["px"] + 14.5, "py": at["py"]}),  # a mouse misses it
        _near(handles, {"px": at["px"] + 14.5, "py": at["py"]}, "touch"),  # a finger does not
        _near(handles, {"px": at["px"], "py": at["py"] + 24}, "touch"),
        _near(handles, {"px": at["px"], "py": at["py"] + 24.5}, "touch"),
        _near(handles, _pixel(4.0, 5.8)),  # nearer the third handle than the second
        _near(handles, _pixel(3.0, 5.0), "touch"),  # 50 px from both: none
        _near([], at),
    ]
    assert _js(calls, tmp_path) == [0, 0, 0, None, 0, 0, None, 2, None, None]


def test_of_equally_near_handles_the_first_is_taken(tmp_path):
    """The query is first in drag.js's list: where a key lies on it, the query is taken."""
    at = _pixel(5.0, 5.0)
    between = {"px": at["px"] + 10, "py": at["py"]}  # 10 px from each of two handles 20 px apart
    calls = [
        _near([[5.0, 5.0], [5.0, 5.0]], at),
        _near([[9.0, 9.0], [5.0, 5.0], [5.0, 5.0]], at),
        _near([[5.0, 5.0], [5.4, 5.0]], between),
        _near([[5.4, 5.0], [5.0, 5.0]], between),
    ]
    assert _js(calls, tmp_path) == [0, 1, 0, 0]
