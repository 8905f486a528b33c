"""Figures for the translation pages (pure plotly, no streamlit, no torch).

Alignment lines between two sentences (Bahdanau et al. 2015, Fig. 3; Seq2Seq-Vis), per-row entropy,
token probabilities, the local-attention step (window, Gaussian, raw and final weights) as an
animation, the local heatmap with its p_t path, BLEU against sentence length (Bahdanau et al. 2015,
Fig. 2) and the encoder's gradient norms over positions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from i18n import _
from viz._checks import as_matrix, check_labels, escape
from viz._margins import fitted_margin, legend_below
from viz.heatmaps import matrix_heatmap

LINE_BINS = 8  # alignment lines are grouped into this many opacity/width classes (one trace each)
INK = "#0072B2"
ACCENT = "#D55E00"
_MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}


def alignment_heatmap(
    weights: object, source_tokens: Sequence[str], target_tokens: Sequence[str], *, title: str = ""
) -> go.Figure:
    """Weights (T_out, T_src) as a heatmap: target tokens as rows (top to bottom), source tokens as
    columns (left to right), colour scale from 0; hover shows both tokens and the weight."""
    z = as_matrix(weights)
    zmax = max(1e-12, float(z.max())) if z.size else 1.0
    fig = matrix_heatmap(
        z,
        source_tokens,
        target_tokens,
        title=title,
        zmin=0.0,
        zmax=zmax,
        axis_names=(_("target"), _("source")),
        value_name=_("weight"),
    )
    fig.update_layout(height=max(360, 26 * z.shape[0] + 160))
    return fig


def _checked(weights: object, src: Sequence[str], tgt: Sequence[str]) -> tuple:
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
    weights: object,
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
    layout = {
        "title": {"text": title},
        "margin": _MARGIN,
        "height": max(320, 22 * span + 100),
        "xaxis": {"visible": False, "range": [-1.0, 2.0]},
        "yaxis": {"visible": False, "autorange": "reversed"},
    }
    return go.Figure({"data": traces, "layout": layout})  # validated once


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


def row_entropy(weights: object) -> np.ndarray:
    """Entropy in bits of each row of (T_out, T_src) weights: 0 = all on one token, log2 T_src = flat."""
    z = np.clip(as_matrix(weights), 0.0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(z > 0, -z * np.log2(z), 0.0)
    return terms.sum(axis=1)


def entropy_bars(
    weights_by_name: Mapping[str, object], target_tokens: Sequence[str], *, title: str = ""
) -> go.Figure:
    """Per-row entropy (bits) of each named weight matrix, grouped bars over the target tokens,
    with the maximum log2(T_src) (a flat row) as a dashed line."""
    entropies = {name: row_entropy(w) for name, w in weights_by_name.items()}
    n_src = {as_matrix(w).shape[1] for w in weights_by_name.values()}
    ticks = escape(check_labels(target_tokens, len(target_tokens), "target tokens"))
    fig = go.Figure()
    for name, h in entropies.items():
        if h.size != len(ticks):
            raise ValueError(f"{name}: {h.size} rows but {len(ticks)} target tokens")
        fig.add_bar(
            x=list(range(h.size)),
            y=h,
            name=name,
            customdata=ticks,
            hovertemplate=_("%{customdata}: %{y:.2f} bits") + f"<extra>{escape([name])[0]}</extra>",
        )
    if n_src:
        fig.add_hline(
            y=float(np.log2(max(n_src))),
            line_dash="dash",
            line_color="#555",
            annotation_text=_("flat (log2 T_src)"),
        )
    fig.update_xaxes(tickmode="array", tickvals=list(range(len(ticks))), ticktext=ticks)
    fig.update_layout(title={"text": title}, yaxis_title=_("entropy (bits)"), barmode="group")
    fig.update_layout(margin=_MARGIN)
    return fig


def token_prob_bars(
    probs: object, target_tokens: Sequence[str], *, low: float = 0.1, title: str = ""
) -> go.Figure:
    """The probability the model gave each target token; those below ``low`` in orange."""
    p = np.asarray(probs, dtype=float).ravel()
    ticks = escape(check_labels(target_tokens, p.size, f"target tokens vs {p.size} probabilities"))
    colours = [ACCENT if v < low else INK for v in p]
    fig = go.Figure(
        go.Bar(
            x=list(range(p.size)),
            y=p,
            marker_color=colours,
            customdata=ticks,
            text=[f"{v:.2f}" for v in p],
            textposition="auto",
            hovertemplate="%{customdata}: p = %{y:.3f}<extra></extra>",
        )
    )
    fig.add_hline(
        y=low,
        line_dash="dash",
        line_color=ACCENT,
        annotation_text=_("low (< {low:g})").format(low=low),
    )
    fig.update_xaxes(tickmode="array", tickvals=list(range(p.size)), ticktext=ticks)
    fig.update_yaxes(range=[0, 1.05], title={"text": _("probability")})
    fig.update_layout(title={"text": title}, margin=_MARGIN)
    return fig


def local_heatmap(
    weights: object,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    p_t: object,
    window: object,
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
    for k, name in ((0, "p_t - D"), (1, "p_t + D")):
        fig.add_scatter(
            x=bounds[:, k],
            y=rows,
            mode="lines",
            name=name,
            line={"color": "#555", "dash": "dot", "width": 1},
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
    # the legend in its own row at the bottom of the figure, under the axis title
    fig.update_layout(**legend_below(fig.layout.margin.to_plotly_json()))
    return fig


def step_figure(
    weights_row: object,
    source_tokens: Sequence[str],
    candidates: Sequence[tuple[str, float]],
    *,
    title: str = "",
) -> go.Figure:
    """One decoding step in one figure: its weights over the source tokens (bars, left) and the
    top-k next-token candidates with their probabilities (horizontal bars, right). Two axes side
    by side, laid out by hand (make_subplots costs ~30 ms per figure)."""
    w = np.asarray(weights_row, dtype=float).ravel()
    shown = check_labels(source_tokens, w.size, f"source labels vs {w.size} weights")
    ticks = escape(shown)
    cand = escape([str(tok) for tok, __ in candidates])
    probs = [float(p) for __, p in candidates]
    weights = go.Bar(
        x=list(range(w.size)),
        y=w,
        marker_color=INK,
        customdata=ticks,
        name="weights",
        hovertemplate="%{customdata}: %{y:.3f}<extra>" + _("weight") + "</extra>",
    )
    top = go.Bar(
        x=probs,
        y=list(range(len(probs))),
        orientation="h",
        marker_color=ACCENT,
        name="top-k",
        customdata=cand,
        text=[f"{p:.3f}" for p in probs],
        textposition="inside",
        hovertemplate="%{customdata}: %{x:.3f}<extra>" + _("probability") + "</extra>",
        xaxis="x2",
        yaxis="y2",
    )
    return go.Figure([weights, top], _step_layout(shown, ticks, cand, title))


def _step_layout(shown: list[str], ticks: list[str], cand: list[str], title: str) -> dict:
    """The two axes of ``step_figure`` side by side: weights over the source tokens (``shown``,
    escaped as ``ticks``) on the left, the candidates ``cand`` on the right."""
    margin, angle = fitted_margin(shown, ["0.8"], right=20)
    return {
        "title": {"text": title},
        "margin": margin,
        "showlegend": False,
        "height": 400,
        "xaxis": {
            "domain": [0, 0.6],
            "tickmode": "array",
            "tickvals": list(range(len(ticks))),
            "ticktext": ticks,
            "title": {"text": _("source (attention weights)")},
            "tickangle": angle,
        },
        "yaxis": {"range": [0, 1.05], "title": {"text": _("weight")}},
        "xaxis2": {
            "domain": [0.72, 1],
            "anchor": "y2",
            "range": [0, 1.05],
            "title": {"text": _("next-token probability")},
        },
        "yaxis2": {
            "anchor": "x2",
            "tickmode": "array",
            "tickvals": list(range(len(cand))),
            "ticktext": cand,
            "autorange": "reversed",
        },
    }
