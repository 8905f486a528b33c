"""Charts of the Why sqrt(d_k) page: histograms of dot products per d_k, and curves over d_k
(pure plotly, plain-dict figures, no streamlit). Every name and title is shown as it is: pass
translated text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from viz._checks import MARGIN, as_matrix, escape
from viz.anatomy import title_beside_colorbar
from viz.axes import LayoutValue
from viz.figure import figure
from viz.heatmaps import label_separator, matrix_heatmap
from viz.measure import AXIS_TITLE_PX, LEGEND_ROW_PX
from viz.palette import OKABE_ITO

TEMPLATE = "plotly_white"
NUMBER_CELL_PX, ROW_PX = 34, 24  # a heatmap cell that shows its number ('2.66' at 12 px)
STANDOFF_PX = 10  # x tick labels this far under the axis: clear of the y axis's lowest label
LEGEND_BOTTOM_PX = 28 + STANDOFF_PX + AXIS_TITLE_PX + 2 * LEGEND_ROW_PX  # ticks, title, legend


def _traces(series: Mapping[str, ArrayLike], trace: dict, hover: str) -> list[dict]:
    """One ``trace`` (a dict of shared settings) per named series, its name in the hover's
    secondary box; ``hover`` is the rest of the hovertemplate. The values go on y when ``trace``
    has its x already, else on x (a histogram)."""
    return [
        trace
        | {
            "name": name,
            "hovertemplate": f"{hover}<extra>{name}</extra>",
        }
        | ({"y": np.asarray(values, dtype=float)} if "x" in trace else {"x": np.asarray(values)})
        for name, values in series.items()
    ]


def _layout(title: str, x_title: str, y_title: str, **extra: LayoutValue) -> dict:
    """The shared layout: explicit template, title, axis titles, the legend below the plot."""
    return {
        "template": TEMPLATE,
        "colorway": list(OKABE_ITO),
        "title": {"text": title},
        # the legend at the bottom of the figure, under the axis title, with room for two rows
        "margin": MARGIN | {"b": LEGEND_BOTTOM_PX},
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"},
        "xaxis": {"title": {"text": x_title}, "ticklabelstandoff": STANDOFF_PX},
        "yaxis": {"title": {"text": y_title}},
    } | extra


def dot_histograms(
    samples: Mapping[str, np.ndarray], *, title: str, x_title: str, y_title: str
) -> go.Figure:
    """Overlaid histograms (probability density), one per named sample (e.g. 'd_k = 64')."""
    trace = {"type": "histogram", "histnorm": "probability density", "opacity": 0.55, "nbinsx": 60}
    hover = "%{x}" + label_separator() + "%{y:.3f}"
    layout = _layout(title, x_title, y_title, barmode="overlay")
    return figure({"data": _traces(samples, trace, hover), "layout": layout})


def lines_over_dims(
    dims: Sequence[int],
    series: Mapping[str, np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
) -> go.Figure:
    """One line per named series over the widths ``dims`` (log-2 x axis)."""
    sep = label_separator()
    trace = {"type": "scatter", "mode": "lines+markers", "x": list(dims)}
    hover = f"{x_title}{sep}%{{x}}<br>{y_title}{sep}%{{y:.3f}}"
    ticks = {
        "type": "log",
        "tickmode": "array",
        "tickvals": list(dims),
        "ticktext": list(map(str, dims)),
    }
    layout = _layout(title, x_title, y_title)
    layout["xaxis"] |= ticks
    return figure({"data": _traces(series, trace, hover), "layout": layout})


def grouped_bars(
    groups: Sequence[str], series: Mapping[str, np.ndarray], *, title: str, y_title: str
) -> go.Figure:
    """Bars of several named series side by side over the labelled ``groups``."""
    trace = {"type": "bar", "x": escape(list(groups))}
    hover = "%{x}" + label_separator() + "%{y:.3f}"
    layout = _layout(title, "", y_title, barmode="group")
    layout["xaxis"]["type"] = "category"
    return figure({"data": _traces(series, trace, hover), "layout": layout})


def entropy_heatmap(
    entropy: ArrayLike,
    *,
    title: str,
    zmax: float,
    axis_names: tuple[str, str],
    value_name: str,
) -> go.Figure:
    """Entropy per head (L, H) as a heatmap with a head per row and a layer per column, both
    numbered from 1 (``axis_names``: the names of heads and layers), each cell with its number
    at a size that fits it; ``layout.width`` is what the cells need."""
    z = as_matrix(entropy, "entropy").T  # (H, L)
    heads, layers = (list(map(str, range(1, n + 1))) for n in z.shape)
    fig = matrix_heatmap(
        z,
        layers,
        heads,
        title=title,
        zmin=0.0,
        zmax=zmax,
        show_values=True,
        axis_names=axis_names,
        value_name=value_name,
    )
    margin = fig.layout.margin
    fig.update_traces(textfont={"size": 12})
    title_beside_colorbar(fig)
    return fig.update_layout(
        width=margin.l + margin.r + NUMBER_CELL_PX * z.shape[1],
        height=margin.t + margin.b + ROW_PX * z.shape[0],
        xaxis={"tickangle": 0},
    )
