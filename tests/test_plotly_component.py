"""The chart component's Python side (ui/plotly_component.py, ui/charts.py): the one legibility
pass on a figure's plain dict (for the component and for st.plotly_chart alike), its payload is strict JSON with the template's colours
filled in, and which of the two a chart goes through (``ATLAS_PLOTLY_COMPONENT``, under AppTest
too, a missing package, a browser that could not draw one). The browser side: test_browser_plotly_component.py.
"""

from __future__ import annotations

import importlib.util
import json
import re

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import pytest
import streamlit  # noqa: F401  (registers the "streamlit" plotly template the app's figures carry)
from streamlit.testing.v1 import AppTest

from tests.requirements_env import need
from tests.server import ROOT
from ui import plotly_component
from ui.charts import PLOTLY_CONFIG, legible
from ui.fit import CLASSROOM_MIN_PX, CLASSROOM_SCALE, MIN_PX
from viz.alignment import alignment_heatmap, alignment_lines
from viz.multi_head import head_heatmap
from viz.palette import OKABE_ITO

APP = str(ROOT / "tests" / "plotly_component_app.py")
WORDS = ["the", "cat", "sat", "down"]


def _figures() -> list[go.Figure]:
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(4), 4)
    odd = go.Figure(
        go.Heatmap(
            z=[[1.0, float("nan")], [3.0, 4.0]],
            zmid=2,
            colorbar={"title": {"text": "w", "font": {"size": 9}}, "tickfont": {"size": 8}},
            textfont={"size": 7},
        )
    )
    odd.update_layout(coloraxis={"colorscale": "Viridis"}, legend={"font": {"size": 9}})
    odd.add_annotation(text="a", font={"size": 10}, x=0, y=0)
    return [
        alignment_heatmap(w, WORDS, WORDS, title="weights"),
        alignment_lines(w, WORDS, WORDS, threshold=0.1),
        head_heatmap(w, WORDS, WORDS, title="head"),
        odd,
    ]


def _font_sizes(node: object) -> list[float]:
    """Every ``size`` of a ``*font`` mapping in a figure's plain dict."""
    if isinstance(node, list):
        return [size for item in node for size in _font_sizes(item)]
    if not isinstance(node, dict):
        return []
    sizes = []
    for name, value in node.items():
        if name.endswith("font") and isinstance(value, dict) and "size" in value:
            sizes.append(value["size"])
        sizes += _font_sizes(value)
    return sizes


@pytest.mark.parametrize("classroom", [False, True])
@pytest.mark.parametrize("index", range(4))
def test_legible_makes_every_text_legible_and_keeps_the_figure_valid(index: int, classroom: bool):
    """Fonts raised to the screen's least size (classroom mode: scaled by CLASSROOM_SCALE), the
    margins grown with them, classroom colours; plotly's validation takes what comes out."""
    fig = _figures()[index]
    before = fig.to_dict()
    spec = legible(fig.to_dict(), classroom=classroom)
    again = go.Figure(spec)  # raises on a property plotly does not know
    scale, floor = (CLASSROOM_SCALE, CLASSROOM_MIN_PX) if classroom else (1, MIN_PX)
    sizes = _font_sizes(spec)
    assert sizes and min(sizes) >= floor, sizes
    assert spec["layout"]["font"]["size"] == max(floor, round(12 * scale))
    margin = before["layout"].get("margin") or {}
    for side, px in margin.items():
        assert spec["layout"]["margin"][side] == round(px * scale)
    heatmaps = [trace for trace in again.data if trace.type == "heatmap"]
    if classroom:
        assert list(again.layout.colorway) == list(OKABE_ITO)
        for trace in heatmaps:
            name = "PuOr" if trace.zmid is not None else "Cividis"
            assert [c for _, c in trace.colorscale] == [
                c for _, c in plotly.colors.get_colorscale(name)
            ]
    else:
        assert [t.colorscale for t in heatmaps] == [
            t.colorscale for t in fig.data if t.type == "heatmap"
        ]


def test_payload_is_strict_json_with_the_template_filled_in():
    """NaN becomes null (JSON.parse takes no NaN), no colour placeholder of the "streamlit"
    template is left (they would draw black), layout.width becomes the least width, the modebar
    has no box or lasso select, and ``select`` says whether clicks are sent back."""
    fig = _figures()[3]
    fig.update_layout(width=900)
    spec = legible(fig.to_dict(), classroom=False)
    data = plotly_component.payload(spec, PLOTLY_CONFIG, select=True)
    text = data.decode()
    message = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the payload"))
    assert message["figure"]["data"][0]["z"][0][1] is None
    assert not re.search(r"#0000[0-4]\d", text), re.findall(r"#0000[0-4]\d", text)[:5]
    template = message["figure"]["layout"]["template"]
    assert template["layout"]["colorway"][0] == "#636efa"  # plotly's first colour
    assert message["minWidth"] == 900 and "width" not in message["figure"]["layout"]
    assert message["config"]["modeBarButtonsToRemove"] == ["lasso2d", "select2d"]
    assert message["config"]["displaylogo"] is False and message["select"] is True


