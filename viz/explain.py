"""Figures for "Does attention explain?" (Jain & Wallace 2019; Wiegreffe & Pinter 2019): pure plotly.

- :func:`measures_figure`: for one target word, three rows of bars over the source words, one per
  measure of which words mattered (attention, leave-one-out, gradient x input), each divided by its
  largest magnitude so the rows compare; each row names its measure and its rank correlation with
  the attention.
- :func:`counterfactual_figure`: the decoder's most likely next pieces with its own attention, with
  uniform attention and with permuted attention (grouped horizontal bars).

Both are laid out by hand for plotly's default 12 px font, margins from :mod:`viz.measure`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import _
from viz._checks import check_labels, escape
from viz.axes import token_axis
from viz.measure import cells_extent, fitted_margin, legend_below
from viz.palette import BLUE, BLUISH_GREEN, ORANGE, REDDISH_PURPLE, VERMILLION, ZERO_LINE

COLOURS = (BLUE, VERMILLION, BLUISH_GREEN)  # attention, leave-one-out, gradient
CF_COLOURS = (BLUE, ORANGE, REDDISH_PURPLE)  # the model's own attention, uniform, permuted
PANEL_PX = 110  # height of one row of bars
GAP_PX = 36  # between rows: room for the next row's label
LABEL_PX = 24  # above the first row: its label
BAR_ROW_PX = 34  # one candidate piece in the counterfactual figure (three bars)
TITLE_PAD_PX = 8  # between the top edge and the title (its glyphs reach above its line box)


def rho_text(rho: float) -> str:
    """ρ with two decimals, or a dash when it is undefined (NaN)."""
    return "—" if rho is None or math.isnan(rho) else f"{rho:+.2f}"


def normalised(values: ArrayLike) -> np.ndarray:
    """``values`` divided by their largest magnitude (all zeros stay zeros): in [-1, 1]."""
    v = np.asarray(values, dtype=float).ravel()
    if not np.all(np.isfinite(v)):
        raise ValueError("measures must be finite")
    peak = float(np.abs(v).max()) if v.size else 0.0
    return v / peak if peak > 0 else np.zeros_like(v)


def _rows(rho_loo: float, rho_grad: float) -> list[str]:
    """The three rows' labels, with the rank correlations."""
    return [
        _("attention α_t"),
        _("leave-one-out Δ log p(y_t) · ρ with α = {rho}").format(rho=rho_text(rho_loo)),
        _("gradient × input · ρ with α = {rho}").format(rho=rho_text(rho_grad)),
    ]


def _bar(x: list[int], raw: np.ndarray, row: int, words: list[str], name: str) -> go.Bar:
    """One row's bars: heights normalised, hover with the word and the raw value."""
    axis = "y" if row == 0 else f"y{row + 1}"
    return go.Bar(
        x=x,
        y=normalised(raw),
        yaxis=axis,
        marker_color=COLOURS[row],
        name=name,
        customdata=np.stack([np.array(words, dtype=object), raw], axis=1),
        hovertemplate="%{customdata[0]}: %{customdata[1]:.4f}<extra></extra>",
    )


def _domains(n: int = 3) -> tuple[list[list[float]], int]:
    """Each row's y domain (top row first) in the plot area, and the plot area's height in px."""
    height = n * PANEL_PX + (n - 1) * GAP_PX
    domains = []
    for k in range(n):
        top = k * (PANEL_PX + GAP_PX)
        domains.append([1 - (top + PANEL_PX) / height, 1 - top / height])
    return domains, height


