"""A chart's browser behaviours, typed (viz/behaviours.py): ``Behaviours`` writes the plain-JSON
``{name: options}`` the chart component's payload carries, the same options the pages sent as
untyped dicts before (a ``HoverLink``'s ``options()`` under "link", a ``PlayOptions`` under
"play", the anatomy page's drag options' ``payload()`` under "drag"); a field left None is not
sent; ``plotly_chart`` puts them into the payload unchanged beside its own "fullscreen"; and the
Attention anatomy page, drawn by the component under AppTest, still sends its drag options. The
builders of charts that always go with a behaviour return a ``Chart``: the figure their figure
builder makes with the options the pages sent, which ``plotly_chart`` sends byte for byte as it
sent (figure, behaviours=...)."""

from __future__ import annotations

import importlib.util
import json
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import pytest

from app_pages.anatomy.drag import GROUP, DragMember, drag_chart, drag_options, member
from models.analysis.toy import ADDITIVE_V, ADDITIVE_W_K, ADDITIVE_W_Q, anatomy
from tests.app_helpers import open_app
from tests.requirements_env import need
from tests.test_viz_alignment import _local
from ui import charts, plotly_component
from ui.fit import Fit
from ui.translation import local_steps_chart
from viz import vector_diagram
from viz.alignment import alignment_heatmap, alignment_lines, alignment_lines_link
from viz.behaviours import Behaviours, Chart
from viz.captions import attention_player_chart, attention_player_figure, player_play
from viz.hover_link import HoverLink, heatmap_link
from viz.lab import probe_play, probe_player, probe_player_chart
from viz.linked import AlignmentCharts, HeadCharts
from viz.local_steps import local_play, local_steps_figure
from viz.multi_head import head_heatmap
from viz.multi_head_lines import head_lines, lines_link
from viz.play import play_options

ITEMS = np.array(
    [[2.0, 1.0, 1.0, 0.0], [-1.0, 1.0, 0.0, 1.0], [0.0, -2.0, -1.0, 0.0], [1.0, -1.0, 0.0, -1.0]]
)
QUERY = np.array([2.0, 1.0])
ANATOMY = "app_pages/anatomy/anatomy.py"


def _link() -> HoverLink:
    fig = go.Figure(go.Heatmap(z=np.arange(15.0).reshape(3, 5)))
    return heatmap_link(fig, "g")


def _drag():
    names = list("ABCD")
    result = anatomy(QUERY, ITEMS[:, :2], ITEMS[:, 2:], score_name="dot")
    fig = vector_diagram(QUERY, ITEMS[:, :2], ITEMS[:, 2:], result.context, names)
    additive = {"W_q": ADDITIVE_W_Q, "W_k": ADDITIVE_W_K, "v": ADDITIVE_V}
    return drag_options(
        fig, QUERY, ITEMS, names, score="dot", W=None, additive=additive, temperature=1.0
    )


def test_each_field_writes_what_the_pages_sent_before():
    link = _link()
    assert Behaviours(link=link).options() == {"link": link.options()}
    lines = HoverLink("g", "lines", 2, 3, linked=(1, 2), query_y=(0.0, 2.0), key_y=(0, 1, 2))
    assert Behaviours(link=lines).options() == {"link": lines.options()}
    for play in (local_play(3.0), player_play(), play_options(seconds_per_frame=0.5)):
        assert Behaviours(play=play).options() == {"play": play}
    drag = _drag()
    assert Behaviours(drag=drag).options() == {"drag": drag.payload()}
    for role in ("scores", "weights"):
        assert Behaviours(drag=DragMember(role)).options() == {"drag": member(role)}
        assert member(role) == {"group": GROUP, "role": role}  # as the pages sent it


def test_none_fields_are_left_out():
    assert Behaviours().options() == {}
    both = Behaviours(link=_link(), play=local_play(2.0)).options()
    assert list(both) == ["link", "play"]
    assert list(Behaviours(link=_link(), drag=DragMember("scores")).options()) == ["link", "drag"]


def test_the_options_are_plain_json_and_fresh():
    play = local_play(3.0)
    behaviours = Behaviours(link=_link(), play=play, drag=_drag())
    options = behaviours.options()
    text = json.dumps(options, allow_nan=False)
    assert json.loads(text) == options
    options["play"]["fps"] = 1  # the caller's copy: the behaviours' own options are unchanged
    assert play["fps"] != 1 and behaviours.options()["play"] == play
    with pytest.raises(AttributeError):  # frozen
        behaviours.link = None  # type: ignore[misc]