def test_payload_keeps_an_animations_frames():
    """An animated figure's frames go along (plotly's own play buttons need them)."""
    fig = go.Figure(go.Scatter(x=[0], y=[0]), frames=[go.Frame(data=[go.Scatter(x=[1], y=[1])])])
    message = json.loads(plotly_component.payload(fig.to_dict(), {}, select=False))
    assert message["figure"]["frames"][0]["data"][0]["x"] == [1]


def _run(monkeypatch: pytest.MonkeyPatch, setting: str | None, state: dict | None = None):
    if setting is None:
        monkeypatch.delenv(plotly_component.ENV, raising=False)
    else:
        monkeypatch.setenv(plotly_component.ENV, setting)
    at = AppTest.from_file(APP, default_timeout=60)
    for name, value in (state or {}).items():
        at.session_state[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_apptest_reads_st_plotly_chart_when_off(monkeypatch):
    """0: the chart is an st.plotly_chart, which at.get("plotly_chart") reads."""
    at = _run(monkeypatch, "0")
    assert len(at.get("plotly_chart")) == 1 and not at.get("bidi_component")
    assert json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["type"] == "heatmap"


@pytest.mark.parametrize("setting", [None, "1"])
def test_apptest_reads_the_component_by_default_and_when_on(monkeypatch, setting):
    """Unset (AppTest too) or 1: the chart goes through the component, no st.plotly_chart."""
    need(importlib.util.find_spec("atlas_plotly") is not None, "atlas-plotly: run `make setup`")
    at = _run(monkeypatch, setting)
    assert not at.get("plotly_chart")
    assert _component_figure(at)["figure"]["data"][0]["type"] == "heatmap"


def _component_figure(at: AppTest) -> dict:
    (chart,) = at.get("bidi_component")
    assert chart.proto.component_name == "atlas-plotly.chart"
    assert chart.proto.id.endswith("-pc_heatmap")  # mounted under the chart's key
    return json.loads(chart.proto.bytes)


def test_the_component_carries_the_figure_st_plotly_chart_draws(monkeypatch):
    """ATLAS_PLOTLY_COMPONENT=1 under AppTest: the component's payload holds the same traces and
    layout as st.plotly_chart's figure (the template filled in, the width sent apart)."""
    need(importlib.util.find_spec("atlas_plotly") is not None, "atlas-plotly: run `make setup`")
    fallback = _run(monkeypatch, "0")
    shown = json.loads(fallback.get("plotly_chart")[0].proto.spec)
    message = _component_figure(_run(monkeypatch, "1"))
    assert message["select"] is True  # the page passes on_select
    figure = message["figure"]
    assert figure["data"] == shown["data"]
    # st.plotly_chart's figure keeps its width as its scrolling container's least width
    (style,) = [e.proto.body for e in fallback.get("html") if "min-width" in e.proto.body]
    assert f"min-width:{message['minWidth']}px" in style
    layout = {k: v for k, v in shown["layout"].items() if k not in ("template", "width")}
    assert {k: v for k, v in figure["layout"].items() if k != "template"} == layout


def test_a_missing_or_failing_component_falls_back(monkeypatch):
    """Not installed, failing to mount, or reported failed by the browser: st.plotly_chart, and no
    exception."""
    need(importlib.util.find_spec("atlas_plotly") is not None, "atlas-plotly: run `make setup`")
    at = _run(monkeypatch, "1", {plotly_component.FAILED: True})
    assert len(at.get("plotly_chart")) == 1 and not at.get("bidi_component")
    monkeypatch.setattr(plotly_component, "_mount", lambda: None)
    at = _run(monkeypatch, "1")
    assert len(at.get("plotly_chart")) == 1 and not at.get("bidi_component")

    def broken(**_: object) -> None:
        raise RuntimeError("component lost")

    monkeypatch.setattr(plotly_component, "_mount", lambda: broken)
    at = _run(monkeypatch, "1")
    assert len(at.get("plotly_chart")) == 1 and not at.get("bidi_component")
