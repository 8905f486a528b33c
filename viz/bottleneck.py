"""The fixed-length bottleneck made visible (pure plotly, no streamlit, no torch).

``bleu_by_length_chart``: BLEU against source sentence length for several models, in the manner of
Bahdanau et al. 2015, Fig. 2, from the models' cards (test set by length bucket, plus the long sets
made by concatenating consecutive test pairs). ``gradient_norm_plot``: how strongly the encoder's
last state depends on each input position (Pascanu et al. 2013's vanishing gradient).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import N_, _
from viz._checks import check_labels, escape
from viz.axes import token_axis
from viz.measure import LEGEND_PX, cells_extent, fitted_margin, widest_px
from viz.palette import (
    AXIS_LINE,
    BLACK,
    BLUE,
    BLUISH_GREEN,
    GREY,
    GRID,
    ORANGE,
    REDDISH_PURPLE,
    SKY_BLUE,
    VERMILLION,
)
from viz.titles import left_title
from viz.token_rows import token_rows_figure

BUCKET_ORDER = ("1-10", "11-15", "16-20", "21-30", "31-45", "46+")
MIN_SENTENCES = 20  # buckets with fewer sentences are left out (their BLEU is noise)
BUCKET_PX = 64  # the least width of one length bucket on the BLEU chart
TOKEN_PX = 18  # the least width per source piece on the gradient chart (vertical labels)
MODEL_STYLE = {  # name -> (colour, marker); `none` is black, like RNNencdec in Fig. 2
    "none": (BLACK, "x"),
    "bahdanau": (BLUE, "circle"),
    "luong-dot": (VERMILLION, "square"),
    "luong-general": (BLUISH_GREEN, "diamond"),
    "luong-concat": (REDDISH_PURPLE, "triangle-up"),
    "local-m": (ORANGE, "triangle-down"),
    "local-p": (SKY_BLUE, "star"),
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
    colour, marker = MODEL_STYLE.get(name, (GREY, "circle"))
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
    joined test pairs (dotted, same colour), which reach the long buckets. The legend is on the
    right; the figure asks for the width its buckets need (ui/charts scrolls it on a phone)."""
    fig = go.Figure()
    for name, card in cards.items():
        for joined in (False, True):
            pts = bucket_points(card, "joined" if joined else "test")
            if pts:
                _series(fig, name, pts, joined)
    legend_title = _("model (dotted: joined pairs)")
    names = [legend_title, *escape(list(cards))]
    margin, angle = fitted_margin(BUCKET_ORDER, ["100"], right=LEGEND_PX + widest_px(names))
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(len(BUCKET_ORDER))),
        ticktext=list(BUCKET_ORDER),
        tickangle=angle,
        title={"text": _("Source sentence length (words)")},
        range=[-0.3, len(BUCKET_ORDER) - 0.7],
    )
    fig.update_yaxes(title={"text": _("BLEU score")}, rangemode="tozero")
    fig.update_layout(
        title=left_title(title),
        margin=margin,
        plot_bgcolor="white",
        legend={"title": {"text": legend_title}},
        height=440,
        width=len(BUCKET_ORDER) * BUCKET_PX + margin["l"] + margin["r"],
    )
    _framed_axes(fig)
    return fig


