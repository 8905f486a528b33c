"""A chart's browser behaviours, typed (viz/behaviours.py): ``Behaviours`` writes the plain-JSON
``{name: options}`` the chart component's payload carries, the same options the pages sent as
untyped dicts before (a ``HoverLink``'s ``options()`` under "link", a ``PlayOptions`` under
"play", the anatomy page's drag options' ``payload()`` under "drag"); a field left None is not
sent; ``plotly_chart`` puts them into the payload unchanged beside its own "fullscreen"; and the
Attention anatomy page, drawn by the component under AppTest, still sends its drag options."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import plotly.graph_objects as go
import pytest

from app_pages.anatomy.drag import GROUP, DragMember, drag_options, member
from models.analysis.toy import ADDITIVE_V, ADDITIVE_W_K, ADDITIVE_W_Q, anatomy
from tests.app_helpers import open_app
from tests.requirements_env import need
from ui import charts, plotly_component
from viz import vector_diagram
from viz.behaviours import Behaviours
from viz.captions import player_play
from viz.hover_link import HoverLink, heatmap_link
from viz.local_steps import local_play
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
    result = anatomy(QUERY, ITEMS[:, :2], ITEMS[:, 2:], kind="dot")
    fig = vector_diagram(QUERY, ITEMS[:, :2], ITEMS[:, 2:], result.context, names)
    additive = {"W_q": ADDITIVE_W_Q, "W_k": ADDITIVE_W_K, "v": ADDITIVE_V}
    return drag_options(
        fig, QUERY, ITEMS, names, kind="dot", W=None, additive=additive, temperature=1.0
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


def test_plotly_chart_sends_them_beside_its_full_screen_button(monkeypatch):
    sent = []
    monkeypatch.setattr(plotly_component, "wanted", lambda: True)
    monkeypatch.setattr(plotly_component, "show", lambda data, **kw: sent.append(data) or True)
    monkeypatch.setattr(charts, "classroom_mode", lambda: False)
    link = _link()
    charts.plotly_chart(go.Figure(go.Bar(y=[1, 2])), key="c", behaviours=Behaviours(link=link))
    charts.plotly_chart(go.Figure(go.Bar(y=[1, 2])), key="d")
    with_link, plain = (json.loads(data)["behaviours"] for data in sent)
    assert with_link == {"fullscreen": plain["fullscreen"], "link": link.options()}
    assert list(plain) == ["fullscreen"] and plain["fullscreen"]["label"]


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
