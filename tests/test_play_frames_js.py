"""play_frames.js, the play behaviour's pure functions, run in node on frames made by
plotly.py as the component gets them (``Figure.to_dict()``: numpy arrays as {dtype, bdata,
shape}, through JSON): ``decoded`` reads the arrays as numbers, ``traceIndices`` the traces a
frame updates, ``transition`` what changes from one frame to the next and ``inBetween`` the
state part of the way there (play.js draws it; at the steps it shows the server's frames)."""

from __future__ import annotations

import base64
import json

import numpy as np
import plotly.graph_objects as go
import pytest

from tests.node_js import ASSETS, needs_node, run_exports
from viz.play import play_options

PLAY_FRAMES_JS = ASSETS / "play_frames.js"
DTYPES = {"f8", "f4", "i4", "u4", "i2", "u2", "i1", "u1", "u1c"}  # what decoded() reads
OPTIONS = play_options(seconds_per_frame=0.8)

pytestmark = needs_node


def _sent(fig: go.Figure) -> dict:
    """``fig`` as the chart component receives it (``ui.plotly_component.payload``)."""
    return json.loads(json.dumps(fig.to_dict()))


def _frames(*frames: go.Frame) -> list[dict]:
    return _sent(go.Figure(frames=list(frames)))["frames"]


def _decoded(value) -> str:
    """JavaScript: ``value`` (plain JSON) decoded as play.js decodes its frames."""
    return f"mod.decoded({json.dumps(value)})"


def _plan(a: dict, b: dict, live: list[dict], options: dict = OPTIONS) -> str:
    """JavaScript: the transition from the sent frame ``a`` to ``b`` over the traces ``live``."""
    args = f"{_decoded(a)}, {_decoded(b)}, {json.dumps(live)}, {json.dumps(options)}"
    return f"mod.transition({args})"


def _transition(a, b, live, tmp_path, options: dict = OPTIONS) -> dict:
    """The plan from the sent frame ``a`` to ``b``, read in node from the decoded frames."""
    call = _call("transition", {"$js": _decoded(a)}, {"$js": _decoded(b)}, live, options)
    (plan,) = run_exports(PLAY_FRAMES_JS, [call], tmp_path)
    return plan


def _call(fn: str, *args) -> dict:
    return {"fn": fn, "args": list(args)}


def _lerps(entry: dict) -> dict:
    return {path: (va, vb) for path, va, vb in entry["lerp"]}


# ------------------------------------------------------------------ decoded

ARRAYS = [
    np.array([0.1, -2.5, 1e300, 5e-324]),  # f8
    np.arange(6.0).reshape(2, 3) / 7,  # f8, 2-D
    np.array([1.5, -0.25, 3.4028235e38], dtype=np.float32),  # f4: exactly its float32 values
    np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], dtype=np.float32),
    np.array([-70_000, 70_000]),  # int64, sent as i4
    np.array([2**31 + 5, 7], dtype=np.uint32),
    np.array([-300, 300], dtype=np.int16),
    np.arange(-6, 6, dtype=np.int16).reshape(3, 4),
    np.array([60_000, 1], dtype=np.uint16),
    np.array([-3, 100, -128], dtype=np.int8),
    np.array([[200, 3, 255]], dtype=np.uint8),  # one row
]


def _encoded(array: np.ndarray) -> dict:
    fig = go.Figure(go.Heatmap(z=array) if array.ndim == 2 else go.Scatter(y=array))
    trace = _sent(fig)["data"][0]
    return trace["z"] if array.ndim == 2 else trace["y"]


def test_decoded_reads_plotly_pys_arrays_as_their_numbers(tmp_path):
    sent = [_encoded(a) for a in ARRAYS]
    assert all(isinstance(s["bdata"], str) for s in sent)  # plotly.py's base64, not lists
    assert {s["dtype"] for s in sent} == DTYPES - {"u1c"}  # every dtype plotly.py writes
    assert sent[1]["shape"] == "2, 3"  # a 2-D array's shape, as plotly.py writes it
    u1c = {"dtype": "u1c", "bdata": base64.b64encode(bytes([0, 255, 7])).decode()}
    out = run_exports(PLAY_FRAMES_JS, [_call("decoded", s) for s in [*sent, u1c]], tmp_path)
    assert out == [a.tolist() for a in ARRAYS] + [[0, 255, 7]]
    assert out[1][1] == [3 / 7, 4 / 7, 5 / 7]  # rows of the 2-D shape


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        (None, [0, 1, 2, 3, 4, 5]),
        ("6", [0, 1, 2, 3, 4, 5]),
        ("2, 3", [[0, 1, 2], [3, 4, 5]]),
        ("3,2", [[0, 1], [2, 3], [4, 5]]),
        ([2, 3], [[0, 1, 2], [3, 4, 5]]),
        ("1, 2, 3", [0, 1, 2, 3, 4, 5]),  # more than 2 dimensions: flat
    ],
)
def test_decoded_reads_the_shape(shape, expected, tmp_path):
    array = {"dtype": "i2", "bdata": base64.b64encode(np.arange(6, dtype="<i2").tobytes()).decode()}
    if shape is not None:
        array["shape"] = shape
    assert run_exports(PLAY_FRAMES_JS, [_call("decoded", array)], tmp_path) == [expected]


