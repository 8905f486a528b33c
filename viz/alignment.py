"""Figures for the Alignment page, and the heatmap the other translation pages build on (pure
plotly, no streamlit, no torch).

Alignment heatmaps and their difference, alignment lines between two sentences (Bahdanau et al.
2015, Fig. 3; Seq2Seq-Vis), per-row entropy and token probabilities; the local heatmap with its
p_t path is in :mod:`viz.local_heatmap`. Every token keeps its label: charts grow with the
sentence (``viz.heatmaps.fit_cells``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import N_, _
from viz._checks import as_matrix, check_labels, escape
from viz.axes import token_axis
from viz.describe import matrix_words
from viz.figure import figure
from viz.heatmaps import (
    COLUMN_PX,
    ROW_PX,
    SMALL_MATRIX_CELLS,
    cell_hover,
    fit_cells,
    matrix_heatmap,
    signed_heatmap,
    title_width,
)
from viz.hover_link import HIGHLIGHT_PX, HoverLink
from viz.measure import (
    AXIS_TITLE_PX,
    COLORBAR_THICKNESS_PX,
    Y_TICKS_PAD_PX,
    cells_extent,
    widest_px,
)
from viz.palette import BLUE, VERMILLION

LINE_BINS = 8  # alignment lines are grouped into this many opacity/width classes (one trace each)
INK = BLUE  # the weights' lines and bars
ACCENT = VERMILLION  # what stands out: a hovered line, a target, a weak probability
_MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}
LABEL_GAP_PX = 16  # between a token column's dot and the plot's edge, besides the label
ENTROPY_COLUMN_PX = 56  # a column of entropies: room for "1.23" in the cell
NUMBER_COLUMN_PX = 40  # a column of a small map, which prints "−0.25" in each cell
PLOT_PX = 200  # the least width of a bar chart's plot area
# a row of an alignment in words (viz.describe): the French word and where it looks
ALIGNMENT_ROW = N_(
    "When the model writes “{row}”, most weight is on “{first}” ({v1}), then “{second}” ({v2})."
)
COLORBAR_SIDE_TITLE_PX = 114  # right margin: a colour bar, its ticks (−0.85) and its title beside
# (with COLORBAR_THICKNESS_PX, 14 px less than plotly's default bar needs: Local attention's two
# maps fit side by side at their least widths; 1280x720 classroom and 1280x800 hid 7-17 px of them)


def alignment_heatmap(
    weights: ArrayLike,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    *,
    title: str = "",
    zmax: float | None = None,
    colorbar: bool = True,
    numbers: bool | None = None,
) -> go.Figure:
    """Weights (T_out, T_src) as a heatmap: target tokens as rows (top to bottom), source tokens as
    columns (left to right), colour scale from 0 to ``zmax`` (default: the largest weight; 1.0
    puts several maps on one scale, whose colour bar the page may leave out with ``colorbar``);
    hover shows both tokens and the weight. Every token keeps its label: rows are ``ROW_PX`` tall
    and ``layout.width`` gives each column ``COLUMN_PX``, or ``NUMBER_COLUMN_PX`` where the cells
    print their weights (``numbers``; by default a small map's do)."""
    z = as_matrix(weights)
    if zmax is None:
        zmax = max(1e-12, float(z.max())) if z.size else 1.0
    if numbers is None:
        numbers = z.size <= SMALL_MATRIX_CELLS
    fig = matrix_heatmap(
        z,
        source_tokens,
        target_tokens,
        title=title,
        zmin=0.0,
        zmax=zmax,
        axis_names=_alignment_axes(),
        value_name=_("weight"),
        show_values=numbers,
    )
    if colorbar:
        _title_beside_colorbar(fig)
    else:
        fig.update_traces(showscale=False)
        fig.update_layout(margin={"r": 20})
    fig.update_layout(meta={"atlas": {"row": ALIGNMENT_ROW}})  # its rows in words (viz.describe)
    return fit_cells(fig, *z.shape, column_px=NUMBER_COLUMN_PX if numbers else COLUMN_PX)


def _alignment_axes() -> tuple[str, str]:
    """The names of an alignment map's rows and columns, in the current language."""
    return _("target"), _("source")


def alignment_cells(
    weights: ArrayLike, source_tokens: Sequence[str], target_tokens: Sequence[str]
) -> dict:
    """What changes in :func:`alignment_heatmap`'s trace when only the weights (T_out, T_src)
    change: ``z`` and the cells' hover text (a frame of an animated map)."""
    z = as_matrix(weights)
    tgt = check_labels(target_tokens, z.shape[0], f"target tokens vs {z.shape[0]} rows")
    src = check_labels(source_tokens, z.shape[1], f"source tokens vs {z.shape[1]} columns")
    return {"z": z} | cell_hover(tgt, src, z, _alignment_axes(), _("weight"))


def _column_px(z: np.ndarray) -> int:
    """A column's least width: room for its cells' numbers where a small map prints them."""
    return NUMBER_COLUMN_PX if z.size <= SMALL_MATRIX_CELLS else COLUMN_PX


def _title_beside_colorbar(fig: go.Figure) -> None:
    """The colour bar's title along the bar's right side: on top, it met the top tick's label
    whenever the largest value was just above a round number (0.83 and its tick 0.8)."""
    fig.update_traces(colorbar_title_side="right", colorbar_thickness=COLORBAR_THICKNESS_PX)
    fig.update_layout(margin={"r": COLORBAR_SIDE_TITLE_PX})


def alignment_difference(
    difference: ArrayLike,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    *,
    title: str = "",
) -> go.Figure:
    """A difference of two alignments (T_out, T_src) on a diverging scale centred at 0, rows and
    columns labelled and sized like :func:`alignment_heatmap`."""
    z = as_matrix(difference, "difference")
    bound = max(1e-12, float(np.abs(z).max())) if z.size else 1.0
    fig = signed_heatmap(
        z,
        source_tokens,
        target_tokens,
        bound=bound,
        title=title,
        axis_names=(_("target"), _("source")),
        value_name=_("difference"),
    )
    _title_beside_colorbar(fig)
    return fit_cells(fig, *z.shape, column_px=_column_px(z))


def _checked(weights: ArrayLike, src: Sequence[str], tgt: Sequence[str]) -> tuple:
    """(matrix, escaped source labels, escaped target labels) with the shapes checked."""
    z = as_matrix(weights)
    xs = escape(check_labels(src, z.shape[1], f"source labels vs {z.shape[1]} columns"))
    ys = escape(check_labels(tgt, z.shape[0], f"target labels vs {z.shape[0]} rows"))
    return z, xs, ys


def _line_bins(z: np.ndarray, threshold: float) -> list[list[tuple[int, int, float]]]:
    """Cells with weight >= threshold, grouped by weight into LINE_BINS classes (light to dark)."""
    bins: list[list[tuple[int, int, float]]] = [[] for __ in range(LINE_BINS)]
    for i, j in zip(*np.nonzero(z >= max(threshold, 1e-9)), strict=True):
        w = float(z[i, j])
        bins[min(LINE_BINS - 1, int(w * LINE_BINS))].append((int(i), int(j), w))
    return bins


def alignment_lines(
    weights: ArrayLike,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    *,
    threshold: float = 0.1,
    title: str = "",
) -> go.Figure:
    """The alignment as lines from each source token (left column) to each target token (right
    column), both read top to bottom; line width and opacity grow with the weight. Weights below
    ``threshold`` are not drawn. Hover on a line's midpoint shows both tokens and the weight."""
    z, xs, ys = _checked(weights, source_tokens, target_tokens)
    n_src, n_tgt = len(xs), len(ys)
    span = max(n_src, n_tgt, 2) - 1
    y_src = [j * span / max(n_src - 1, 1) for j in range(n_src)]
    y_tgt = [i * span / max(n_tgt - 1, 1) for i in range(n_tgt)]
    traces = [
        *_lines(z, (xs, ys), (y_src, y_tgt), threshold),
        _token_column(0.0, y_src, xs, "left", "source"),
        _token_column(1.0, y_tgt, ys, "right", "target"),
    ]
    # the x range [-1, 2] gives each column of labels a third of the plot's width
    label_px = max(widest_px(xs), widest_px(ys)) + LABEL_GAP_PX
    layout = {
        "title": {"text": title},
        "margin": _MARGIN,
        "height": max(320, 22 * span + 100),
        "width": max(3 * label_px + _MARGIN["l"] + _MARGIN["r"], title_width(title)),
        "xaxis": {"visible": False, "range": [-1.0, 2.0]},
        "yaxis": {"visible": False, "autorange": "reversed"},
        "meta": {"atlas": matrix_words(z, ys, xs, ALIGNMENT_ROW)},  # in words: viz.describe
    }
    return figure({"data": traces, "layout": layout})


def alignment_lines_link(fig: go.Figure, group: str) -> HoverLink:
    """The part in hover link ``group`` of ``fig`` (:func:`alignment_lines`), linked to the
    :func:`alignment_heatmap` of the same weights, whose rows (the queries) are the target tokens
    (the right column) and whose columns (the keys) are the source tokens (the left column).
    ValueError if ``fig`` has no token columns."""
    mode = [getattr(trace, "mode", None) for trace in fig.data]
    columns = {t.name: t for t, m in zip(fig.data, mode, strict=True) if m == "markers+text"}
    if not {"source", "target"} <= set(columns):
        raise ValueError("not an alignment's lines: no token columns (alignment_lines)")
    source, target = columns["source"], columns["target"]
    return HoverLink(
        group,
        "lines",
        n_queries=len(target.y),
        n_keys=len(source.y),
        linked=tuple(n for n, m in enumerate(mode) if m == "lines"),
        colour=ACCENT,
        width=HIGHLIGHT_PX,
        query_x=1,
        query_y=tuple(float(y) for y in target.y),
        key_y=tuple(float(y) for y in source.y),
    )


def _lines(
    z: np.ndarray,
    labels: tuple[list[str], list[str]],
    heights: tuple[list[float], list[float]],
    threshold: float,
) -> list[dict]:
    """The lines of ``alignment_lines``: one trace per weight class (LINE_BINS), then invisible
    markers at the lines' midpoints that carry the hover text. ``labels`` and ``heights`` are
    (source, target) token labels and their y positions."""
    (xs, ys), (y_src, y_tgt) = labels, heights
    traces: list[dict] = []
    mids: tuple[list[float], list[float], list[str]] = ([], [], [])
    hover = _("source: {source}<br>target: {target}<br>weight: {weight:.3f}")
    for b, cells in enumerate(_line_bins(z, threshold)):
        if not cells:
            continue
        lx: list[float | None] = []
        ly: list[float | None] = []
        for i, j, w in cells:
            lx += [0.0, 1.0, None]
            ly += [y_src[j], y_tgt[i], None]
            mids[0].append(0.5)
            mids[1].append((y_src[j] + y_tgt[i]) / 2)
            mids[2].append(hover.format(source=xs[j], target=ys[i], weight=w))
        traces.append(_bin_trace(lx, ly, (b + 1) / LINE_BINS))
    return [*traces, _midpoints(*mids)]


def _bin_trace(lx: list[float | None], ly: list[float | None], level: float) -> dict:
    """The lines of one weight class; ``level`` in (0, 1] sets their width and opacity."""
    return {
        "type": "scatter",
        "x": lx,
        "y": ly,
        "mode": "lines",
        "hoverinfo": "skip",
        "showlegend": False,
        "line": {"color": INK, "width": 0.5 + 6 * level},
        "opacity": 0.15 + 0.85 * level,
    }


def _midpoints(x: list[float], y: list[float], hover: list[str]) -> dict:
    """Invisible markers at the lines' midpoints, with each line's hover text."""
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "markers",
        "showlegend": False,
        "marker": {"size": 6, "opacity": 0},
        "customdata": hover,
        "name": "weights",
        "hovertemplate": "%{customdata}<extra></extra>",
    }


