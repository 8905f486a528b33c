"""A figure for a narrow view column (a lesson step's, beside its text): the heatmaps' per-cell
numbers left to the hover (they need cells wider than such a column gives), and a map whose
columns are labelled tokens as wide as its cells and labels need, its flat labels stood up where
they would make it wider than the column. Pure: a plotly figure in, changed in place."""

from __future__ import annotations

import html

import plotly.graph_objects as go

from viz.heatmaps import COLUMN_PX
from viz.measure import widest_px, x_ticks_height

LABEL_GAP_PX = 6  # a token column a little wider than its label needs: labels never touch
STANDING_GAP_PX = 2  # a column of a standing label: COLUMN_PX has its line height and a gap
# a step's view column at a projector (about 700 px of 1280 in classroom mode), in the builders'
# 12 px units before classroom mode scales them up
VIEW_COLUMN_PX = 470


def fit_view_column(fig: go.Figure) -> go.Figure:
    """``fig`` for a view column (see the module docstring): ``layout.width`` becomes the least
    width of a map of labelled token columns (no more than two maps side by side), and None for
    other maps and grids of maps, which fit their column. Returns ``fig``."""
    heatmaps = [trace for trace in fig.data if trace.type == "heatmap"]
    for trace in heatmaps:
        trace.texttemplate = None
        trace.text = None
    keys = len(heatmaps[0].z[0]) if heatmaps and heatmaps[0].z is not None else 0  # columns
    token_axis = keys and len(fig.layout.xaxis.ticktext or ()) == keys  # a label per column
    if not (token_axis and _grid_columns(fig, heatmaps) <= 2):
        fig.layout.width = None
        return fig
    margin = fig.layout.margin
    sides = (margin.l or 0) + (margin.r or 0)
    n_columns = keys * len(heatmaps)
    column = COLUMN_PX + STANDING_GAP_PX
    if fig.layout.xaxis.tickangle == 0:  # flat token labels side by side: as wide as the widest
        labels = [html.unescape(str(t)) for t in fig.layout.xaxis.ticktext or ()]
        flat = max(column, widest_px(labels) + 2 * LABEL_GAP_PX)
        if sides + flat * n_columns <= VIEW_COLUMN_PX:
            column = flat
        else:
            _stand_up(fig, labels)
    fig.layout.width = sides + column * n_columns
    return fig


def _grid_columns(fig: go.Figure, heatmaps: list) -> int:
    """How many heatmaps stand side by side (distinct x domains): a grid of small maps fits its
    column by itself, without a least width."""
    domains = {tuple(fig.layout["xaxis" + (t.xaxis or "x")[1:]].domain or (0, 1)) for t in heatmaps}
    return len(domains)


def _stand_up(fig: go.Figure, labels: list[str]) -> None:
    """The x tick labels vertical, the bottom margin and the height grown by what they take."""
    grow = x_ticks_height(labels, -90) - x_ticks_height(labels, 0)
    fig.layout.xaxis.tickangle = -90
    fig.layout.margin.b = (fig.layout.margin.b or 0) + grow
    if fig.layout.height:
        fig.layout.height += grow