def _framed_axes(fig: go.Figure) -> None:
    """Grey grid, a dark frame, and plotly's automargin as the safety net for what the fitted
    margins underestimate (Streamlit's default template leaves it off)."""
    for update in (fig.update_xaxes, fig.update_yaxes):
        update(showgrid=True, gridcolor=GRID, linecolor=AXIS_LINE, mirror=True, automargin=True)


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values for a log axis over [low, high] (both > 0): 1, 2 and 5 times the powers of ten
    over three decades or less, else the powers of ten (every other one past eight decades);
    always one tick at or below ``low`` and one at or above ``high`` (two different ones, even for
    a single value), so that the range can run from the first tick to the last."""
    low = max(low, 1e-12)
    high = max(high, low)
    first, last = math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1
    decades = last - first - 2
    steps = (1, 2, 5) if decades <= 3 else (1,)
    stride = 2 if decades > 8 else 1
    grid = sorted(
        {float(f"{m * 10.0**e:.12g}") for e in range(first, last + 1, stride) for m in steps}
    )
    below = max(v for v in grid if v <= low * (1 + 1e-9))
    above = min(v for v in grid if v >= high * (1 - 1e-9))
    if above == below:
        above = min(v for v in grid if v > below)
    return [v for v in grid if below <= v <= above]


def log_tick_label(value: float) -> str:
    """'0.02', '5', '300' for everyday magnitudes, '1e-05' / '2e+04' for the others."""
    return f"{value:g}" if 1e-3 <= value < 1e4 else f"{value:.0e}"


def log_axis(tickvals: list[float], ticktext: list[str]) -> dict:
    """A log y axis labelled at exactly ``tickvals``, its range from the first to the last (with
    a 3% pad, so that the end labels are not halved by the plot's edge)."""
    low, high = math.log10(tickvals[0]), math.log10(tickvals[-1])
    pad = 0.03 * ((high - low) or 1.0)
    return {
        "type": "log",
        "tickmode": "array",
        "tickvals": tickvals,
        "ticktext": ticktext,
        "range": [low - pad, high + pad],
    }


def gradient_norm_plot(
    norms_by_name: Mapping[str, ArrayLike],
    source_tokens: Sequence[str],
    *,
    title: str = "",
    across: bool = True,
) -> go.Figure:
    """||d h_T / d x_j|| over source positions j (log scale), one line per named encoder. Every
    piece keeps its label on the x axis (the figure asks for the width they need); the log axis
    is labelled with plain numbers. ``across`` False: turned on its side, the pieces down the y
    axis (``viz.token_rows``: a long sentence)."""
    n = len(source_tokens)
    ticks = escape(check_labels(source_tokens, n, "source tokens"))
    fig = go.Figure()
    values = []
    for name, norms in norms_by_name.items():
        y = np.maximum(np.asarray(norms, dtype=float).ravel(), 1e-12)
        if y.size != n:
            raise ValueError(f"{name}: {y.size} norms but {n} source tokens")
        values.append(y)
        colour, marker = MODEL_STYLE.get(name, (BLUE, "circle"))
        label = escape([name])[0]
        fig.add_scatter(
            x=list(range(n)),
            y=y,
            mode="lines+markers",
            name=label,
            line={"color": colour},
            marker={"symbol": marker},
            customdata=ticks,
            hovertemplate="%{customdata}: %{y:.2e}<extra>" + label + "</extra>",
        )
    every = np.concatenate(values) if values else np.ones(1)
    yvals = log_ticks(float(every.min()), float(every.max()))
    ytext = [log_tick_label(v) for v in yvals]
    names = escape(list(norms_by_name))
    position_title = _("source position j (h_T is read after the last one)")
    if not across:
        value_axis = log_axis(yvals, ytext) | {"title": {"text": "||∂h_T / ∂x_j||"}}
        return token_rows_figure(
            [trace.to_plotly_json() for trace in fig.data],
            ticks,
            title=title,
            token_title=position_title,
            value_axis=value_axis,
            value_labels=ytext,
        )
    margin, angle = fitted_margin(ticks, ytext, right=LEGEND_PX + widest_px(names))
    fig.update_xaxes(
        token_axis(
            ticks,
            angle=angle,
            range=[-0.6, n - 0.4],
            title={"text": position_title},
        )
    )
    fig.update_yaxes(log_axis(yvals, ytext), title={"text": "||∂h_T / ∂x_j||"})
    fig.update_layout(
        title=left_title(title),
        margin=margin,
        plot_bgcolor="white",
        height=360 + margin["b"],
        width=max(cells_extent(n, margin["l"], margin["r"], TOKEN_PX), 360),
        showlegend=True,
    )
    _framed_axes(fig)
    return fig
