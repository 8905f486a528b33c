"""Figures for positional encodings (pure plotly, no streamlit); axis titles, legends and hover
text in the session's language (:mod:`i18n`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import _
from viz._checks import as_matrix, escape
from viz.anatomy import title_beside_colorbar
from viz.heatmaps import DIVERGING, WEIGHT, attention_panels, matrix_heatmap, signed_heatmap
from viz.measure import (
    LEGEND_PX,
    Y_TICKS_PAD_PX,
    colorbar_px,
    fitted_margin,
    legend_below,
    number_labels,
    text_px,
    widest_px,
)

NUMBER_CELL_PX = 30  # a cell that shows its weight ('0.38' at the 12 px font)
CELL_PX = 16  # a cell without a number: a vertical token label and a gap
TITLE_LINE_PX = 17  # a line of a panel title (12 px font)


def pe_heatmap(
    pe: ArrayLike, *, title: str = "", colorscale: str = DIVERGING, zmax: float = 1.0
) -> go.Figure:
    """The PE matrix (n_positions, d_model): position down the y axis, dimension along x; the
    colour scale runs from -zmax to zmax (1 for sinusoids; learned embeddings have their own)."""
    fig = signed_heatmap(
        as_matrix(pe, "pe"),
        None,
        None,
        bound=zmax,
        colorscale=colorscale,
        title=title,
        show_values=False,
        axis_names=(_("position"), _("dimension")),
        value_name="PE",
    )
    return title_beside_colorbar(fig)


def pe_curves(pe: ArrayLike, dims: Sequence[int], *, title: str = "") -> go.Figure:
    """Chosen columns of PE (n_positions, d_model) as curves over position."""
    z = as_matrix(pe, "pe")
    bad = [d for d in dims if not 0 <= int(d) < z.shape[1]]
    if bad:
        raise ValueError(
            _("Dimensions {bad} are outside 0..{last} (d_model = {d}).").format(
                bad=bad, last=z.shape[1] - 1, d=z.shape[1]
            )
        )
    fig = go.Figure()
    positions = np.arange(z.shape[0])
    names = [
        _("dim {d} ({fn})").format(d=int(d), fn="sin" if int(d) % 2 == 0 else "cos") for d in dims
    ]
    for d, name in zip(dims, names, strict=True):
        fig.add_scatter(x=positions, y=z[:, int(d)], mode="lines", name=name)
    # y ticks run from -1 to 1 (the widest is "−0.5"), x ticks are positions; the legend is right
    margin, __ = fitted_margin(
        [str(z.shape[0])], ["\u22120.5"], right=LEGEND_PX + widest_px(names) if names else 20
    )
    fig.update_layout(
        title={"text": title}, xaxis_title=_("position"), yaxis_title=_("PE value"), margin=margin
    )
    return fig


def position_norms_figure(norms: Mapping[str, ArrayLike], *, title: str = "") -> go.Figure:
    """The length ||p_pos|| of each position's vector, one line per named table (name -> (P,))."""
    fig = go.Figure()
    for name, values in norms.items():
        v = np.asarray(values, dtype=float).ravel()
        fig.add_scatter(
            x=np.arange(v.size),
            y=v,
            mode="lines",
            name=escape([name])[0],
            hovertemplate=_("position %{{x}}: %{{y:.2f}}<extra></extra>").format(),
        )
    margin, __ = fitted_margin(["0000"], number_labels(norms.values()))
    longest = max((np.size(v) for v in norms.values()), default=1)
    fig.update_layout(
        title={"text": title},
        # position 0 a little right of the y axis: its tick label clear of the y axis's lowest
        xaxis={"range": [-0.04 * longest - 0.5, longest - 0.5]},
        xaxis_title=_("position"),
        yaxis_title=_("vector length"),
        **legend_below(margin),
    )
    return fig


def _lines(title: str) -> list[str]:
    return title.split("\n")


