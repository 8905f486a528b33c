"""Figures for the training lab (pure plotly, no streamlit, no torch): the training curves (loss,
sequence accuracy and the attention's agreement with the true alignment, each against the step),
sequence accuracy by source length, one line per model, and the probe's attention through
training (:func:`viz.alignment.alignment_heatmap` with one plotly frame per snapshot, a play
button and a step slider; with the chart component, :func:`probe_play` plays it smoothly in the
browser).

Built as plain dicts (:mod:`viz.figure`) with an explicit template: the lab redraws them every
second while a model trains and on every move of the timeline.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from i18n import N_, _
from viz._checks import escape
from viz.alignment import alignment_cells, alignment_heatmap
from viz.behaviours import playing
from viz.bottleneck import MODEL_STYLE
from viz.figure import figure
from viz.measure import LEGEND_ROW_PX
from viz.palette import BLUE, GREY
from viz.play import PlayOptions, play_button, play_options, slider_steps

TEMPLATE = "plotly_white"
PANELS = (  # (Curves field, panel title)
    ("loss", N_("loss per token (log)")),
    ("accuracy", N_("sequence accuracy")),
    ("agreement", N_("attention on the true alignment")),
)
MARKER_COLOUR = GREY
SNAPSHOT_MS = 300  # the probe player's time from one snapshot to the next
PLAYER_BUTTON_PX = 34  # under the probe map's x axis: the play button's row
PLAYER_SLIDER_PX = 54  # then the step slider's rail, ticks and labels


@dataclass(frozen=True)
class Curves:
    """One model's training curves. ``attention`` picks its colour (viz.bottleneck.MODEL_STYLE);
    steps, loss, accuracy (and agreement, None without attention) have one value per snapshot
    (a NaN loss, as at step 0, is left out)."""

    label: str
    attention: str
    steps: Sequence[int]
    loss: Sequence[float]
    accuracy: Sequence[float]
    agreement: Sequence[float] | None = None

    def check(self) -> None:
        n = len(self.steps)
        for name in ("loss", "accuracy", "agreement"):
            values = getattr(self, name)
            if values is not None and len(values) != n:
                raise ValueError(f"{self.label}: {len(values)} {name} values for {n} steps")


def _finite(values: Sequence[float]) -> list[float | None]:
    return [float(v) if v is not None and math.isfinite(v) else None for v in values]


def _axis_names(index: int) -> tuple[str, str]:
    suffix = "" if index == 0 else str(index + 1)
    return f"x{suffix}", f"y{suffix}"


def _curve_traces(curves: Curves) -> list[dict]:
    """One line per panel for one model; the legend entry on the accuracy panel only."""
    colour, marker = MODEL_STYLE.get(curves.attention, (BLUE, "circle"))
    label = escape([curves.label])[0]
    traces = []
    for index, (name, panel_title) in enumerate(PANELS):
        values, title = getattr(curves, name), escape([_(panel_title)])[0]
        if values is None:
            continue
        xaxis, yaxis = _axis_names(index)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": list(curves.steps),
                "y": _finite(values),
                "xaxis": xaxis,
                "yaxis": yaxis,
                "name": label,
                "legendgroup": label,
                "showlegend": name == "accuracy",
                "line": {"color": colour, "width": 2},
                "marker": {"symbol": marker},
                "hovertemplate": _("{label}<br>step %{{x}}<br>{value}: %{{y:.3f}}").format(
                    label=label, value=title
                )
                + "<extra></extra>",
            }
        )
    return traces


def log_ticks(values: Sequence[float]) -> list[float]:
    """Tick values for a log axis over ``values``: the powers of ten in range, or 1, 2 and 5
    times them when the values span less than two of them (plotly's own ticks crowd); empty
    when even those give fewer than two (plotly then picks its own)."""
    finite = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if not finite:
        return []
    lo, hi = min(finite), max(finite)
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    ticks = [10.0**d for d in decades if lo <= 10.0**d <= hi]
    if len(ticks) < 2:
        ticks = [
            m * 10.0**d for d in decades for m in (1, 2, 5) if lo / 1.2 <= m * 10.0**d <= hi * 1.2
        ]
    return ticks if len(ticks) >= 2 else []


# The curves' panels stacked (loss on top), sharing the step axis, in px for the 12 px font: each
# panel's title sits in the gap above it, the steps and the legend under the last panel. Stacked,
# not side by side: three panels in a row left a phone ~90 px for each.
PANEL_PX, PANEL_GAP_PX = 130, 34
CURVES_MARGIN = {
    "l": 56,
    "r": 20,
    "t": 80,
    "b": 64 + 2 * LEGEND_ROW_PX,
}  # a phone: legend in 2 rows


def _panel(index: int, panel_title: str, step: int | None, y_axis: dict) -> tuple[dict, ...]:
    """Panel ``index`` (0 at the top): its x axis (the steps, labelled under the last panel
    only), y axis, title annotation and step marker (or None)."""
    xaxis, yaxis = _axis_names(index)
    n = len(PANELS)
    plot = n * PANEL_PX + (n - 1) * PANEL_GAP_PX
    top = 1 - index * (PANEL_PX + PANEL_GAP_PX) / plot
    domain = [round(max(0.0, top - PANEL_PX / plot), 6), round(top, 6)]
    last = index == n - 1
    x_axis = {
        "anchor": yaxis,
        "showticklabels": last,
        **({"title": {"text": _("step")}, "ticklabelstandoff": 10} if last else {"matches": "x3"}),
    }
    title = {
        "text": _(panel_title),
        "x": 0,
        "y": domain[1],
        "xref": "paper",
        "yref": "paper",
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
    }
    marker = None
    if step is not None:
        marker = {
            "type": "line",
            "xref": xaxis,
            "yref": f"{yaxis} domain",
            "x0": step,
            "x1": step,
            "y0": 0,
            "y1": 1,
            "line": {"color": MARKER_COLOUR, "dash": "dash", "width": 1},
        }
    return x_axis, y_axis | {"anchor": xaxis, "domain": domain}, title, marker


def training_curves(
    runs: Sequence[Curves], *, step: int | None = None, title: str = ""
) -> go.Figure:
    """Loss (log scale), sequence accuracy and agreement with the true alignment against the
    training step, stacked, one line per model; ``step`` draws a dashed marker on each."""
    traces: list[dict] = []
    for curves in runs:
        curves.check()
        traces.extend(_curve_traces(curves))
    ticks = log_ticks([v for curves in runs for v in curves.loss])
    n = len(PANELS)
    layout: dict = {
        "template": TEMPLATE,
        "title": {"text": title},
        "height": CURVES_MARGIN["t"] + n * PANEL_PX + (n - 1) * PANEL_GAP_PX + CURVES_MARGIN["b"],
        "margin": CURVES_MARGIN,
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"},
        "annotations": [],
        "shapes": [],
    }
    for index, (name, panel_title) in enumerate(PANELS):
        y_axis = (
            {"type": "log"}
            | ({"tickvals": ticks, "ticktext": [f"{t:g}" for t in ticks]} if ticks else {})
            if name == "loss"
            else {"range": [-0.03, 1.03], "tickvals": [0, 0.5, 1], "ticktext": ["0", "0.5", "1"]}
        )
        x_axis, y_axis, annotation, marker = _panel(index, panel_title, step, y_axis)
        suffix = "" if index == 0 else str(index + 1)
        layout[f"xaxis{suffix}"], layout[f"yaxis{suffix}"] = x_axis, y_axis
        layout["annotations"].append(annotation)
        if marker is not None:
            layout["shapes"].append(marker)
    return figure({"data": traces, "layout": layout})


def length_accuracy_chart(
    series: Sequence[tuple[str, str, Sequence[tuple[int, float]]]], *, title: str = ""
) -> go.Figure:
    """Sequence accuracy (y) against source length (x): one line per (label, attention name,
    [(length, accuracy), ...]); the attention name picks the colour and marker."""
    traces = []
    for label, attention, points in series:
        if any(not 0 <= acc <= 1 for __, acc in points):
            raise ValueError(f"{label}: accuracies must lie in [0, 1]")
        colour, marker = MODEL_STYLE.get(attention, (BLUE, "circle"))
        name = escape([label])[0]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": name,
                "x": [n for n, __ in points],
                "y": [acc for __, acc in points],
                "line": {"color": colour, "width": 2.5},
                "marker": {"symbol": marker, "size": 8},
                "hovertemplate": _("{label}<br>length %{{x}}: %{{y:.0%}} exactly right").format(
                    label=name
                )
                + "<extra></extra>",
            }
        )
    longest = max((n for __, __, points in series for n, __ in points), default=0)
    layout = {
        "template": TEMPLATE,
        "title": {"text": title},
        "height": 360,
        "margin": {"l": 60, "r": 20, "t": 60, "b": 50 + LEGEND_ROW_PX},
        "xaxis": {
            "title": {"text": _("source length (tokens)")},
            "dtick": 1 if longest <= 16 else 2,
        },
        "yaxis": {
            "title": {"text": _("sequences exactly right")},
            "range": [-0.03, 1.03],
            "tickformat": ".0%",
        },
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"},
    }
    return figure({"data": traces, "layout": layout})


def probe_player(
    weights: Sequence[np.ndarray],
    steps: Sequence[int],
    source: Sequence[str],
    target: Sequence[str],
    *,
    titles: Sequence[str],
    index: int,
) -> go.Figure:
    """The probe's attention (T_out, T_src) at every snapshot as one map with plotly frames: it
    opens on snapshot ``index`` (titled ``titles[index]``); a play button and a slider under the
    x axis step through the snapshots, each frame's title naming its step. One colour scale
    (0 to 1) for every frame, so a weight's colour means the same at every step. Raises
    ValueError when the counts of weights, steps and titles differ or ``index`` is out of range."""
    n = len(weights)
    if not n or n != len(steps) or n != len(titles):
        raise ValueError(f"{n} weight maps, {len(steps)} steps, {len(titles)} titles")
    if not 0 <= index < n:
        raise ValueError(f"snapshot {index} of {n}")
    fig = alignment_heatmap(weights[index], source, target, title=titles[index], zmax=1.0)
    frames = [
        {
            "name": str(k),
            "data": [{"type": "heatmap"} | alignment_cells(w, source, target)],
            "traces": [0],
            "layout": {"title": {"text": titles[k]}},
        }
        for k, w in enumerate(weights)
    ]
    margin, height = fig.layout.margin, fig.layout.height
    plot_px = height - margin.t - margin.b
    below = margin.b  # the x axis's ticks and title
    fig.update_layout(
        margin={"b": below + PLAYER_BUTTON_PX + PLAYER_SLIDER_PX},
        height=height + PLAYER_BUTTON_PX + PLAYER_SLIDER_PX,
        **_player_controls(steps, index, -below / plot_px, -(below + PLAYER_BUTTON_PX) / plot_px),
    )
    fig.frames = frames
    return fig


def _player_controls(steps: Sequence[int], index: int, button_y: float, slider_y: float) -> dict:
    """Layout entries for the play button (at paper y ``button_y``) and the step slider under it
    (at ``slider_y``), each step named by its number (plotly names every k-th under the rail, k
    as small as keeps them apart; the title names the one shown)."""
    slider = {
        "active": index,
        "steps": slider_steps([str(step) for step in steps]),
        "currentvalue": {"visible": False},
        "x": 0,
        "len": 1,
        "y": slider_y,
        "yanchor": "top",
        "pad": {"t": 0, "b": 0, "l": 0, "r": 0},
    }
    button = {
        "type": "buttons",
        "buttons": [play_button(_("▶ play"), SNAPSHOT_MS)],
        "x": 0,
        "xanchor": "left",
        "y": button_y,
        "yanchor": "top",
        "pad": {"t": 4, "b": 0, "l": 0, "r": 0},
        "showactive": False,
    }
    return {"sliders": [slider], "updatemenus": [button]}


def probe_play() -> PlayOptions:
    """The chart component's play options for :func:`probe_player`: one snapshot every
    SNAPSHOT_MS, the weights changing smoothly in between; its play button pauses while it
    plays."""
    return play_options(seconds_per_frame=SNAPSHOT_MS / 1000, pause_label=_("❚❚ pause"))


# the probe's player with its play options, as the Training lab's page shows it
probe_player_chart = playing(probe_player, probe_play)