def test_decoded_leaves_everything_else_as_it_is(tmp_path):
    y = np.array([0.5, -1.5, 2.25])
    size = np.array([3, 4, 5], dtype=np.int8)
    fig = go.Figure(
        go.Scatter(y=y, text=["a", "b", "c"], marker={"size": size, "color": "red"}, opacity=0.5),
        layout={"shapes": [{"type": "rect", "x0": 1, "x1": 2, "y0": 0, "y1": 1}]},
        frames=[go.Frame(name="3", data=[go.Heatmap(z=np.eye(2))], traces=[1])],
    )
    spec = _sent(fig)
    spec["layout"].pop("template")
    expected = json.loads(json.dumps(spec))
    expected["data"][0] |= {"y": y.tolist()}
    expected["data"][0]["marker"]["size"] = size.tolist()
    expected["frames"][0]["data"][0]["z"] = np.eye(2).tolist()
    unknown = {"dtype": "i8", "bdata": "AQAAAAAAAAA="}  # no such dtype in plotly.js: left alone
    no_bytes = {"dtype": "f8", "bdata": 5}
    plain = [None, 0, -2.5, "text", True, [], {}, [[1, "a"], {"b": [None]}]]
    calls = [_call("decoded", v) for v in [spec, unknown, no_bytes, *plain]]
    calls.append(
        _call("decoded", {"$js": "({z: new Int8Array([1, -1]), y: new Float32Array([0.5])})"})
    )
    out = run_exports(PLAY_FRAMES_JS, calls, tmp_path)
    assert out[0] == expected
    assert out[1:-1] == [unknown, no_bytes, *plain]
    assert out[-1] == {"z": [1, -1], "y": [0.5]}  # typed arrays read as lists


def test_trace_indices_are_the_frames_traces_or_all_of_its_data(tmp_path):
    frames = _frames(
        go.Frame(name="0", data=[go.Scatter(), go.Scatter(), go.Heatmap()]),
        go.Frame(name="1", data=[go.Scatter(), go.Scatter()], traces=[3, 1]),
    )
    calls = [_call("traceIndices", frame) for frame in frames]
    assert run_exports(PLAY_FRAMES_JS, calls, tmp_path) == [[0, 1, 2], [3, 1]]


# ------------------------------------------------------------------ transition

Z_A = np.array([[0.1, 0.9, 0.0], [0.5, 0.5, 0.0]])
Z_B = np.array([[0.3, 0.6, 0.1], [0.0, 0.2, 0.8]])
X = np.array([0.0, 1.0, 2.0])
Y_A, Y_B = np.array([0.0, 1.0, 4.0]), np.array([1.0, -2.0, 3.0])


def _moving_frames() -> list[dict]:
    """Trace 0 moves (y, marker sizes and opacity; x and the line's width are the same), 1 stays,
    2 is a heatmap whose z moves, 3 only changes its text; shape 0 moves sideways, 1 stays."""

    def frame(name, y, size, z, text, x0):
        marker = {"size": size, "color": "red", "opacity": 1 - x0}
        return go.Frame(
            name=name,
            data=[
                go.Scatter(x=X, y=y, marker=marker, line={"width": 2}),
                go.Scatter(x=[0, 1], y=[1, 1]),
                go.Heatmap(z=z),
                go.Scatter(x=[0], y=[0], text=[text]),
            ],
            layout={"shapes": [{"type": "rect", "x0": x0, "x1": x0 + 1, "y0": 0, "y1": 1},
                               {"type": "line", "x0": 5, "x1": 6, "y0": 0, "y1": 1}]},
        )  # fmt: skip

    return _frames(
        frame("0", Y_A, np.array([5.0, 5.0, 5.0]), Z_A, "before", 0.0),
        frame("1", Y_B, np.array([6.0, 5.0, 4.0]), Z_B, "after", 0.5),
    )


