"""What a chart does in the browser without a rerun, typed: the options of the chart component's
behaviour modules (``components/atlas-plotly/atlas_plotly/assets``), which
``ui.charts.plotly_chart`` sends as plain JSON. Pure: no streamlit.

- ``link``: hover linking between an attention map and its lines
  (:class:`viz.hover_link.HoverLink`);
- ``play``: a figure's frames played in the browser (:class:`viz.play.PlayOptions`);
- ``drag``: the Attention anatomy page's dragged query and keys: its options live with the page
  (``app_pages.anatomy.drag``), which viz may not import, so here they are any object that writes
  its plain-JSON options (:class:`DragPayload`).

The full-screen button every component chart has is added by ``ui.charts`` itself, and whether
clicks are sent back follows ``plotly_chart``'s ``on_select`` callback: neither is a field here.

A figure travels with its behaviours as a :class:`Chart`, which the builders of charts that always
go with a behaviour return (a played figure's: :func:`playing`, e.g. ``viz.lab.probe_player_chart``;
linked ones: ``viz.linked``; the anatomy page's: ``app_pages.anatomy.drag.drag_chart``), and
``plotly_chart(chart)`` shows as it is: the figure, with the chart's behaviours sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import ParamSpec, Protocol

import plotly.graph_objects as go

from viz.hover_link import HoverLink
from viz.play import PlayOptions
from viz.wrap import Wrapped

P = ParamSpec("P")


class DragPayload(Protocol):
    """Options of the "drag" behaviour: ``payload()`` writes them as drag.js reads them."""

    def payload(self) -> dict: ...


@dataclass(frozen=True)
class Behaviours:
    """A chart's browser behaviours; a None field is not sent (the chart does not have it)."""

    link: HoverLink | None = None
    play: PlayOptions | None = None
    drag: DragPayload | None = None

    def in_blocks(self, wrapped: Wrapped) -> Behaviours:
        """The behaviours of a figure wrapped in blocks of columns (``viz.wrap``): a heatmap's
        hover link outlines the cell in every block; the play behaviour's Gaussian traces are
        followed in every block."""
        link, play = self.link, self.play
        if link is not None and link.role == "heatmap":
            link = link.in_blocks(wrapped.blocks, wrapped.traces)
        if play is not None and play.get("gaussian"):
            gaussian = play["gaussian"]
            copies = [
                follow | {"trace": follow["trace"] + k * wrapped.traces}
                for k in range(len(wrapped.blocks))
                for follow in gaussian["traces"]
            ]
            play = PlayOptions(**play) | {"gaussian": gaussian | {"traces": copies}}
        return replace(self, link=link, play=play)

    def options(self) -> dict:
        """The plain-JSON ``{name: options}`` the chart component's payload carries under
        "behaviours" (names "link", "play", "drag"; a None field left out)."""
        out: dict = {}
        if self.link is not None:
            out["link"] = self.link.options()
        if self.play is not None:
            out["play"] = dict(self.play)
        if self.drag is not None:
            out["drag"] = self.drag.payload()
        return out


@dataclass(frozen=True)
class Chart:
    """A plotly figure with its browser behaviours, as the builder of a chart that always goes
    with a behaviour returns it; ``ui.charts.plotly_chart(chart)`` shows the figure and sends the
    behaviours (as ``plotly_chart(chart.figure, behaviours=chart.behaviours)``)."""

    figure: go.Figure
    behaviours: Behaviours = field(default_factory=Behaviours)


def playing(build: Callable[P, go.Figure], play: Callable[[], PlayOptions]) -> Callable[P, Chart]:
    """The Chart builder of a figure played in the browser: ``build``'s figure for the same
    arguments, with the play options ``play()`` makes at each call (they hold translated labels)."""

    def chart(*args: P.args, **kwargs: P.kwargs) -> Chart:
        return Chart(build(*args, **kwargs), Behaviours(play=play()))

    chart.__doc__ = f"``{build.__name__}``'s figure, played in the browser (``{play.__name__}``)."
    return chart