def test_the_payload_carries_them_unchanged():
    fullscreen = {"fullscreen": {"label": "Full screen"}}
    for behaviours, old in (
        (Behaviours(link=_link()), {"link": _link().options()}),
        (Behaviours(play=local_play(3.0)), {"play": local_play(3.0)}),
        (Behaviours(drag=_drag()), {"drag": _drag().payload()}),
        (Behaviours(drag=DragMember("weights")), {"drag": member("weights")}),
    ):
        spec = go.Figure(go.Bar(y=[1, 2])).to_dict()
        new = plotly_component.payload(
            json.loads(json.dumps(spec)),
            {},
            select=False,
            behaviours=fullscreen | behaviours.options(),
        )
        before = plotly_component.payload(spec, {}, select=False, behaviours=fullscreen | old)
        assert new == before  # byte for byte what the untyped dicts gave
        assert json.loads(new)["behaviours"] == fullscreen | old


def test_plotly_chart_sends_them_beside_its_full_screen_button_and_its_words(monkeypatch):
    sent = []
    monkeypatch.setattr(plotly_component, "wanted", lambda: True)
    monkeypatch.setattr(plotly_component, "show", lambda data, **kw: sent.append(data) or True)
    monkeypatch.setattr(charts, "classroom_mode", lambda: False)
    link = _link()
    charts.plotly_chart(Chart(go.Figure(go.Bar(y=[1, 2])), Behaviours(link=link)), key="c")
    charts.plotly_chart(go.Figure(go.Bar(y=[1, 2])), key="d")
    with_link, plain = (json.loads(data)["behaviours"] for data in sent)
    every = {"fullscreen": plain["fullscreen"], "describe": plain["describe"]}
    assert with_link == every | {"link": link.options()}
    assert list(plain) == ["fullscreen", "describe"] and plain["fullscreen"]["label"]
    assert plain["describe"]["name"] and plain["describe"]["summary"]  # every chart in words


def test_the_anatomy_page_still_sends_its_drag_options(monkeypatch):
    """ATLAS_PLOTLY_COMPONENT=1 under AppTest: the diagram sends its full drag options, the scores
    and weights charts their part in the group, each beside the full-screen button."""
    need(importlib.util.find_spec("atlas_plotly") is not None, "atlas-plotly: run `make setup`")
    monkeypatch.setenv(plotly_component.ENV, "1")
    at = open_app(ANATOMY)
    sent = {
        c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.bytes)["behaviours"]
        for c in at.get("bidi_component")
    }
    assert sent["anat_scores"]["drag"] == member("scores")
    assert sent["anat_weights"]["drag"] == member("weights")
    vectors = sent["anat_vectors"]["drag"]
    assert (vectors["group"], vectors["role"]) == (GROUP, "vectors")
    assert set(vectors) == set(_drag().payload())
    assert all("fullscreen" in behaviours for behaviours in sent.values())


# --- Charts: the builders of charts that always go with a behaviour return the figure with it --


def _same(chart: Chart, fig: go.Figure, behaviours: Behaviours) -> None:
    """``chart`` is ``fig`` (the figure its figure builder makes) with the options the page sent
    as ``behaviours`` before Charts: the same JSON, key order included."""
    assert isinstance(chart, Chart) and chart.figure.to_json() == fig.to_json()
    assert json.dumps(chart.behaviours.options()) == json.dumps(behaviours.options())


def test_a_chart_without_behaviours_sends_none():
    fig = go.Figure(go.Bar(y=[1, 2]))
    assert Chart(fig).behaviours == Behaviours() and Chart(fig).figure is fig
    with pytest.raises(AttributeError):  # frozen
        Chart(fig).figure = fig  # type: ignore[misc]


def _translation() -> SimpleNamespace:
    """What ``ui.translation.local_steps_chart`` reads of a local-attention Translation."""
    names = ("raw_weights", "weights", "gaussian", "p_t", "window")
    arrays = dict(zip(names, _local(), strict=True))
    source, target = [f"s{i}" for i in range(6)], ["x", "y", "z"]
    return SimpleNamespace(**arrays, D=2.0, source_tokens=source, target_tokens=target)


