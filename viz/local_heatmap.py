"""The Local attention page's heatmap: Luong et al.'s (2015, Sec. 3.2) local weights with the
predicted centres p_t drawn over them as a path and the window [p_t - D, p_t + D] as dotted lines
(pure plotly, no streamlit, no torch)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import _
from viz._checks import as_matrix
from viz.alignment import ACCENT, alignment_heatmap
from viz.measure import LEGEND_ROW_PX, legend_below, widest_px
from viz.palette import GREY


def local_heatmap(
    weights: ArrayLike,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    p_t: ArrayLike,
    window: ArrayLike,
    *,
    title: str = "",
) -> go.Figure:
    """Local attention weights (T_out, T_src) with the predicted centres p_t drawn over them as a
    path and the window bounds (T_out, 2) as dotted lines."""
    z = as_matrix(weights)
    centres = np.asarray(p_t, dtype=float).ravel()
    bounds = np.asarray(window, dtype=float).reshape(-1, 2)
    if centres.size != z.shape[0] or bounds.shape[0] != z.shape[0]:
        raise ValueError(f"{z.shape[0]} rows but {centres.size} p_t and {bounds.shape[0]} windows")
    fig = alignment_heatmap(z, source_tokens, target_tokens, title=title)
    rows = list(range(z.shape[0]))
    for k, name in ((0, "p_t - D"), (1, "p_t + D")):  # one legend entry for both bounds
        fig.add_scatter(
            x=bounds[:, k],
            y=rows,
            mode="lines",
            name="p_t ± D",
            legendgroup="window",
            showlegend=k == 0,
            line={"color": GREY, "dash": "dot", "width": 1},
            hovertemplate=_("step %{{y}}: {bound} = %{{x:.2f}}").format(bound=name)
            + "<extra></extra>",
        )
    fig.add_scatter(
        x=centres,
        y=rows,
        mode="lines+markers",
        name="p_t",
        line={"color": ACCENT, "width": 3},
        marker={"size": 7},
        hovertemplate=_("step %{y}: p_t = %{x:.2f}") + "<extra></extra>",
    )
    # the legend (one short row, even on a phone) under the axis title; the rows keep their size,
    # and the figure is at least as wide as the legend
    legend = fig.layout.margin.l + sum(widest_px([name]) + 50 for name in ("p_t ± D", "p_t")) + 20
    height = (fig.layout.height or 0) + LEGEND_ROW_PX
    width = max(fig.layout.width or 0, legend)
    fig.update_layout(
        **legend_below(fig.layout.margin.to_plotly_json()), height=height, width=width
    )
    # the rows' own range: autorange would pad it for the markers, and each row lose height
    fig.update_yaxes(range=[z.shape[0] - 0.5, -0.5], autorange=False)
    return fig