LIVE = [{"type": "scatter"}, {"type": "scatter"}, {"type": "heatmap"}, {"type": "scatter"}]


def test_a_transition_interpolates_the_numbers_that_change(tmp_path):
    a, b = _moving_frames()
    plan = _transition(a, b, LIVE, tmp_path)
    assert [t["index"] for t in plan["traces"]] == [0, 2]  # 1 and 3 (a text) are unchanged
    assert _lerps(plan["traces"][0]) == {
        "y": (Y_A.tolist(), Y_B.tolist()),
        "marker.size": ([5.0, 5.0, 5.0], [6.0, 5.0, 4.0]),
        "marker.opacity": (1.0, 0.5),
    }
    assert _lerps(plan["traces"][1]) == {"z": (Z_A.tolist(), Z_B.tolist())}
    assert not any(t.get("fade") or t.get("bell") for t in plan["traces"])
    assert plan["shapes"] == [[0, "x0", 0.0, 0.5], [0, "x1", 1.0, 1.5]]
    assert plan["opacity"] == {} and plan["image"] is None and plan["centre"] is None


def test_hidden_traces_and_traces_the_next_frame_lacks_are_left_alone(tmp_path):
    a, b = _moving_frames()
    hidden = [{"opacity": 0}, LIVE[1], {"visible": False}, LIVE[3]]  # a hover layer, a hidden one
    assert _transition(a, b, hidden, tmp_path)["traces"] == []
    b_part = dict(b, data=b["data"][1:], traces=[1, 2, 3])  # trace 0 not in the next frame
    assert [t["index"] for t in _transition(a, b_part, LIVE, tmp_path)["traces"]] == [2]


def test_a_frames_traces_are_matched_by_index(tmp_path):
    def frame(name, first, second):
        data = [go.Scatter(x=[0, 1], y=first), go.Scatter(x=[0, 1], y=second)]
        return go.Frame(name=name, data=data, traces=[2, 0] if name == "0" else [0, 2])

    a, b = _frames(frame("0", [1, 2], [3, 4]), frame("1", [30, 40], [10, 20]))
    plan = _transition(a, b, [{}, {}, {}], tmp_path)
    lerps = {t["index"]: _lerps(t) for t in plan["traces"]}
    assert lerps == {2: {"y": ([1, 2], [10, 20])}, 0: {"y": ([3, 4], [30, 40])}}


def test_a_trace_whose_arrays_change_length_fades(tmp_path):
    a, b = _frames(
        go.Frame(name="0", data=[go.Scatter(x=[0, 1], y=[1, 2]), go.Scatter(x=[0], y=[5]),
                                 go.Scatter(x=[0], y=[0], text=["a"])]),
        go.Frame(name="1", data=[go.Scatter(x=[0, 1, 2], y=[1, 2, 3]), go.Scatter(x=[0], y=[6]),
                                 go.Scatter(x=[0], y=[0], text=["a", "b"])]),
    )  # fmt: skip
    live = [{"opacity": 0.6}, {}, {}]
    plan = _transition(a, b, live, tmp_path)
    fading, moving = plan["traces"]  # trace 2: only strings changed length, nothing to draw
    assert fading == {"index": 0, "swap": b["data"][0], "fade": True, "swapped": False}
    assert plan["opacity"] == {"0": 0.6}  # its own opacity, to come back to
    assert moving == {"index": 1, "lerp": [["y", [5], [6]]]}
    plan = _transition(a, b, [{}, {}, {}], tmp_path)
    assert plan["opacity"] == {"0": None}  # none set: plotly's default


def test_arrays_with_gaps_fade_only_when_their_length_changes(tmp_path):
    """Lines drawn as one trace: x [0, 1, None, 0, 1, None, ...] (numbers and gaps)."""
    lines = [[0, 1, None, 0, 1], [0, 1, None, 0, 1, None, 0, 1]]
    frames = _frames(*(go.Frame(name=str(k), data=[go.Scatter(x=x, y=[k] * len(x))])
                       for k, x in enumerate([lines[0], lines[0], lines[1]])))  # fmt: skip
    plan = _transition(frames[0], frames[1], [{}], tmp_path)
    assert not any(t.get("fade") for t in plan["traces"])  # the same lines, other heights
    plan = _transition(frames[1], frames[2], [{}], tmp_path)  # more lines
    assert [(t["index"], t["fade"]) for t in plan["traces"]] == [(0, True)]


