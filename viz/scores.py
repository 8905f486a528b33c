"""Figures of one decoding step's soft addressing (pure plotly, no streamlit, no torch).

The articles' three stages for one target word: the scores e_j of every source token before the
softmax, the weights alpha_j = softmax(e)_j, and (in numbers, on the page) the weighted sum
c = sum_j alpha_j h_j; then the next-token candidates the decoder wrote from it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import _
from viz._checks import check_labels, escape
from viz.axes import token_axis
from viz.figure import figure
from viz.heatmaps import COLUMN_PX, ROW_PX, axis_title, title_width
from viz.measure import (
    AXIS_TITLE_PX,
    Y_TICKS_PAD_PX,
    cells_extent,
    number_labels,
    widest_px,
    x_tick_angle,
    x_ticks_height,
)
from viz.palette import BLUE, SKY_BLUE, VERMILLION

SCORE_COLOUR = SKY_BLUE
WEIGHT_COLOUR = BLUE
CANDIDATE_COLOUR = VERMILLION
PANEL_PX = 150  # the height of each of the two panels
PANEL_TITLE_PX = 26  # a panel's title above it
GAP_PX = 12  # between the first panel's tick labels and the second panel's title


def _bars(values: np.ndarray, ticks: list[str], colour: str, axes: str, name: str) -> dict:
    """Vertical bars over the source positions on the axes ``axes`` ("" or "2")."""
    return {
        "type": "bar",
        "x": list(range(values.size)),
        "y": values,
        "marker": {"color": colour},
        "customdata": ticks,
        "name": name,
        "hovertemplate": "%{customdata}: %{y:.3f}<extra>" + escape([name])[0] + "</extra>",
        "xaxis": f"x{axes}",
        "yaxis": f"y{axes}",
    }


def soft_addressing_figure(
    scores_row: ArrayLike, weights_row: ArrayLike, source_tokens: Sequence[str], *, title: str = ""
) -> go.Figure:
    """One step's scores e_j before the softmax (top) and weights alpha_j after it (bottom), the
    same source tokens at the same x positions, each panel with every token labelled. Raises
    ValueError when the two rows and the labels differ in length."""
    e = np.asarray(scores_row, dtype=float).ravel()
    alpha = np.asarray(weights_row, dtype=float).ravel()
    if e.size != alpha.size:
        raise ValueError(f"{e.size} scores but {alpha.size} weights")
    shown = check_labels(source_tokens, e.size, f"source labels vs {e.size} scores")
    ticks = escape(shown)
    names = (_("score e"), _("weight α"))
    traces = [
        _bars(e, ticks, SCORE_COLOUR, "", names[0]),
        _bars(alpha, ticks, WEIGHT_COLOUR, "2", names[1]),
    ]
    return figure({"data": traces, "layout": _stages_layout(shown, ticks, e, names, title)})


def _stages_layout(
    shown: list[str], ticks: list[str], e: np.ndarray, names: tuple[str, str], title: str
) -> dict:
    """The two panels of :func:`soft_addressing_figure` stacked, sized in px: each panel
    ``PANEL_PX`` tall with its tick labels under it and its title above it."""
    angle = x_tick_angle(shown)
    labels_px = x_ticks_height(shown, angle)
    area = 2 * PANEL_PX + labels_px + GAP_PX + PANEL_TITLE_PX  # between the margins
    margin = {
        "l": widest_px(number_labels([e, [1.0]])) + 10 + AXIS_TITLE_PX,
        "r": 20,
        "t": 60 + PANEL_TITLE_PX,
        "b": labels_px + AXIS_TITLE_PX,
    }
    low = PANEL_PX / area  # the top of the bottom panel, in the plot's fractions
    axis = token_axis(ticks, angle=angle)
    stage = {"xref": "paper", "yref": "paper", "x": 0, "xanchor": "left", "showarrow": False}
    return {
        "title": {"text": title},
        "margin": margin,
        "height": margin["t"] + area + margin["b"],
        "width": max(
            cells_extent(len(ticks), margin["l"], margin["r"], COLUMN_PX), title_width(title)
        ),
        "showlegend": False,
        "xaxis": axis | {"anchor": "y"},
        "yaxis": {"domain": [1 - low, 1], "title": {"text": names[0]}, "zeroline": True},
        "xaxis2": axis | {"anchor": "y2", "title": axis_title(_("source"))},
        "yaxis2": {"domain": [0, low], "range": [0, 1.05], "title": {"text": names[1]}},
        "annotations": [
            stage | {"y": 1, "yanchor": "bottom", "text": _("① scores e, before the softmax")},
            stage | {"y": low, "yanchor": "bottom", "text": _("② weights α = softmax(e)")},
        ],
    }


def candidates_bars(candidates: Sequence[tuple[str, float]], *, title: str = "") -> go.Figure:
    """The most likely next tokens with their probabilities, one labelled row each (most likely
    at the top) with its number beside the bar."""
    tokens = [str(token) for token, __ in candidates]
    probs = [float(p) for __, p in candidates]
    bars = {
        "type": "bar",
        "orientation": "h",
        "x": probs,
        "y": list(range(len(probs))),
        "marker": {"color": CANDIDATE_COLOUR},
        "customdata": escape(tokens),
        "text": [f"{p:.3f}" for p in probs],
        "textposition": "outside",
        "constraintext": "none",
        "cliponaxis": False,
        "hovertemplate": "%{customdata}: %{x:.3f}<extra></extra>",
    }
    margin = {"l": widest_px(tokens) + Y_TICKS_PAD_PX, "r": 20, "t": 60, "b": 28 + AXIS_TITLE_PX}
    layout = {
        "title": {"text": title},
        "margin": margin,
        "height": cells_extent(max(len(probs), 3), margin["t"], margin["b"], ROW_PX + 8),
        "width": max(240 + margin["l"], title_width(title)),
        "showlegend": False,
        "xaxis": {"range": [0, 1.2], "title": {"text": _("next-token probability")}},
        "yaxis": token_axis(escape(tokens), top_down=True),
    }
    return figure({"data": [bars], "layout": layout})