def measures_figure(
    words: Sequence[str],
    attention: ArrayLike,
    leave_one_out: ArrayLike,
    grad_input: ArrayLike,
    *,
    rho_loo: float,
    rho_grad: float,
    title: str = "",
) -> go.Figure:
    """Three rows of bars over the source ``words`` (W,): ``attention``, ``leave_one_out`` and
    ``grad_input`` (each (W,)), each divided by its largest magnitude; ``rho_loo``, ``rho_grad``
    their rank correlations with the attention, written in the rows' labels."""
    measures = [np.asarray(m, dtype=float).ravel() for m in (attention, leave_one_out, grad_input)]
    shown = check_labels(words, measures[0].size, f"source words vs {measures[0].size} values")
    for m in measures[1:]:
        check_labels(shown, m.size, f"source words vs {m.size} values")
    ticks, x = escape(shown), list(range(len(shown)))
    labels = _rows(rho_loo, rho_grad)
    bars = [_bar(x, m, k, ticks, labels[k]) for k, m in enumerate(measures)]
    return go.Figure(bars, _measures_layout(shown, ticks, labels, title))


def _measures_layout(shown: list[str], ticks: list[str], labels: list[str], title: str) -> dict:
    """Three y axes stacked over one x axis (at the bottom, every word labelled)."""
    margin, angle = fitted_margin(
        shown, ["-0.5"], x_title=True, y_title=False, top=60 + LABEL_PX, right=20
    )
    domains, plot_px = _domains(len(labels))
    layout = {
        "title": {"text": title, "pad": {"t": TITLE_PAD_PX}},
        "margin": margin,
        "height": margin["t"] + margin["b"] + plot_px,
        "width": cells_extent(len(ticks), margin["l"], margin["r"]),
        "showlegend": False,
        "bargap": 0.25,
        "xaxis": token_axis(
            ticks,
            angle=angle,
            anchor=f"y{len(labels)}",
            range=[-0.5, len(ticks) - 0.5],
            title={"text": _("source words")},
        ),
        "annotations": [
            {
                "text": label,
                "x": 0,
                "y": domain[1],
                "xref": "paper",
                "yref": "paper",
                "xanchor": "left",
                "yanchor": "bottom",
                "yshift": 4,
                "showarrow": False,
            }
            for label, domain in zip(labels, domains, strict=True)
        ],
    }
    for k, domain in enumerate(domains):
        signed = k > 0  # leave-one-out and gradient x input can be negative
        layout["yaxis" if k == 0 else f"yaxis{k + 1}"] = {
            "domain": domain,
            "range": [-1.1 if signed else 0, 1.1],
            "tickmode": "array",
            "tickvals": [-1, 0, 1] if signed else [0, 0.5, 1],
            "zeroline": True,
            "zerolinecolor": ZERO_LINE,
        }
    return layout


def counterfactual_figure(
    candidates: Sequence[str],
    probs: Mapping[str, ArrayLike],
    *,
    token: str | None = None,
    title: str = "",
) -> go.Figure:
    """The ``candidates`` (C,) pieces, top to bottom, each with one bar per named distribution in
    ``probs`` (name -> (C,) probabilities: the model's own attention, uniform, permuted); the
    forced piece ``token`` is written in bold."""
    shown = check_labels(candidates, len(candidates), "candidates")
    ticks = [f"<b>{t}</b>" if c == token else t for c, t in zip(shown, escape(shown), strict=True)]
    fig = go.Figure()
    for k, (name, p) in enumerate(probs.items()):
        values = np.asarray(p, dtype=float).ravel()
        check_labels(shown, values.size, f"{name}: candidates vs {values.size} probabilities")
        fig.add_bar(
            x=values,
            y=list(range(len(shown))),
            orientation="h",
            name=name,
            marker_color=CF_COLOURS[k % len(CF_COLOURS)],
            customdata=escape(shown),
            hovertemplate="%{customdata}: p = %{x:.3f}<extra>" + escape([name])[0] + "</extra>",
        )
    margin, __ = fitted_margin(["0.25"], shown, y_title=False, right=20)
    layout = legend_below(margin)
    fig.update_layout(
        title={"text": title, "pad": {"t": TITLE_PAD_PX}},
        barmode="group",
        height=layout["margin"]["t"] + layout["margin"]["b"] + BAR_ROW_PX * max(3, len(shown)),
        xaxis={"range": [0, 1.02], "title": {"text": _("probability of the next piece")}},
        yaxis=token_axis(ticks, top_down=True),
        **layout,
    )
    return fig