def _panel_sizes(panels: Sequence[tuple], numbers: bool) -> tuple[int, int, bool]:
    """(panel width, panel height, flat x labels) in px: a cell per token, ``NUMBER_CELL_PX``
    when the cells show their weights, and a panel at least as wide as its title's lines."""
    cell = NUMBER_CELL_PX if numbers else CELL_PX
    n_cols = max(np.shape(p[0])[1] for p in panels)
    n_rows = max(np.shape(p[0])[0] for p in panels)
    titles = [line for p in panels for line in _lines(p[3])]
    width = max(n_cols * cell, widest_px(titles) + 12)
    labels = [str(t) for p in panels for t in p[1]]
    flat = all(text_px(label) + 6 <= width / n_cols for label in labels)
    return width, max(n_rows * cell, 4 * TITLE_LINE_PX), flat


def permutation_maps(
    panels: Sequence[tuple[ArrayLike, Sequence[str], Sequence[str], str]], *, per_row: int = 2
) -> go.Figure:
    """The permutation demo's attention maps, ``per_row`` a row (:func:`viz.heatmaps.attention_panels`:
    weights (T, T), key labels, query labels, a title where a newline starts a line), laid out in
    px: every token labelled, every cell at least ``CELL_PX`` (``NUMBER_CELL_PX`` with its
    number), each panel's title in the gap above it, the figure as wide as its cells need
    (``layout.width``: it scrolls sideways on a narrow screen)."""
    fig = attention_panels(panels, cols=per_row)
    numbers = all(trace.texttemplate for trace in fig.data)
    width, height, flat = _panel_sizes(panels, numbers)
    labels = [str(t) for p in panels for t in (*p[1], *p[2])]
    y_ticks = widest_px(labels) + Y_TICKS_PAD_PX
    x_ticks = 28 if flat else widest_px(labels) + 12
    rows = [panels[i : i + per_row] for i in range(0, len(panels), per_row)]
    titles = [max(len(_lines(p[3])) for p in row) * TITLE_LINE_PX + 8 for row in rows]
    gap_x = y_ticks + 16
    gaps_y = [x_ticks + t for t in titles[1:]]
    plot_w = per_row * width + (per_row - 1) * gap_x
    plot_h = len(rows) * height + sum(gaps_y)
    margin = {
        "l": y_ticks,
        "r": 20 if numbers else colorbar_px(_(WEIGHT)),
        "t": titles[0],
        "b": x_ticks,
    }
    top = plot_h
    for r, row in enumerate(rows):
        y_domain = [round((top - height) / plot_h, 6), round(top / plot_h, 6)]
        for c in range(len(row)):
            index = per_row * r + c
            suffix = "" if index == 0 else str(index + 1)
            x0 = c * (width + gap_x) / plot_w
            x_domain = [x0, x0 + width / plot_w]
            fig.layout[f"xaxis{suffix}"].update(domain=x_domain, tickangle=0 if flat else -90)
            fig.layout[f"yaxis{suffix}"].update(domain=y_domain)
            fig.layout.annotations[index].update(x=sum(x_domain) / 2, y=y_domain[1])
        top -= height + (gaps_y[r] if r < len(gaps_y) else 0)
    fig.update_traces(textfont={"size": 12})
    title_beside_colorbar(fig)
    return fig.update_layout(
        margin=margin,
        width=margin["l"] + plot_w + margin["r"],
        height=margin["t"] + plot_h + margin["b"],
    )


def position_heatmap(
    matrix: ArrayLike, *, title: str, value_name: str, **scale: float | str
) -> go.Figure:
    """A (positions, positions) matrix (PE · PEᵀ, cosine similarity) as a heatmap with plain
    position numbers on both axes; ``scale``: the colour scale and its bounds (colorscale, zmin,
    zmax, zmid) of :func:`viz.heatmaps.matrix_heatmap`."""
    fig = matrix_heatmap(
        matrix,
        None,
        None,
        title=title,
        axis_names=(_("position"), _("position")),
        value_name=value_name,
        **scale,
    )
    return title_beside_colorbar(fig)
