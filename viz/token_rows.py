"""Lines over a sentence's tokens turned on their side: the tokens down the y axis, one row each
(the first on top, labels written across, as text is read), the values along the x axis.

A chart of a long sentence's tokens across the page would be wider than the page at the least
legible spacing; turned, it grows downwards instead, where a page scrolls anyway. The
builders of lines over tokens (``viz.recurrent.token_lines``, ``viz.bottleneck.gradient_norm_plot``)
build their traces as usual and hand them here when asked for ``across=False``.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from viz.axes import token_axis
from viz.figure import figure
from viz.heatmaps import ROW_PX, title_width
from viz.measure import cells_extent, fitted_margin, legend_below
from viz.titles import left_title


def turned(trace: dict) -> dict:
    """A scatter trace with its x and y swapped (its hover text reading x where it read y)."""
    out = dict(trace)
    out["x"], out["y"] = trace.get("y"), trace.get("x")
    if isinstance(out.get("hovertemplate"), str):
        out["hovertemplate"] = out["hovertemplate"].replace("%{y", "%{x")
    return out


def token_rows_figure(
    traces: Sequence[dict],
    ticks: Sequence[str],
    *,
    title: str,
    token_title: str,
    value_axis: dict,
    value_labels: Sequence[str],
) -> go.Figure:
    """Lines whose ``traces`` run over the positions 0..n-1 of ``ticks`` (escaped tokens) drawn
    turned: a row of ``ROW_PX`` per token, the legend under the plot, as wide as its column (at
    least its title's width from the plot's left edge, where the title starts). ``value_axis``: the x axis's entries (type, range, ticks, title);
    ``value_labels``: its tick labels, for the margins."""
    margin, _angle = fitted_margin(value_labels, ticks)
    legend = legend_below(margin)
    m = legend["margin"]
    n = len(ticks)
    layout = {
        "template": "plotly_white",
        "title": left_title(title),
        "xaxis": value_axis,
        "yaxis": token_axis(ticks, top_down=True, title={"text": token_title}),
        "hovermode": "closest",
        "height": max(cells_extent(n, m["t"], m["b"], ROW_PX), 300),
        # the title starts at the plot's left edge (left_title), after the token labels' margin
        "width": m["l"] + title_width(title),
    } | legend
    return figure({"data": [turned(t) for t in traces], "layout": layout})