def _token_column(x: float, ys: list[float], labels: list[str], side: str, name: str) -> dict:
    """One sentence (``name``: "source" or "target") as a column of dots with its tokens written
    beside them."""
    hover = _("source: %{text}") if name == "source" else _("target: %{text}")
    return {
        "type": "scatter",
        "x": [x] * len(ys),
        "y": ys,
        "mode": "markers+text",
        "text": labels,
        "textposition": f"middle {side}",
        "name": name,
        "showlegend": False,
        "marker": {"size": 7, "color": ACCENT if name == "target" else INK},
        "hovertemplate": hover + "<extra></extra>",
    }


def weights_row_entropy(weights: ArrayLike) -> np.ndarray:
    """Entropy in bits of each row of (T_out, T_src) weights: 0 = all on one token, log2 T_src = flat."""
    z = np.clip(as_matrix(weights), 0.0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(z > 0, -z * np.log2(z), 0.0)
    return terms.sum(axis=1)


def _row_layout(tokens: list[str], x_title: str, title: str) -> dict:
    """The layout of a chart with one row per target token (top to bottom, each labelled, rows
    ``ROW_PX`` tall) and values along x."""
    margin = {"l": widest_px(tokens) + Y_TICKS_PAD_PX, "r": 40, "t": 60, "b": 28 + AXIS_TITLE_PX}
    return {
        "title": {"text": title},
        "margin": margin,
        "height": max(200, cells_extent(len(tokens), margin["t"], margin["b"], ROW_PX)),
        "width": max(PLOT_PX + margin["l"] + margin["r"], title_width(title)),
        "showlegend": False,
        "xaxis": {"title": {"text": x_title}},
        "yaxis": token_axis(escape(tokens), top_down=True),
    }


def entropy_heatmap(
    weights_by_name: Mapping[str, ArrayLike], target_tokens: Sequence[str], *, title: str = ""
) -> go.Figure:
    """Per-row entropy (bits) of each named weight matrix (T_out, T_src): one row per target token
    (as in the heatmaps beside it), one column per name, the number in each cell; the colour runs
    from 0 (all weight on one token) to log2 T_src (a flat row)."""
    columns = []
    for name, w in weights_by_name.items():
        h = weights_row_entropy(w)
        if h.size != len(target_tokens):
            raise ValueError(f"{name}: {h.size} rows but {len(target_tokens)} target tokens")
        columns.append(h)
    n_src = max((as_matrix(w).shape[1] for w in weights_by_name.values()), default=2)
    z = np.stack(columns, axis=1) if columns else np.zeros((len(target_tokens), 0))
    fig = matrix_heatmap(
        z,
        list(weights_by_name),
        target_tokens,
        title=title,
        show_values=True,
        zmin=0.0,
        zmax=float(np.log2(max(n_src, 2))),
        axis_names=(_("target"), _("model")),
        value_name=_("entropy (bits)"),
    )
    fig.update_traces(showscale=False)  # the numbers are in the cells
    fig.update_layout(margin={"r": 20})
    return fit_cells(fig, *z.shape, column_px=ENTROPY_COLUMN_PX, min_height=200)


def token_prob_bars(
    probs: ArrayLike, target_tokens: Sequence[str], *, low: float = 0.1, title: str = ""
) -> go.Figure:
    """The probability the model gave each target token, one labelled row per token (top to
    bottom, as in the heatmap) with its number; those below ``low`` in orange, left of the dashed
    line at ``low``."""
    p = np.asarray(probs, dtype=float).ravel()
    tokens = check_labels(target_tokens, p.size, f"target tokens vs {p.size} probabilities")
    bars = {
        "type": "bar",
        "orientation": "h",
        "x": p,
        "y": list(range(p.size)),
        "marker": {"color": [ACCENT if v < low else INK for v in p]},
        "customdata": escape(tokens),
        "text": [f"{v:.3f}" for v in p],  # three decimals, as the step inspector's numbers
        "textposition": "outside",
        "constraintext": "none",  # the numbers keep their size (they sit right of the bars)
        "cliponaxis": False,
        "hovertemplate": "%{customdata}: p = %{x:.3f}<extra></extra>",
    }
    low_line = {
        "type": "line",
        "x0": low,
        "x1": low,
        "yref": "paper",
        "y0": 0,
        "y1": 1,
        "line": {"color": ACCENT, "dash": "dash"},
    }
    layout = _row_layout(tokens, _("probability"), title)
    layout["xaxis"] |= {"range": [0, 1.15], "tickvals": [0, low, 0.5, 1.0]}
    layout["shapes"] = [low_line]
    return figure({"data": [bars], "layout": layout})