def test_with_fade_every_changed_trace_fades(tmp_path):
    a, b = _moving_frames()
    plan = _transition(a, b, LIVE, tmp_path, play_options(seconds_per_frame=0.8, fade=True))
    assert [(t["index"], t["fade"]) for t in plan["traces"]] == [(0, True), (2, True), (3, True)]
    assert plan["opacity"] == {"0": None, "2": None, "3": None}
    assert plan["shapes"] == [[0, "x0", 0.0, 0.5], [0, "x1", 1.0, 1.5]]  # shapes still move


def test_a_changed_picture_crossfades(tmp_path):
    sources = ["data:image/png;base64,AAAA", "data:image/png;base64,BBBB"]
    frames = _frames(*(go.Frame(name=str(k), data=[go.Scatter(x=[0], y=[k]),
                                                   go.Image(source=s)], traces=[0, 1])
                       for k, s in enumerate([*sources, sources[1]])))  # fmt: skip
    live = [{"type": "scatter"}, {"type": "image"}]
    plan = _transition(frames[0], frames[1], live, tmp_path)
    assert plan["image"] == {"index": 1, "source": sources[1]}
    assert [t["index"] for t in plan["traces"]] == [0]  # the image is not a trace that moves
    assert _transition(frames[1], frames[2], live, tmp_path)["image"] is None  # the same picture


GAUSSIAN = {"sigma": 0.5, "centre_trace": 1, "traces": [{"trace": 0, "half_width": 1.0}]}
XS = np.linspace(-3, 3, 13)


def _bell_frames(centres=(0.0, 2.0), centre_trace=True) -> list[dict]:
    def frame(k, p):
        data = [go.Scatter(x=XS, y=np.exp(-((XS - p) ** 2) / (2 * 0.5**2)), marker={"size": k})]
        if centre_trace:
            data.append(go.Scatter(x=[p], y=[0]))
        return go.Frame(name=str(k), data=data)

    return _frames(*(frame(k, p) for k, p in enumerate(centres)))


def test_gaussian_traces_follow_the_centre(tmp_path):
    a, b = _bell_frames()
    options = play_options(seconds_per_frame=0.8, gaussian=GAUSSIAN)
    plan = _transition(a, b, [{}, {}], tmp_path, options)
    bell, centre = plan["traces"]
    assert bell == {"index": 0, "lerp": [["marker.size", 0, 1]],  # not y: the bell draws it
                    "bell": {"xs": XS.tolist(), "halfWidth": 1.0}}  # fmt: skip
    assert centre == {"index": 1, "lerp": [["x", [0.0], [2.0]]]}
    assert plan["centre"] == [0.0, 2.0]
    a, b = _bell_frames(centre_trace=False)  # no centre to follow: no bell
    plan = _transition(a, b, [{}], tmp_path, options)
    assert plan["centre"] is None and "bell" not in plan["traces"][0]


# ------------------------------------------------------------------ inBetween

FS = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


def _in_between(plan_js: str, fs, tmp_path, options: dict = OPTIONS) -> list[dict]:
    """inBetween at each f in turn, on one plan (as play.js draws one step to the next)."""
    calls = [_call("inBetween", {"$js": f"globalThis.plan = {plan_js}"}, fs[0], options)]
    calls += [_call("inBetween", {"$js": "globalThis.plan"}, f, options) for f in fs[1:]]
    return run_exports(PLAY_FRAMES_JS, calls, tmp_path)


