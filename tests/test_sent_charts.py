"""tests/app_helpers.py's chart reader: plotly's typed arrays decoded to plain lists, and a chart
read the same whichever path drew it (the chart component's payload, st.plotly_chart's figure)."""

from __future__ import annotations

import base64
import importlib.util

import numpy as np
import plotly.graph_objects as go
import pytest
from _plotly_utils.utils import to_typed_array_spec
from streamlit.testing.v1 import AppTest

from tests.app_helpers import chart, charts, decode_arrays, figures
from tests.requirements_env import need
from tests.server import ROOT
from ui import plotly_component

APP = str(ROOT / "tests" / "plotly_component_app.py")


def _typed(values: np.ndarray) -> dict:
    """``values`` as plotly.py sends them (a typed array spec: dtype, base64, shape)."""
    spec = to_typed_array_spec(values)
    assert isinstance(spec, dict) and "bdata" in spec, spec
    return spec


@pytest.mark.parametrize(
    "values",
    [
        np.array([0.25, -1.5, 3.0]),  # f8
        np.array([0.5, 2.25], dtype=np.float32),  # f4
        np.arange(6).reshape(2, 3),  # int64: sent as i1
        np.array([[-40000, 7], [1, 2]]),  # int64: sent as i4
        np.array([3, 250], dtype=np.uint8),  # u1
        np.array([70000], dtype=np.uint32),  # u4
        np.arange(24, dtype=np.int16).reshape(2, 3, 4),  # i2, three dimensions
    ],
    ids=lambda values: f"{values.dtype}{values.shape}",
)
def test_a_typed_array_is_decoded_to_its_values(values: np.ndarray):
    decoded = decode_arrays(_typed(values))
    assert decoded == values.tolist()
    assert np.asarray(decoded).shape == values.shape


def test_decoding_reaches_every_part_of_a_figure():
    """Traces, their nested properties, the layout and the frames; lists and text as they were."""
    z = np.arange(4.0).reshape(2, 2)
    fig = go.Figure(
        go.Heatmap(z=z, x=np.array([1.5, 2.5]), y=["a", "b"], text=[["p", "q"], ["r", "s"]]),
        frames=[go.Frame(data=[go.Scatter(x=np.array([1, 2]), marker={"color": np.array([0.1])})])],
    )
    spec = fig.to_dict()
    assert isinstance(spec["data"][0]["z"], dict)  # plotly.py sends numpy arrays typed
    decoded = decode_arrays(spec)
    trace = decoded["data"][0]
    assert trace["z"] == [[0.0, 1.0], [2.0, 3.0]] and trace["x"] == [1.5, 2.5]
    assert trace["y"] == ["a", "b"] and trace["text"] == [["p", "q"], ["r", "s"]]
    frame = decoded["frames"][0]["data"][0]
    assert frame["x"] == [1, 2] and frame["marker"]["color"] == [0.1]
    assert decoded["layout"] == spec["layout"]


def test_plotly_js_forms_and_what_it_leaves_alone():
    """A Uint8ClampedArray ("u1c") and a shape given as a list are decoded; an unknown dtype,
    ``bdata`` that is not text, or a mapping with other keys is not a typed array."""
    u1c = {"dtype": "u1c", "bdata": base64.b64encode(bytes([0, 255, 7])).decode()}
    assert decode_arrays(u1c) == [0, 255, 7]
    little = np.arange(6, dtype="<i2").tobytes()
    listed = {"dtype": "i2", "bdata": base64.b64encode(little).decode(), "shape": [3, 2]}
    assert decode_arrays(listed) == [[0, 1], [2, 3], [4, 5]]
    for node in (
        {"dtype": "i8", "bdata": "AQAAAAAAAAA="},
        {"dtype": "f8", "bdata": 5},
        {"dtype": "f8", "bdata": "AAAAAAAA8D8=", "name": "not an array"},
        {"dtype": "f8"},
    ):
        assert decode_arrays(node) == node
    plain = [1, [2.5, None], "x", {"k": (1, 2)}]
    assert decode_arrays(plain) == plain


def _run(monkeypatch: pytest.MonkeyPatch, setting: str | None) -> AppTest:
    if setting is None:
        monkeypatch.delenv(plotly_component.ENV, raising=False)
    else:
        monkeypatch.setenv(plotly_component.ENV, setting)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["wide"] = "1"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_chart_reads_the_same_from_either_path(monkeypatch):
    """Unset under AppTest, the charts go through the component; ``0``: st.plotly_chart. Either
    way the reader gives the same keys, figures (data and layout, but the template's colours),
    clicks sent back and least widths."""
    need(importlib.util.find_spec("atlas_plotly") is not None, "atlas-plotly: run `make setup`")
    sent = charts(_run(monkeypatch, None))
    shown = charts(_run(monkeypatch, "0"))
    assert [c.component for c in sent] == [True, True]
    assert [c.component for c in shown] == [False, False]
    assert [c.key for c in sent] == [c.key for c in shown] == ["pc_heatmap", "pc_wide"]
    assert [c.select for c in sent] == [c.select for c in shown] == [True, False]
    assert [c.min_width for c in sent] == [c.min_width for c in shown]
    assert all(c.min_width is not None and c.min_width > 0 for c in sent)  # both have a width
    assert "fullscreen" in sent[0].behaviours and shown[0].behaviours == {}
    for one, other in zip(sent, shown, strict=True):
        assert one.data == other.data and one.figure["frames"] == other.figure["frames"] == []
        assert {k: v for k, v in one.layout.items() if k != "template"} == {
            k: v for k, v in other.layout.items() if k != "template"
        }
        assert isinstance(one.data[0]["z"][0], list)  # decoded: a row of the heatmap
    at = _run(monkeypatch, None)
    assert chart(at, "pc_wide").layout["title"] == figures(at)[1]["layout"]["title"]
