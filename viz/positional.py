"""Figures for positional encodings (pure plotly, no streamlit); axis titles, legends and hover
text in the session's language (:mod:`i18n`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from i18n import _
from viz._checks import as_matrix, escape
from viz._margins import LEGEND_PX, fitted_margin, legend_below, number_labels, widest_px
from viz.heatmaps import DIVERGING, signed_heatmap


def pe_heatmap(
    pe: object, *, title: str = "", colorscale: str = DIVERGING, zmax: float = 1.0
) -> go.Figure:
    """The PE matrix (n_positions, d_model): position down the y axis, dimension along x; the
    colour scale runs from -zmax to zmax (1 for sinusoids; learned embeddings have their own)."""
    return signed_heatmap(
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


def pe_curves(pe: object, dims: Sequence[int], *, title: str = "") -> go.Figure:
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


def position_norms_figure(norms: dict[str, object], *, title: str = "") -> go.Figure:
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
    fig.update_layout(
        title={"text": title},
        xaxis_title=_("position"),
        yaxis_title=_("vector length"),
        **legend_below(margin),
    )
    return fig
