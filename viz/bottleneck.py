"""The fixed-length bottleneck made visible (pure plotly, no streamlit, no torch).

``bleu_by_length_chart``: BLEU against source sentence length for several models, in the manner of
Bahdanau et al. 2015, Fig. 2, from the models' cards (test set by length bucket, plus the long sets
made by concatenating consecutive test pairs). ``gradient_norm_plot``: how strongly the encoder's
last state depends on each input position (Pascanu et al. 2013's vanishing gradient).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from i18n import N_, _
from viz._checks import check_labels, escape

BUCKET_ORDER = ("1-10", "11-15", "16-20", "21-30", "31-45", "46+")
MIN_SENTENCES = 20  # buckets with fewer sentences are left out (their BLEU is noise)
MODEL_STYLE = {  # name -> (colour, marker); `none` is black, like RNNencdec in Fig. 2
    "none": ("#000000", "x"),
    "bahdanau": ("#0072B2", "circle"),
    "luong-dot": ("#D55E00", "square"),
    "luong-general": ("#009E73", "diamond"),
    "luong-concat": ("#CC79A7", "triangle-up"),
    "local-m": ("#E69F00", "triangle-down"),
    "local-p": ("#56B4E9", "star"),
}
SET_LABELS = {  # the set a point was measured on, as the hover text names it
    "test": N_("test set"),
    "concat2": N_("2 sentences joined"),
    "concat3": N_("3 sentences joined"),
}


def bucket_points(
    card: Mapping, which: str = "test", min_n: int = MIN_SENTENCES
) -> list[tuple[int, float, int, str]]:
    """(bucket index, BLEU, n, set name) per length bucket with at least ``min_n`` sentences.

    which="test": the test set's own buckets. which="joined": the long sets made by joining 2 or
    3 consecutive test pairs (concat2, concat3), per bucket the one with more sentences in it.
    """
    if which == "test":
        sets = [("test", card.get("bleu_by_length") or {})]
    else:
        sets = [
            (name, (entry or {}).get("bleu_by_length") or {})
            for name, entry in sorted((card.get("long_sets") or {}).items())
        ]
    points: dict[int, tuple[int, float, int, str]] = {}
    for set_name, buckets in sets:
        for bucket, row in buckets.items():
            if bucket not in BUCKET_ORDER or not isinstance(row, Mapping):
                continue
            n, bleu = int(row.get("n", 0)), row.get("bleu")
            k = BUCKET_ORDER.index(bucket)
            if bleu is None or n < min_n or (k in points and points[k][2] >= n):
                continue
            points[k] = (k, float(bleu), n, set_name)
    return [points[k] for k in sorted(points)]


def _series(fig: go.Figure, name: str, pts: list, joined: bool) -> None:
    """One model's line: solid for the test set, dotted with open markers for the joined sets."""
    colour, marker = MODEL_STYLE.get(name, ("#555555", "circle"))
    label = escape([name])[0]
    fig.add_scatter(
        x=[p[0] for p in pts],
        y=[p[1] for p in pts],
        mode="lines+markers",
        name=_("{model} (joined pairs)").format(model=label) if joined else label,
        legendgroup=label,
        showlegend=not joined,
        line={"color": colour, "dash": "dot" if joined else "solid", "width": 2 if joined else 2.5},
        marker={"symbol": f"{marker}-open" if joined and marker != "x" else marker, "size": 9},
        customdata=[[p[2], _(SET_LABELS[p[3]]) if p[3] in SET_LABELS else p[3]] for p in pts],
        hovertemplate=_(
            "{model}<br>BLEU %{{y:.1f}}<br>n = %{{customdata[0]}} sentences "
            "(%{{customdata[1]}})<extra></extra>"
        ).format(model=label),
    )


def bleu_by_length_chart(cards: Mapping[str, Mapping], *, title: str = "") -> go.Figure:
    """BLEU (y) over source-length buckets (x) per model: the test set (solid) and the sets of
    joined test pairs (dotted, same colour), which reach the long buckets."""
    fig = go.Figure()
    for name, card in cards.items():
        for joined in (False, True):
            pts = bucket_points(card, "joined" if joined else "test")
            if pts:
                _series(fig, name, pts, joined)
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(len(BUCKET_ORDER))),
        ticktext=[_("{bucket} words").format(bucket=b) for b in BUCKET_ORDER],
        title={"text": _("Source sentence length")},
        range=[-0.3, len(BUCKET_ORDER) - 0.7],
        showgrid=True,
    )
    fig.update_yaxes(title={"text": _("BLEU score")}, rangemode="tozero", showgrid=True)
    fig.update_layout(
        title={"text": title},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        plot_bgcolor="white",
        legend={"title": {"text": _("model (dotted: joined pairs)")}},
        height=460,
    )
    fig.update_xaxes(gridcolor="#ddd", linecolor="#333", mirror=True)
    fig.update_yaxes(gridcolor="#ddd", linecolor="#333", mirror=True)
    return fig


def gradient_norm_plot(
    norms_by_name: Mapping[str, object], source_tokens: Sequence[str], *, title: str = ""
) -> go.Figure:
    """||d h_T / d x_j|| over source positions j (log scale), one line per named encoder."""
    n = len(source_tokens)
    ticks = escape(check_labels(source_tokens, n, "source tokens"))
    fig = go.Figure()
    for name, norms in norms_by_name.items():
        y = np.asarray(norms, dtype=float).ravel()
        if y.size != n:
            raise ValueError(f"{name}: {y.size} norms but {n} source tokens")
        colour, marker = MODEL_STYLE.get(name, ("#0072B2", "circle"))
        fig.add_scatter(
            x=list(range(n)),
            y=np.maximum(y, 1e-12),
            mode="lines+markers",
            name=escape([name])[0],
            line={"color": colour},
            marker={"symbol": marker},
            customdata=ticks,
            hovertemplate="%{customdata}: %{y:.2e}<extra>" + escape([name])[0] + "</extra>",
        )
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(n)),
        ticktext=ticks,
        title={"text": _("source position j (h_T is read after the last one)")},
    )
    fig.update_yaxes(type="log", title={"text": "||d h_T / d x_j||"})
    fig.update_layout(title={"text": title}, margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig
