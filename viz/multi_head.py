"""Figures of the Multi-head attention page (pure plotly; no streamlit, no torch).

Built as plain dicts (:mod:`viz.figure`), with one heatmap trace per panel and no per-cell strings
beyond 12 x 12, so that one head at 512 x 512 and all 6 x 12 heads at 128 tokens stay light:
numpy float32 arrays travel base64-encoded. Token axes are categorical with the tokens themselves
as categories (repeats made distinct by invisible zero-width spaces), so hover names both tokens
at any size without a string per cell. Titles, axis titles, legends and hover text are in the
session's language (:mod:`i18n`); tokens stay as they are. The head view (lines between tokens)
is in :mod:`viz.multi_head_lines`; the special-token shares are panels of
:func:`viz.head_steps.step_panels`.

Legible on every screen: every token is a tick (tickmode "array"), each cell is at least
14 px (``layout.width``/``height`` are what the cells need; a narrow screen scrolls) and titles are
annotations placed from px (:func:`viz.head_steps.title_annotation`), whole at any width.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import _
from viz._checks import MARGIN, check_labels, escape
from viz.axes import LayoutValue, token_axis
from viz.figure import figure
from viz.head_steps import (
    ZWSP,
    Panel,
    cell_tick_angle,
    step_panels,
    title_annotation,
    title_margin,
    title_width,
    unique_labels,
)
from viz.head_words import head_patterns
from viz.hover_link import OUTLINE, OUTLINE_PX
from viz.measure import (
    AXIS_TITLE_PX,
    COLORBAR_PX,
    MIN_CELL_PX,
    cells_extent,
    widest_px,
    x_ticks_height,
)

SEQUENTIAL = "Blues"
SMALL_MATRIX_CELLS = 144  # per-cell numbers up to 12 x 12
NUMBER_CELL_PX = (36, 22)  # (width, height) of a cell with its number written in it
GRID_SIDE = 128  # overview panels larger than this are pooled to POOLED_SIDE
POOLED_SIDE = 64
POOLED_PERCENTILE = 99  # the top of the pooled overview's colour scale (pooled_colour_max)
GRID_PANEL_MIN_PX = 40  # an overview panel is at least this wide (its tick "h12" fits)
GRID_PANEL_PX = 90  # the height of a row of overview panels (a layer)
COLORBAR_RIGHT_PX = COLORBAR_PX + 16  # a colour bar whose title runs up its right side
GRID_TICKS_PX = 22  # the overview's head ticks ("h1") above its panels
__all__ = ["ZWSP", "unique_labels"]  # re-exported for the tests and the page


def checked_weights(weights: ArrayLike, ndim: int, what: str) -> np.ndarray:
    """``weights`` as float32 with ``ndim`` dimensions, all finite, else ValueError."""
    w = np.asarray(weights, dtype=np.float32)
    if w.ndim != ndim:
        raise ValueError(f"{what} must have {ndim} dimensions, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{what} contain NaN or infinite values")
    return w


def _heatmap_layout(xs: list[str], ys: list[str], title: str, numbers: bool) -> dict:
    """Margins, size and axes of :func:`head_heatmap`: every token a tick, each cell at least
    MIN_CELL_PX (NUMBER_CELL_PX with numbers), the title whole."""
    cell_w, cell_h = NUMBER_CELL_PX if numbers else (MIN_CELL_PX + 1, MIN_CELL_PX + 1)
    angle = cell_tick_angle(xs, cell_w)
    margin = {
        "l": widest_px(ys) + 10 + AXIS_TITLE_PX,
        "r": COLORBAR_RIGHT_PX,
        "t": title_margin(title),
        "b": x_ticks_height(xs, angle) + AXIS_TITLE_PX,
    }
    x, y = unique_labels(xs), unique_labels(ys)
    height = max(300, cells_extent(len(ys), margin["t"], margin["b"], cell_h))
    return {
        "annotations": [title_annotation(title, height - margin["t"] - margin["b"])],
        "margin": margin,
        "width": max(
            cells_extent(len(xs), margin["l"], margin["r"], cell_w), title_width(title, margin)
        ),
        "height": height,
        "xaxis": token_axis(x, category=True, angle=angle, title={"text": _("key"), "standoff": 4}),
        "yaxis": token_axis(
            y, category=True, top_down=True, title={"text": _("query"), "standoff": 4}
        ),
    }


def colorbar(title: str) -> dict:
    """A vertical colour bar with its title along its right side (clear of its tick labels)."""
    return {"title": {"text": title, "side": "right"}}


def head_heatmap_width(
    x_labels: Sequence[str], y_labels: Sequence[str], *, title: str = "", numbers: bool = True
) -> int:
    """The ``layout.width`` :func:`head_heatmap` gives the map of these tokens, without drawing
    it (a page choosing its layout)."""
    xs, ys = [str(x) for x in x_labels], [str(y) for y in y_labels]
    numbers = numbers and len(xs) * len(ys) <= SMALL_MATRIX_CELLS
    return _heatmap_layout(xs, ys, title, numbers)["width"]


def head_heatmap(
    weights: ArrayLike,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    title: str = "",
    numbers: bool = True,
) -> go.Figure:
    """One (T_q, T_k) matrix, large: tokens on both axes and in the hover at any size; every
    token keeps its label, cells at least 14 px (``layout.width``/``height`` are what they need,
    so a narrow screen scrolls); up to 12 x 12 each cell also shows its number (``numbers``
    False: never, for half a row; the hover gives them)."""
    z = checked_weights(weights, 2, "weights")
    value_name, axis_names = _("weight"), (_("query"), _("key"))
    ys = check_labels(y_labels, z.shape[0], f"y labels ({axis_names[0]}) vs {z.shape[0]} rows")
    xs = check_labels(x_labels, z.shape[1], f"x labels ({axis_names[1]}) vs {z.shape[1]} columns")
    numbers = numbers and z.size <= SMALL_MATRIX_CELLS
    trace = {
        "type": "heatmap",
        "z": z,
        "x": unique_labels(xs),
        "y": unique_labels(ys),
        "colorscale": SEQUENTIAL,
        "zmin": 0.0,
        "zmax": max(1e-12, float(z.max(initial=0.0))),
        "colorbar": colorbar(value_name),
        "hovertemplate": _(
            "{query}: %{{y}}<br>{key}: %{{x}}<br>{value}: %{{z:.3f}}<extra></extra>"
        ).format(query=axis_names[0], key=axis_names[1], value=value_name),
    }
    if numbers:
        trace |= {"texttemplate": "%{z:.2f}", "textfont": {"size": 12}}
    layout = _heatmap_layout(xs, ys, title, numbers)
    return figure({"data": [trace], "layout": layout})


def pool_blocks(matrix: np.ndarray, side: int) -> tuple[np.ndarray, int]:
    """Blocks of k x k cells so that neither axis exceeds ``side``: (T_q, T_k) ->
    (ceil(T_q/k), ceil(T_k/k)); returns (pooled, k). A block's value is the weight its queries
    give to its k keys together, averaged over its queries: each pooled row still sums to 1 (a
    distribution over blocks of keys). A mean over the block would divide that by k, and a long
    sentence's panels would be almost white. k = 1 leaves the matrix as it is."""
    k = max(1, -(-max(matrix.shape[-2:]) // side))
    if k == 1:
        return matrix, 1
    T_q, T_k = matrix.shape[-2:]
    starts_q, starts_k = np.arange(0, T_q, k), np.arange(0, T_k, k)  # (n_q,), (n_k,)
    # summed along keys first, so that no copy as large as the input is made (a padded copy of
    # MiniLM's (6, 12, 512, 512) float32 attention would be another 75 MB at the peak)
    sums = np.add.reduceat(np.add.reduceat(matrix, starts_k, axis=-1), starts_q, axis=-2)
    rows = np.minimum(k, T_q - starts_q)  # (n_q,) queries per block: k, fewer in the last one
    return (sums / rows[:, None]).astype(np.float32), k


def pooled_colour_max(pooled: np.ndarray) -> float:
    """The top of the overview's colour scale for pooled panels: the 99th percentile of their
    cells (above it a cell has the darkest colour), so that the weaker blocks of a long
    sentence keep a visible colour beside the few that take most of a row's weight."""
    return float(max(np.percentile(pooled, POOLED_PERCENTILE), 1e-6))


def _tile_labels(n_blocks: int, side: int, gap: int, k: int, T: int, name: str) -> list[str]:
    """Category names along one axis of the tiled overview: block b, item j -> ``name`` formatted
    with n = b + 1 and i = j ("layer 2, query #5", or "#10-14" when pooled by k); gap cells get
    distinct names of their own."""
    labels = []
    for b in range(n_blocks):
        for j in range(side):
            lo, hi = j * k, min(T, (j + 1) * k) - 1
            labels.append(name.format(n=b + 1, i=f"{lo}-{hi}" if hi > lo else lo))
        if b < n_blocks - 1:
            labels += [f"gap {len(labels) + g}" for g in range(gap)]  # never shown (no hover)
    return labels


def _tiles(w: np.ndarray, gap: int) -> np.ndarray:
    """Weights (L, H, T_q, T_k) laid out as one matrix of L x H tiles, NaN in the ``gap`` cells
    between them: (L * (T_q + gap) - gap, H * (T_k + gap) - gap)."""
    n_layers, n_heads, side_q, side_k = w.shape
    rows, cols = n_layers * (side_q + gap) - gap, n_heads * (side_k + gap) - gap
    z = np.full((rows, cols), np.nan, dtype=np.float32)
    for layer in range(n_layers):
        r = layer * (side_q + gap)
        for head in range(n_heads):
            c = head * (side_k + gap)
            z[r : r + side_q, c : c + side_k] = w[layer, head]
    return z


@dataclass(frozen=True)
class GridTiles:
    """Where the overview's panels lie in its one heatmap: ``n_layers`` x ``n_heads`` tiles of
    ``side_q`` x ``side_k`` cells (the sides after pooling), ``gap`` empty cells between tiles."""

    n_layers: int
    n_heads: int
    side_q: int
    side_k: int
    gap: int

    def panel_at(self, row: int, col: int) -> tuple[int, int] | None:
        """The (layer, head), 0-based, of the heatmap's cell (row, col); None in a gap or
        outside the grid."""
        if row < 0 or col < 0:
            return None
        layer, r = divmod(row, self.side_q + self.gap)
        head, c = divmod(col, self.side_k + self.gap)
        if r >= self.side_q or c >= self.side_k or layer >= self.n_layers or head >= self.n_heads:
            return None
        return layer, head


def grid_tiles(shape: tuple[int, ...]) -> GridTiles:
    """The tiling :func:`head_grid` draws weights of ``shape`` (L, H, T_q, T_k) with: panels over
    GRID_SIDE tokens pooled to POOLED_SIDE (as :func:`pool_blocks` does), a 5 % gap."""
    n_layers, n_heads, T_q, T_k = shape
    k = max(1, -(-max(T_q, T_k) // POOLED_SIDE)) if max(T_q, T_k) > GRID_SIDE else 1
    side_q, side_k = -(-T_q // k), -(-T_k // k)
    gap = max(1, round(max(side_q, side_k) * 0.05))
    return GridTiles(n_layers, n_heads, side_q, side_k, gap)


def _grid_axis(centres: list[str], prefix: str, **extra: LayoutValue) -> dict:
    """A categorical axis of the overview with one tick (``<prefix><n>``) per panel centre."""
    return {
        "type": "category",
        "tickvals": centres,
        "ticks": "",
        "showgrid": False,
        "ticktext": [f"{prefix}{n + 1}" for n in range(len(centres))],
        "zeroline": False,
        **extra,
    }


def _frame(selected: tuple[int, int], sides: tuple[int, int], gap: int) -> dict:
    """The rectangle around panel ``selected`` (layer, head) of tiles ``sides`` (T_q, T_k)."""
    (layer, head), (side_q, side_k) = selected, sides
    r, c = layer * (side_q + gap), head * (side_k + gap)
    return {
        "type": "rect",
        "xref": "x",
        "yref": "y",
        "line": {"color": OUTLINE, "width": OUTLINE_PX},  # as a linked heatmap's focus
        "x0": c - 0.5 - gap / 2,
        "x1": c + side_k - 0.5 + gap / 2,
        "y0": r - 0.5 - gap / 2,
        "y1": r + side_q - 0.5 + gap / 2,
    }


def _grid_layout(
    title: str,
    shape: tuple[int, int],
    centres: tuple[list[str], list[str]],
    colorscale: str,
    cmax: float,
) -> dict:
    """The overview's layout for (layers, heads) ``shape``: the title above the heads' ticks, a
    row of panels per layer, room at the right for the colour bar (0 to ``cmax``)."""
    (n_layers, n_heads), (centre_x, centre_y) = shape, centres
    margin = MARGIN | {"t": title_margin(title, GRID_TICKS_PX), "b": 20, "r": COLORBAR_RIGHT_PX}
    return {
        "annotations": [title_annotation(title, GRID_PANEL_PX * n_layers, GRID_TICKS_PX)],
        "margin": margin,
        "width": max(
            cells_extent(n_heads, margin["l"], margin["r"], GRID_PANEL_MIN_PX),
            title_width(title, margin),
        ),
        "height": margin["t"] + margin["b"] + GRID_PANEL_PX * n_layers,
        "xaxis": _grid_axis(centre_x, "h", side="top"),
        "yaxis": _grid_axis(centre_y, "L", autorange="reversed"),
        "coloraxis": {
            "colorscale": colorscale,
            "cmin": 0.0,
            "cmax": cmax,
            "colorbar": colorbar(_("weight")),
        },
        "plot_bgcolor": "white",
        "hovermode": "closest",
    }


def head_grid(
    weights: ArrayLike,
    *,
    title: str = "",
    colorscale: str = SEQUENTIAL,
    selected: tuple[int, int] | None = None,
) -> go.Figure:
    """Every layer x head of ``weights`` (L, H, T_q, T_k) as small heatmaps in one figure: rows are
    layers, columns heads, one shared 0..1 colour axis. Panels over 128 tokens are pooled to 64
    blocks a side (:func:`pool_blocks`), on a colour axis up to the 99th percentile of the
    pooled cells (both said in the title). ``selected`` (layer, head), 0-based, gets a frame.

    The panels are tiles of ONE heatmap trace (empty cells between them), on one pair of axes:
    a browser draws one image instead of 72 subplots, several times faster. The axes are
    categorical, so hover names the layer, head, query and key of any cell. A click on any cell
    of a panel names it: its (row, col) in the one heatmap is a panel by :func:`grid_tiles`.
    """
    w = checked_weights(weights, 4, "weights")
    n_layers, n_heads, T_q, T_k = w.shape
    tiles = grid_tiles(w.shape)
    w, k = pool_blocks(w, POOLED_SIDE) if max(w.shape[2:]) > GRID_SIDE else (w, 1)
    side_q, side_k, gap = tiles.side_q, tiles.side_k, tiles.gap
    x = _tile_labels(n_heads, side_k, gap, k, T_k, _("head {n}, key #{i}"))
    y = _tile_labels(n_layers, side_q, gap, k, T_q, _("layer {n}, query #{i}"))
    centre_x = [x[h * (side_k + gap) + side_k // 2] for h in range(n_heads)]
    centre_y = [y[la * (side_q + gap) + side_q // 2] for la in range(n_layers)]
    heatmap = {
        "type": "heatmap",
        "z": _tiles(w, gap),
        "x": x,
        "y": y,
        "coloraxis": "coloraxis",
        "hoverongaps": False,
        "hovertemplate": _("%{{y}} · %{{x}}<br>weight: %{{z:.3f}}<extra></extra>").format(),
    }
    cmax = 1.0
    if k > 1:
        cmax = pooled_colour_max(w)
        title += "<br>" + _("each cell: a {k} x {k} block, keys summed, queries averaged").format(
            k=k
        )
        title += "<br>" + _("colours up to the 99th percentile ({cmax:.2f})").format(cmax=cmax)
    layout = _grid_layout(title, (n_layers, n_heads), (centre_x, centre_y), colorscale, cmax)
    words = head_patterns(checked_weights(weights, 4, "weights"))
    if title:  # the figure's own title names it
        words.pop("name")
    layout["meta"] = {"atlas": words}
    if selected is not None:
        layout["shapes"] = [_frame(selected, (side_q, side_k), gap)]
    return figure({"data": [heatmap], "layout": layout})


def share_heatmaps(shares: dict[str, np.ndarray], *, title: str = "") -> go.Figure:
    """Per group (e.g. special, punctuation, first token) the (L, H) share of each head's weight,
    one panel under the other on one 0..1 scale, each cell with its number (hover: group, layer,
    head, share); see :func:`viz.head_steps.step_panels` for the sizes."""
    panels = []
    for name, share in shares.items():
        z = checked_weights(share, 2, f"shares of {name}")
        panels.append(
            Panel(
                title=escape([name])[0],
                z=z,
                y_labels=[f"L{layer + 1}" for layer in range(z.shape[0])],
                x_labels=[f"h{h + 1}" for h in range(z.shape[1])],
                y_title=_("layer"),
                x_title=_("head"),
                value_name=_("share"),
                zmax=1.0,
            )
        )
    return step_panels(panels, title=title)
