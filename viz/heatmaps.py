"""Heatmaps of attention weights, differences and similarity matrices (pure plotly, no streamlit)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import N_, _, pgettext
from viz._checks import HOVER_CELL_LIMIT, MARGIN, as_matrix, check_labels, escape
from viz.axes import token_axis
from viz.figure import figure
from viz.measure import (
    TICK_FONT_PX,
    Y_TICKS_PAD_PX,
    cells_extent,
    colorbar_px,
    fitted_margin,
    text_px,
    widest_px,
    x_tick_angle,
    x_ticks_height,
)

SEQUENTIAL = "Blues"
DIVERGING = "RdBu"
SMALL_MATRIX_CELLS = 144  # per-cell numbers are drawn up to 12 x 12
ROW_PX = 24  # a token row of a heatmap: a horizontal label of the 12 px font and its spacing
COLUMN_PX = 16  # a token column: a vertical label of the 12 px font (13.4 px tall) and a gap
TITLE_SCALE = 1.4  # plotly draws a figure's title at 1.4 times the figure's font
AXIS_TITLE_STANDOFF_PX = 6  # between an axis's tick labels and its title (within AXIS_TITLE_PX)
# The default names of the rows, the columns and the values (translated where shown).
QUERY, KEY, WEIGHT, DIFFERENCE = N_("query"), N_("key"), N_("weight"), N_("difference")


def label_separator() -> str:
    """What comes between a name and its value in hover text ('query: cat'; Chinese '：')."""
    # i18n: between a name and its value in a chart's hover text, e.g. "query: cat"
    return pgettext("name-value separator", ": ")


def _hover_text(
    y_labels: list[str], x_labels: list[str], z: np.ndarray, names: tuple[str, str], value: str
) -> list[list[str]]:
    """Per-cell hover strings 'query: a<br>key: b<br>weight: 0.123' as a (T_q, T_k) list (names
    and separator in the current language)."""
    ys, xs = escape(y_labels), escape(x_labels)
    sep = label_separator()
    return [
        [
            f"{names[0]}{sep}{ys[i]}<br>{names[1]}{sep}{xs[j]}<br>{value}{sep}{z[i, j]:.3f}"
            for j in range(len(xs))
        ]
        for i in range(len(ys))
    ]


def matrix_heatmap(
    matrix: ArrayLike,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    *,
    title: str = "",
    show_values: bool | None = None,
    colorscale: str = SEQUENTIAL,
    zmin: float | None = None,
    zmax: float | None = None,
    zmid: float | None = None,
    axis_names: tuple[str, str] | None = None,
    value_name: str | None = None,
) -> go.Figure:
    """A (rows, cols) matrix as a heatmap; rows top-to-bottom, columns left-to-right.

    ``axis_names`` (rows, columns) and ``value_name`` are shown as they are (pass translated
    text); by default 'query', 'key' and 'weight' in the current language. Integer positions with
    tick text keep duplicate tokens apart. Raises ValueError when the label counts do not match
    the matrix shape.
    """
    axis_names = axis_names or (_(QUERY), _(KEY))
    value_name = _(WEIGHT) if value_name is None else value_name
    z = as_matrix(matrix)
    n_rows, n_cols = z.shape
    ys = check_labels(y_labels, n_rows, f"y labels ({axis_names[0]}) vs {n_rows} rows")
    xs = check_labels(x_labels, n_cols, f"x labels ({axis_names[1]}) vs {n_cols} columns")
    trace = {
        "type": "heatmap",
        "z": z,
        "x": np.arange(n_cols),
        "y": np.arange(n_rows),
        "colorscale": colorscale,
        "zmin": zmin,
        "zmax": zmax,
        "zmid": zmid,
        "colorbar": {"title": {"text": value_name}},
    } | cell_hover(ys, xs, z, axis_names, value_name)
    if show_values is None:
        show_values = z.size <= SMALL_MATRIX_CELLS
    if show_values:
        trace["texttemplate"] = "%{z:.2f}"
    plain = (x_labels is None, y_labels is None)
    layout = {"title": {"text": title}} | _matrix_layout(xs, ys, plain, axis_names, value_name)
    # plain dicts (viz.figure): pages redraw heatmaps on every edit
    return figure({"data": [trace], "layout": layout})


def cell_hover(
    ys: list[str], xs: list[str], z: np.ndarray, names: tuple[str, str], value: str
) -> dict:
    """The hover entries of a heatmap trace of ``z`` with row labels ``ys`` and column labels
    ``xs``: a string per cell up to HOVER_CELL_LIMIT cells, else a template that names the row
    and column by position (``names``: the rows' and columns' names; ``value``: the cells')."""
    if z.size <= HOVER_CELL_LIMIT:
        return {
            "customdata": _hover_text(ys, xs, z, names, value),
            "hovertemplate": "%{customdata}<extra></extra>",
        }
    sep = label_separator()
    return {
        "hovertemplate": f"{names[0]} #%{{y}}<br>{names[1]} #%{{x}}<br>"
        f"{value}{sep}%{{z:.3f}}<extra></extra>"
    }


def _matrix_layout(
    xs: list[str],
    ys: list[str],
    plain: tuple[bool, bool],
    axis_names: tuple[str, str],
    value_name: str,
) -> dict:
    """The axes and margins of ``matrix_heatmap`` (``plain``: (x, y) axes without labels show
    positions); rows read top to bottom."""
    (xaxis, shown_x), (yaxis, shown_y) = (
        _matrix_axis(xs, axis_names[1], plain=plain[0]),
        _matrix_axis(ys, axis_names[0], plain=plain[1]),
    )
    margin, angle = fitted_margin(shown_x, shown_y, colorbar_title=value_name)
    return {
        "margin": margin,
        "xaxis": xaxis | {"tickangle": angle},
        "yaxis": yaxis | {"autorange": "reversed"},
    }


def _matrix_axis(labels: list[str], name: str, *, plain: bool) -> tuple[dict, list[str]]:
    """One axis of ``matrix_heatmap``: every token on its tick (:func:`viz.axes.token_axis`), or
    plain numbers for positions. Returns (axis layout, the labels it shows, for the margins)."""
    if plain:  # plotly picks a few round positions
        return {"title": {"text": name}}, (["-0.5", str(len(labels) - 1)] if labels else [])
    return token_axis(escape(labels), title=axis_title(name)), labels


def axis_title(text: str) -> dict:
    """An axis title under (or beside) every one of its axis's tick labels: without a standoff
    plotly placed it as if vertical labels were one line high, among the longer ones."""
    return {"text": text, "standoff": AXIS_TITLE_STANDOFF_PX}


def title_width(title: str) -> int:
    """The least width in px of a figure whose title is ``title`` (one line), so that the title
    is not cut at the figure's edges."""
    return math.ceil(text_px(title, TITLE_SCALE * TICK_FONT_PX)) + 40


def fit_cells(
    fig: go.Figure,
    n_rows: int,
    n_cols: int,
    *,
    row_px: int = ROW_PX,
    column_px: int = COLUMN_PX,
    min_height: int = 360,
) -> go.Figure:
    """Size a heatmap drawn with its final margins so that every row is ``row_px`` tall (at least
    ``min_height`` in all) and every column at least ``column_px`` wide: ``layout.width`` is the
    width the columns (and the title) need; ``ui.charts`` lets a wider chart scroll. Changes
    ``fig``; returns it."""
    margin = fig.layout.margin
    height = cells_extent(n_rows, margin.t or 0, margin.b or 0, row_px)
    width = cells_extent(n_cols, margin.l or 0, margin.r or 0, column_px)
    title = fig.layout.title.text or ""
    return fig.update_layout(height=max(min_height, height), width=max(width, title_width(title)))


def diff_heatmap(
    difference: ArrayLike,
    x_labels: Sequence[str] | None,
    y_labels: Sequence[str] | None,
    *,
    title: str = "",
    show_values: bool | None = None,
    colorscale: str = DIVERGING,
) -> go.Figure:
    """A difference of two weight matrices (T_q, T_k) on a diverging scale centred at 0."""
    return signed_heatmap(
        as_matrix(difference, "difference"),
        x_labels,
        y_labels,
        title=title,
        show_values=show_values,
        colorscale=colorscale,
        value_name=_(DIFFERENCE),
    )


def signed_heatmap(
    matrix: ArrayLike,
    x_labels: Sequence[str] | None,
    y_labels: Sequence[str] | None,
    *,
    bound: float | None = None,
    colorscale: str = DIVERGING,
    **options: Any,
) -> go.Figure:
    """Signed values (rows, cols) on a diverging scale centred at 0, from -``bound`` to ``bound``
    (default: the largest absolute value); ``options`` (title, show_values, axis_names,
    value_name) go to :func:`matrix_heatmap`."""
    z = as_matrix(matrix)
    if bound is None:
        bound = max(1e-12, float(np.abs(z).max())) if z.size else 1.0
    return matrix_heatmap(
        z, x_labels, y_labels, colorscale=colorscale, zmin=-bound, zmax=bound, zmid=0.0, **options
    )


def _panel_domains(index: int, rows: int, cols: int, gap: float = 0.12) -> tuple[list, list]:
    """x and y domains of panel ``index`` in a rows x cols grid filled row by row from the top."""
    row, col = divmod(index, cols)
    width, height = (1 - gap * (cols - 1)) / cols, (1 - gap * (rows - 1)) / rows
    x0 = col * (width + gap)
    y1 = 1 - row * (height + gap)

    def clamp(v: float) -> float:
        return min(1.0, max(0.0, round(v, 6)))

    return [clamp(x0), clamp(x0 + width)], [clamp(y1 - height), clamp(y1)]


class _Panel(NamedTuple):
    """One panel of ``attention_panels``: layout pieces and its checked (unescaped) labels."""

    trace: dict
    xaxis: dict
    yaxis: dict
    title: dict
    x_labels: list[str]
    y_labels: list[str]


def _panel(
    index: int, panel: tuple[ArrayLike, Sequence[str], Sequence[str], str], grid: tuple[int, int]
) -> _Panel:
    """Panel ``index`` of a (rows, cols) ``grid``: its heatmap trace, axes, title and labels."""
    weights, x_labels, y_labels, panel_title = panel
    z = as_matrix(weights)
    ys = check_labels(y_labels, z.shape[0], f"panel {index + 1}: y labels vs {z.shape[0]} rows")
    xs = check_labels(x_labels, z.shape[1], f"panel {index + 1}: x labels vs {z.shape[1]} columns")
    suffix = "" if index == 0 else str(index + 1)
    trace = {
        "type": "heatmap",
        "z": z,
        "x": list(range(z.shape[1])),
        "y": list(range(z.shape[0])),
        "xaxis": f"x{suffix}",
        "yaxis": f"y{suffix}",
        "coloraxis": "coloraxis",
        "customdata": _hover_text(ys, xs, z, (_(QUERY), _(KEY)), _(WEIGHT)),
        "hovertemplate": "%{customdata}<extra></extra>",
        "texttemplate": "%{z:.2f}" if z.size <= SMALL_MATRIX_CELLS else None,
    }
    x_domain, y_domain = _panel_domains(index, *grid)
    xaxis = token_axis(escape(xs), angle=x_tick_angle(xs), domain=x_domain, anchor=f"y{suffix}")
    yaxis = token_axis(escape(ys), top_down=True, domain=y_domain, anchor=f"x{suffix}")
    text = escape([panel_title])[0].replace("\n", "<br>")  # a newline starts a second line
    title = {
        "text": text,
        "x": sum(x_domain) / 2,
        "y": y_domain[1],
        "xref": "paper",
        "yref": "paper",
        "showarrow": False,
        "xanchor": "center",
        "yanchor": "bottom",
    }
    return _Panel(trace, xaxis, yaxis, title, xs, ys)


def attention_panels(
    panels: Sequence[tuple[ArrayLike, Sequence[str], Sequence[str], str]],
    *,
    cols: int = 2,
    title: str = "",
    colorscale: str = SEQUENTIAL,
) -> go.Figure:
    """Several attention maps in one figure (one draw in the browser instead of several).

    panels: (weights (T_q, T_k), key labels, query labels, panel title, where a newline starts a
    second line), filled row by row;
    each panel keeps its own tokens on the ticks and the per-cell hover of ``matrix_heatmap``.
    When every panel is small enough to print its numbers in the cells, the colour bar is left out
    (the numbers say more, and the figure draws faster). Built as plain dicts (:mod:`viz.figure`):
    this runs on every edit of the sentence.
    """
    rows = max(1, -(-len(panels) // cols))
    traces, layout, titles = [], {}, []
    left, bottom = 0, 28  # margins that fit the first column's and the last row's tick labels
    for index, panel in enumerate(panels):
        p = _panel(index, panel, (rows, cols))
        suffix = "" if index == 0 else str(index + 1)
        traces.append(p.trace)
        titles.append(p.title)
        layout[f"xaxis{suffix}"], layout[f"yaxis{suffix}"] = p.xaxis, p.yaxis
        left = max(left, widest_px(p.y_labels) + Y_TICKS_PAD_PX) if index % cols == 0 else left
        if index // cols == rows - 1:
            bottom = x_ticks_height(p.x_labels, p.xaxis["tickangle"])
    numbers = all(trace["texttemplate"] for trace in traces)
    margin = {
        "l": left,
        "b": bottom,
        "t": MARGIN["t"],
        "r": 20 if numbers else colorbar_px(_(WEIGHT)),
    }
    layout.update(
        annotations=titles,
        title={"text": title},
        margin=margin,
        coloraxis={
            "colorscale": colorscale,
            "cmin": 0.0,
            "cmax": 1.0,
            "showscale": not numbers,
            "colorbar": {"title": {"text": _(WEIGHT)}},
        },
    )
    return figure({"data": traces, "layout": layout})