def test_in_between_goes_straight_from_one_frame_to_the_next(tmp_path):
    a, b = _moving_frames()
    states = _in_between(_plan(a, b, LIVE), FS, tmp_path)
    y_a, y_b = Y_A, Y_B  # trace 0's y in the two frames
    ys, zs, x0s = [], [], []
    for f, state in zip(FS, states, strict=True):
        assert state["indices"] == [0, 2]
        assert set(state["traceUpdate"]) == {"y", "marker.size", "marker.opacity", "z"}
        assert state["traceUpdate"]["marker.opacity"] == [1.0 - 0.5 * f, None]
        y, no_y = state["traceUpdate"]["y"]  # one entry per trace: trace 2 has no y
        z_none, z = state["traceUpdate"]["z"]
        assert no_y is None and z_none is None
        np.testing.assert_allclose(y, y_a + (y_b - y_a) * f, rtol=1e-15)
        np.testing.assert_allclose(z, Z_A + (Z_B - Z_A) * f, rtol=1e-15)
        assert set(state["layoutUpdate"]) == {"shapes[0].x0", "shapes[0].x1"}
        ys.append(y)
        zs.append(z)
        x0s.append(state["layoutUpdate"]["shapes[0].x0"])
    assert ys[0] == y_a.tolist() and zs[0] == Z_A.tolist() and x0s[0] == 0.0  # the first frame
    np.testing.assert_allclose(ys[-1], y_b, rtol=1e-15)  # the next frame
    np.testing.assert_allclose(zs[-1], Z_B, rtol=1e-15)
    assert x0s[-1] == 0.5 and x0s[3] == 0.25  # halfway
    np.testing.assert_allclose(ys[3], (y_a + y_b) / 2)
    ys, zs = np.array(ys), np.array(zs)
    for values, start, end in [(ys, y_a, y_b), (zs, Z_A, Z_B)]:
        assert (values >= np.minimum(start, end) - 1e-15).all()  # between the two frames
        assert (values <= np.maximum(start, end) + 1e-15).all()
        steps = np.diff(values, axis=0) * np.sign(end - start)  # always towards the next
        assert (steps >= -1e-15).all()
    assert sorted(x0s) == x0s


def test_a_fading_trace_fades_out_swaps_halfway_and_fades_in(tmp_path):
    a, b = _frames(
        go.Frame(name="0", data=[go.Scatter(x=[0, 1], y=[1, 2], marker={"size": [3, 4]}),
                                 go.Scatter(x=[0], y=[5])]),
        go.Frame(name="1", data=[go.Scatter(x=[0, 1, 2], y=[1, 2, 3], text=["a", "b", "c"],
                                            marker={"size": [5, 6, 7]}),
                                 go.Scatter(x=[0, 1], y=[5, 6])]),
    )  # fmt: skip
    fs = [0.0, 0.25, 0.49, 0.5, 0.6, 0.75, 1.0]
    states = _in_between(_plan(a, b, [{"opacity": 0.6}, {}]), fs, tmp_path)
    opacity = [s["traceUpdate"]["opacity"] for s in states]
    expected = [[0.6 * abs(1 - 2 * f), abs(1 - 2 * f)] for f in fs]
    np.testing.assert_allclose(opacity, expected, atol=1e-15)  # back to their own at both ends
    swapped = [sorted(set(s["traceUpdate"]) - {"opacity"}) for s in states]
    new = ["marker.size", "text", "x", "y"]  # the next frame's points, and only its keys
    assert swapped == [[], [], [], new, [], [], []]  # once, halfway
    halfway = states[3]["traceUpdate"]
    assert halfway["x"] == [[0, 1, 2], [0, 1]] and halfway["y"] == [[1, 2, 3], [5, 6]]
    assert halfway["text"] == [["a", "b", "c"], None] and halfway["marker.size"][0] == [5, 6, 7]
    late = _in_between(_plan(a, b, [{}, {}]), [0.8, 0.9], tmp_path)  # a first draw past halfway
    assert [sorted(set(s["traceUpdate"]) - {"opacity"}) for s in late] == [new, []]


def test_gaussian_traces_are_the_bell_around_the_moving_centre(tmp_path):
    a, b = _bell_frames()
    options = play_options(seconds_per_frame=0.8, gaussian=GAUSSIAN)
    fs = [0.0, 0.25, 0.5, 0.8, 1.0]
    states = _in_between(_plan(a, b, [{}, {}], options), fs, tmp_path, options)
    for f, state in zip(fs, states, strict=True):
        p = 2.0 * f
        (x_none, centre) = state["traceUpdate"]["x"]
        assert x_none is None and centre == [pytest.approx(p)]
        y, y_none = state["traceUpdate"]["y"]
        expected = np.where(np.abs(XS - p) <= 1.0, np.exp(-((XS - p) ** 2) / (2 * 0.5**2)), 0.0)
        assert y_none is None
        np.testing.assert_allclose(y, expected, rtol=1e-14)
    uncut = [{"trace": 0, "half_width": None}]
    options = play_options(seconds_per_frame=0.8, gaussian=GAUSSIAN | {"traces": uncut})
    (state,) = _in_between(_plan(a, b, [{}, {}], options), [0.5], tmp_path, options)
    np.testing.assert_allclose(state["traceUpdate"]["y"][0], np.exp(-((XS - 1.0) ** 2) / 0.5))
