"""Charts of the Recurrent networks page (pure plotly, no streamlit): an encoder's hidden states
or gates as a units x tokens heatmap, and lines over the tokens of a sentence (the mean gate per
word, the gradient norm per position, log scale). Every token keeps its label; cells are at least
14 px (the figure asks for the width they need and ui/charts lets it scroll). Names and titles
are shown as they are: pass translated text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from viz._checks import as_matrix, check_labels, escape
from viz.axes import token_axis
from viz.figure import figure
from viz.heatmaps import (
    ROW_PX,
    fit_cells,
    label_separator,
    matrix_heatmap,
    signed_heatmap,
    title_width,
)
from viz.measure import cells_extent, fitted_margin, legend_below, number_labels
from viz.palette import BLACK, BLUE, BLUISH_GREEN, ORANGE, REDDISH_PURPLE, SKY_BLUE, VERMILLION
from viz.titles import left_title
from viz.token_rows import token_rows_figure

# Okabe-Ito's but yellow, too faint as a thin line on white
PALETTE = (BLUE, VERMILLION, BLUISH_GREEN, REDDISH_PURPLE, ORANGE, SKY_BLUE, BLACK)
DASHES = ("solid", "dash", "dot", "dashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "star")
UNIT_ROW_PX = 16  # a unit's row: its index, a short horizontal label
TOKEN_PX = 22  # a token's place on a line chart's x axis (a vertical label and room around it)


def units_heatmap(
    values: ArrayLike,
    tokens: Sequence[str],
    units: Sequence[int],
    *,
    title: str,
    axis_names: tuple[str, str],
    value_name: str,
    signed: bool,
    across: bool = True,
) -> go.Figure:
    """``values`` (T, U): one column per token, one row per unit (labelled with its index in
    ``units``). ``signed``: a diverging scale from -1 to 1 (hidden states, tanh), else a
    sequential one from 0 to 1 (gates, σ). ``axis_names``: (units, tokens). ``across`` False:
    the tokens down the rows, the units across (a long sentence, whose tokens would not fit
    across the page)."""
    z = as_matrix(values).T  # (U, T): rows are units
    check_labels(tokens, z.shape[1], "tokens")
    units_labels = [str(u) for u in units]
    x_labels, y_labels = list(tokens), units_labels
    if not across:
        z = z.T  # (T, U): rows are tokens
        x_labels, y_labels, axis_names = units_labels, list(tokens), axis_names[::-1]
    options = {"title": title, "axis_names": axis_names, "value_name": value_name}
    if signed:
        fig = signed_heatmap(z, x_labels, y_labels, bound=1.0, show_values=False, **options)
    else:
        fig = matrix_heatmap(
            z, x_labels, y_labels, zmin=0.0, zmax=1.0, show_values=False, **options
        )
    row_px = UNIT_ROW_PX if across else ROW_PX
    return fit_cells(fig, z.shape[0], z.shape[1], row_px=row_px, min_height=300)


def _log_axis(series: Mapping[str, ArrayLike]) -> dict:
    """A log y axis with one labelled tick per power of ten (or of 10^k when the values span
    many decades): plotly's 2 and 5 between the powers are drawn small and crowd the labels."""
    arrays = [np.ravel(np.asarray(v, dtype=float)) for v in series.values()]
    values = np.concatenate([*arrays, np.ones(1)])
    values = np.maximum(values[np.isfinite(values)], 1e-12)
    decades = np.log10(values.max()) - np.log10(values.min())
    return {"type": "log", "exponentformat": "power", "dtick": max(1, int(np.ceil(decades / 8)))}


def _dash(index: int, every: int) -> str:
    return DASHES[index // every % len(DASHES)] if every else "solid"


def _line(
    i: int,
    name: str,
    values: ArrayLike,
    ticks: list[str],
    *,
    log: bool,
    digits: str,
    dash_every: int,
) -> dict:
    """The ``i``-th series as a line over the token positions (``ticks``: the escaped tokens)."""
    y = np.asarray(values, dtype=float).ravel()
    if y.size != len(ticks):
        raise ValueError(f"{name}: {y.size} values for {len(ticks)} tokens")
    label = escape([name])[0]
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "x": list(range(len(ticks))),
        "y": np.maximum(y, 1e-12) if log else y,
        "name": label,
        "line": {"color": PALETTE[i % len(PALETTE)], "dash": _dash(i, dash_every)},
        "marker": {"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 7},
        "customdata": ticks,
        "hovertemplate": f"%{{customdata}}{label_separator()}%{{y:{digits}}}<extra>{label}</extra>",
    }


def token_lines(
    tokens: Sequence[str],
    series: Mapping[str, ArrayLike],
    *,
    title: str,
    x_title: str,
    y_title: str,
    log: bool = False,
    y_range: tuple[float, float] | None = None,
    digits: str = ".3f",
    dash_every: int = 0,
    across: bool = True,
) -> go.Figure:
    """One line per named series over the positions of ``tokens`` (every token labelled on the x
    axis); ``log``: a logarithmic y axis (values below 1e-12 drawn at 1e-12); ``dash_every``: the
    series come in groups of this many, each group with its own dash (0: all solid); ``across``
    False: turned on its side, the tokens down the y axis (``viz.token_rows``: a long sentence)."""
    n = len(tokens)
    ticks = escape(check_labels(tokens, n, "tokens"))
    traces = [
        _line(i, name, values, ticks, log=log, digits=digits, dash_every=dash_every)
        for i, (name, values) in enumerate(series.items())
    ]
    value_labels = number_labels([np.zeros(1)] if log else series.values())
    yaxis: dict = {"title": {"text": y_title}}
    if log:
        yaxis |= _log_axis(series)
    if y_range is not None:
        yaxis["range"] = list(y_range)
    if not across:
        return token_rows_figure(
            traces,
            ticks,
            title=title,
            token_title=x_title,
            value_axis=yaxis,
            value_labels=value_labels,
        )
    margin, angle = fitted_margin(ticks, value_labels)
    legend = legend_below(margin)
    layout = {
        "template": "plotly_white",
        "title": left_title(title),
        "xaxis": token_axis(ticks, angle=angle, title={"text": x_title}),
        "yaxis": yaxis,
        "hovermode": "closest",
        "height": 380 + legend["margin"]["b"] - margin["b"],
    } | legend
    fig = figure({"data": traces, "layout": layout})
    m = legend["margin"]
    fig.update_layout(width=max(cells_extent(n, m["l"], m["r"], TOKEN_PX), title_width(title)))
    return fig