def test_the_played_charts_carry_their_figures_and_play_options():
    weights = [np.random.default_rng(k).dirichlet(np.ones(4), size=3) for k in range(3)]
    src, tgt, titles = list("abcd"), list("xyz"), ["step 10", "step 20", "step 30"]
    probe = (weights, [10, 20, 30], src, tgt)
    _same(
        probe_player_chart(*probe, titles=titles, index=1),
        probe_player(*probe, titles=titles, index=1),
        Behaviours(play=probe_play()),
    )
    image, words = np.full((224, 224, 3), 200, dtype=np.uint8), ["a", "cat", "sits"]
    alphas = np.random.default_rng(0).dirichlet(np.ones(196), size=3).reshape(3, 14, 14)
    _same(
        attention_player_chart(image, alphas, words, title="soft"),
        attention_player_figure(image, alphas, words, title="soft"),
        Behaviours(play=player_play()),
    )
    tr = _translation()
    arrays = (tr.raw_weights, tr.weights, tr.gaussian, tr.p_t, tr.window, tr.D)
    _same(
        local_steps_chart(tr, step=1),  # type: ignore[arg-type]
        local_steps_figure(*arrays, tr.source_tokens, tr.target_tokens, step=1),
        Behaviours(play=local_play(tr.D)),
    )


def test_the_linked_charts_carry_their_figures_and_one_group():
    rng = np.random.default_rng(5)
    w, src, tgt = rng.dirichlet(np.ones(5), size=3), list("abcde"), list("xyz")
    pair = AlignmentCharts(w, src, tgt, group="aln_main-link")
    heatmap = alignment_heatmap(w, src, tgt, title="t", numbers=False)
    _same(
        pair.heatmap(title="t", numbers=False),
        heatmap,
        Behaviours(link=heatmap_link(heatmap, "aln_main-link")),
    )
    lines = alignment_lines(w, src, tgt, threshold=0.2, title="lines")
    _same(
        pair.lines(threshold=0.2, title="lines"),
        lines,
        Behaviours(link=alignment_lines_link(lines, "aln_main-link")),
    )
    layer, tokens = rng.dirichlet(np.ones(4), size=(3, 4)), list("abcd")  # (H, T_q, T_k)
    heads = HeadCharts(layer, tokens, tokens, 1, "mh-layer-head")
    head_map = head_heatmap(layer[1], tokens, tokens, title="h")
    _same(
        heads.heatmap(title="h"), head_map, Behaviours(link=heatmap_link(head_map, "mh-layer-head"))
    )
    view = head_lines(layer, tokens, tokens, heads=[0, 2], token=3, threshold=0.05, title="v")
    _same(
        heads.lines(heads=[0, 2], token=3, threshold=0.05, title="v"),
        view,
        Behaviours(link=lines_link(view, 1, "mh-layer-head")),  # head 1's lines: not drawn
    )


def test_the_anatomy_charts_carry_their_drag_options():
    bars = go.Figure(go.Bar(y=[1, 2]))
    _same(drag_chart(bars, DragMember("scores")), bars, Behaviours(drag=DragMember("scores")))
    drag = _drag()
    _same(drag_chart(bars, drag), bars, Behaviours(drag=drag))


def _sent(monkeypatch, classroom: bool, *calls) -> list[str]:
    """The payloads ``plotly_chart`` sends the component for each (args, kwargs) of ``calls``."""
    sent: list[str] = []
    monkeypatch.setattr(plotly_component, "wanted", lambda: True)
    monkeypatch.setattr(plotly_component, "show", lambda data, **kw: sent.append(data) or True)
    monkeypatch.setattr(charts, "classroom_mode", lambda: classroom)
    for args, kwargs in calls:
        charts.plotly_chart(*args, **kwargs)
    return sent


@pytest.mark.parametrize("classroom", [False, True])
def test_plotly_chart_sends_a_chart_as_its_figure_with_behaviours(monkeypatch, classroom: bool):
    """A Chart is sent as its figure with its behaviours, the same bytes each time, also for a map
    wide enough to be wrapped in blocks in classroom mode (the behaviours told where the blocks
    are); its figure alone is sent without them."""
    rng = np.random.default_rng(2)
    src = [f"token{i}" for i in range(60)]
    w = rng.dirichlet(np.ones(len(src)), size=3)
    charts_of = {
        "link": lambda: AlignmentCharts(w, src, list("xyz"), group="g").heatmap(title="wide"),
        "play": lambda: local_steps_chart(_translation()),  # type: ignore[arg-type]
        "drag": lambda: drag_chart(go.Figure(go.Bar(y=[1, 2])), DragMember("weights")),
    }
    for name, chart in charts_of.items():
        fit = {"key": name, "fit": Fit(height=400, rows=3)}
        first, again, alone = _sent(
            monkeypatch,
            classroom,
            ((chart(),), fit),
            ((chart(),), fit),
            ((chart().figure,), fit),
        )
        assert first == again and name in json.loads(first)["behaviours"]
        assert name not in json.loads(alone)["behaviours"]
