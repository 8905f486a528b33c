"""Figures for positional encodings and the local-attention window (pure plotly, no streamlit)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from viz._checks import as_matrix, check_labels, escape
from viz._margins import LEGEND_PX, fitted_margin, legend_below, number_labels, widest_px
from viz.heatmaps import DIVERGING, matrix_heatmap


def pe_heatmap(
    pe: object, *, title: str = "", colorscale: str = DIVERGING, zmax: float = 1.0
) -> go.Figure:
    """The PE matrix (n_positions, d_model): position down the y axis, dimension along x; the
    colour scale runs from -zmax to zmax (1 for sinusoids; learned embeddings have their own)."""
    z = as_matrix(pe, "pe")
    return matrix_heatmap(
        z, None, None, title=title, show_values=False, colorscale=colorscale,
        zmin=-zmax, zmax=zmax, zmid=0.0, axis_names=("position", "dimension"), value_name="PE",
    )  # fmt: skip


def pe_curves(pe: object, dims: Sequence[int], *, title: str = "") -> go.Figure:
    """Chosen columns of PE (n_positions, d_model) as curves over position."""
    z = as_matrix(pe, "pe")
    bad = [d for d in dims if not 0 <= int(d) < z.shape[1]]
    if bad:
        raise ValueError(f"dimensions {bad} outside 0..{z.shape[1] - 1} (d_model = {z.shape[1]})")
    fig = go.Figure()
    positions = np.arange(z.shape[0])
    names = [f"dim {int(d)} ({'sin' if int(d) % 2 == 0 else 'cos'})" for d in dims]
    for d, name in zip(dims, names, strict=True):
        fig.add_scatter(x=positions, y=z[:, int(d)], mode="lines", name=name)
    # y ticks run from -1 to 1 (the widest is "−0.5"), x ticks are positions; the legend is right
    margin, _ = fitted_margin([str(z.shape[0])], ["\u22120.5"],
                              right=LEGEND_PX + widest_px(names) if names else 20)  # fmt: skip
    fig.update_layout(title={"text": title}, xaxis_title="position", yaxis_title="PE value",
                      margin=margin)  # fmt: skip
    return fig


LOCAL_LEGEND = ("raw weights (global softmax)", "final weights (x Gaussian)",
                "Gaussian (sigma = D/2)")  # fmt: skip


def gaussian_window_plot(
    positions: object,
    p_t: float,
    D: int,
    raw_weights: object,
    final_weights: object,
    labels: Sequence[str] | None = None,
    *,
    title: str = "",
) -> go.Figure:
    """Luong local-p attention at one step: raw (n,) and final (n,) weights over source positions,
    the predicted centre p_t, the shaded window [p_t - D, p_t + D] and the Gaussian exp(-(s-p_t)^2 / (2 (D/2)^2)).
    """
    s = np.asarray(positions, dtype=float).ravel()
    raw = np.asarray(raw_weights, dtype=float).ravel()
    final = np.asarray(final_weights, dtype=float).ravel()
    if raw.size != s.size or final.size != s.size:
        raise ValueError(f"{s.size} positions but {raw.size} raw and {final.size} final weights")
    if D <= 0 or not np.isfinite(p_t):
        raise ValueError(f"need D > 0 and a finite p_t, got D={D}, p_t={p_t}")
    shown = check_labels(labels, s.size, f"labels vs {s.size} positions")
    ticks = escape(shown)
    fig = go.Figure()
    fig.add_vrect(x0=p_t - D, x1=p_t + D, fillcolor="#F0E442", opacity=0.25, line_width=0)
    fig.add_bar(x=s, y=raw, name=LOCAL_LEGEND[0], marker_color="#56B4E9")
    fig.add_bar(x=s, y=final, name=LOCAL_LEGEND[1], marker_color="#0072B2")
    dense = np.linspace(s.min() - 1 if s.size else 0, s.max() + 1 if s.size else 1, 200)
    sigma = D / 2
    fig.add_scatter(
        x=dense, y=np.exp(-((dense - p_t) ** 2) / (2 * sigma**2)), mode="lines",
        name=LOCAL_LEGEND[2], line={"color": "#D55E00"},
    )  # fmt: skip
    fig.add_vline(x=p_t, line_dash="dash", line_color="#D55E00", annotation_text=f"p_t = {p_t:.2f}")
    margin, angle = fitted_margin(shown, ["0.00"], right=LEGEND_PX + widest_px(LOCAL_LEGEND))
    fig.update_xaxes(tickmode="array", tickvals=list(s), ticktext=ticks, title={"text": "source"},
                     tickangle=angle)  # fmt: skip
    fig.update_layout(title={"text": title}, barmode="group", yaxis_title="weight", margin=margin)
    return fig


def position_norms_figure(norms: dict[str, object], *, title: str = "") -> go.Figure:
    """The length ||p_pos|| of each position's vector, one line per named table (name -> (P,))."""
    fig = go.Figure()
    for name, values in norms.items():
        v = np.asarray(values, dtype=float).ravel()
        fig.add_scatter(x=np.arange(v.size), y=v, mode="lines", name=escape([name])[0],
                        hovertemplate="position %{x}: %{y:.2f}<extra></extra>")  # fmt: skip
    margin, _ = fitted_margin(["0000"], number_labels(norms.values()))
    fig.update_layout(title={"text": title}, xaxis_title="position", yaxis_title="vector length",
                      **legend_below(margin))  # fmt: skip
    return fig
