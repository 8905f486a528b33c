"""The head view of the Multi-head attention page: one layer's heads as lines from each query
token to the key tokens, BertViz-style (pure plotly; no streamlit, no torch). Built as plain
dicts (:mod:`viz.figure`); legend and hover text in the session's language (:mod:`i18n`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import _
from viz._checks import MARGIN, check_labels, escape
from viz.figure import figure
from viz.head_steps import title_annotation, title_margin, title_width
from viz.head_words import heads_in_words
from viz.hover_link import HIGHLIGHT_PX, KEYS_UID, LINE_UID, QUERIES_UID, HoverLink
from viz.measure import LEGEND_PX, LEGEND_ROW_PX, widest_px
from viz.multi_head import checked_weights
from viz.palette import OKABE_ITO, TOL

X_PAD = 0.6  # the x axis runs from -X_PAD to 1 + X_PAD: the token columns sit in the pads

HEAD_COLOURS = [*OKABE_ITO, *TOL]  # a head's colour: Okabe-Ito's eight, then Tol's (viz.palette)


def _colour(head: int) -> str:
    return HEAD_COLOURS[head % len(HEAD_COLOURS)]


def _line_traces(w: np.ndarray, head: int, rows: Sequence[int], threshold: float) -> list[dict]:
    """One head's lines from query i (left, x=0) to key j (right, x=1), four opacity levels."""
    traces = []
    for level, (lo, hi, opacity) in enumerate(
        ((threshold, 0.25, 0.25), (0.25, 0.5, 0.5), (0.5, 0.75, 0.75), (0.75, 1.01, 1.0))
    ):
        xs, ys = [], []
        for i in rows:
            for j in np.nonzero((w[i] >= max(lo, threshold)) & (w[i] < hi))[0].tolist():
                xs += [0, 1, None]
                ys += [i, j, None]
        if xs:
            traces.append(
                {
                    "type": "scatter",
                    "uid": f"{LINE_UID}{head}-{level}",
                    "mode": "lines",
                    "x": xs,
                    "y": ys,
                    "opacity": opacity,
                    "line": {"color": _colour(head), "width": 1 + 3 * opacity},
                    "name": _("head {n}").format(n=head + 1),
                    "legendgroup": f"h{head}",
                    "showlegend": False,
                    "hoverinfo": "skip",
                }
            )
    return traces


def _legend_entry(head: int) -> dict:
    """An empty trace that puts the head's colour in the legend (and toggles its lines)."""
    return {
        "type": "scatter",
        "x": [None],
        "y": [None],
        "mode": "lines",
        "name": _("head {n}").format(n=head + 1),
        "legendgroup": f"h{head}",
        "line": {"color": _colour(head), "width": 4},
    }


def _token_column(side: int, labels: list[str], anchor: str, bold: int | None) -> dict:
    """The tokens written down one side (x = ``side``), token ``bold`` (an index) in bold."""
    text = [f"<b>{t}</b>" if i == bold else t for i, t in enumerate(escape(labels))]
    return {
        "type": "scatter",
        "uid": (QUERIES_UID, KEYS_UID)[side],
        "mode": "text",
        "x": [side] * len(labels),
        "y": list(range(len(labels))),
        "text": text,
        "textposition": f"middle {anchor}",
        "showlegend": False,
        "hoverinfo": "skip",
    }


def _lines_layout(n_tokens: int, labels: list[str], title: str, legend_rows_of: int = 0) -> dict:
    """Layout for ``n_tokens`` rows (the longer side): the title above, the legend (one head a
    row) at the right, and a width that leaves each column of tokens room for the widest. With
    ``legend_rows_of`` heads, their legend goes in rows under the lines instead (half a row)."""
    item = LEGEND_PX + widest_px([_("head {n}").format(n=99)])  # a head's name with its symbol
    margin = MARGIN | {"t": title_margin(title), "r": MARGIN["r"] if legend_rows_of else item}
    tokens_px = (widest_px(labels) + 16) * (1 + 2 * X_PAD) / X_PAD  # both token columns fit
    height = max(360, 26 * n_tokens + 40 + margin["t"])
    width = max(title_width(title, margin), math.ceil(tokens_px) + margin["l"] + margin["r"])
    legend = {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"}
    if legend_rows_of:
        per_row = max(1, (width - margin["l"] - margin["r"]) // item)
        extra = -(-legend_rows_of // per_row) * LEGEND_ROW_PX
        margin["b"] += extra
        height += extra
        legend = {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"}
    return {
        "annotations": [title_annotation(title, height - margin["t"] - margin["b"])],
        "height": height,
        "width": width,
        "margin": margin,
        "xaxis": {"range": [-X_PAD, 1 + X_PAD], "visible": False},
        "yaxis": {"range": [n_tokens, -1], "visible": False},
        "legend": legend,
    }


def head_lines_width(
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    title: str = "",
    legend_below: bool = False,
    n_heads: int = 1,
) -> int:
    """The ``layout.width`` :func:`head_lines` gives the head view of these tokens (its legend
    of ``n_heads`` heads under the lines with ``legend_below``), without drawing it."""
    xs, ys = [str(x) for x in x_labels], [str(y) for y in y_labels]
    below = n_heads if legend_below else 0
    return _lines_layout(max(len(xs), len(ys)), [*xs, *ys], title, legend_rows_of=below)["width"]


def head_lines(
    weights: ArrayLike,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    heads: Sequence[int],
    token: int | None = None,
    threshold: float = 0.1,
    title: str = "",
    legend_below: bool = False,
) -> go.Figure:
    """BertViz-style head view of one layer: weights (H, T_q, T_k) as lines from each query token
    (left) to the key tokens (right), one colour per head in ``heads`` (0-based), opacity and width
    by weight, weights below ``threshold`` left out; ``token`` (a query index) keeps only its lines.
    The heads' legend at the right, or under the lines (``legend_below``: for half a row).
    Its part in a hover link with a heatmap of one head: :func:`lines_link`."""
    w = checked_weights(weights, 3, "weights")
    ys = check_labels(y_labels, w.shape[1], f"query labels vs {w.shape[1]} rows")
    xs = check_labels(x_labels, w.shape[2], f"key labels vs {w.shape[2]} columns")
    if token is not None and not 0 <= token < w.shape[1]:
        raise ValueError(f"token {token} is outside the {w.shape[1]} query tokens")
    rows = range(w.shape[1]) if token is None else [token]
    traces = []
    for head in heads:
        traces += [*_line_traces(w[head], head, rows, threshold), _legend_entry(head)]
    traces += [_token_column(0, ys, "left", token), _token_column(1, xs, "right", None)]
    below = len(heads) if legend_below else 0
    layout = _lines_layout(max(len(xs), len(ys)), [*xs, *ys], title, legend_rows_of=below)
    layout["meta"] = {"atlas": heads_in_words(w, heads, ys, xs)}  # in words: viz.describe
    return figure({"data": traces, "layout": layout})


def lines_link(fig: go.Figure, head: int, group: str) -> HoverLink:
    """The part in hover link ``group`` of ``fig`` (:func:`head_lines`), linked to a heatmap of
    ``head`` (0-based; drawn in the lines or not): the traces of that head's lines, and the colour
    its hovered lines are drawn in. ValueError if ``fig`` has no token columns."""
    uids = [trace.uid or "" for trace in fig.data]
    if not {QUERIES_UID, KEYS_UID} <= set(uids):
        raise ValueError("not a head view: no token columns (viz.multi_head_lines.head_lines)")
    queries, keys = (fig.data[uids.index(uid)] for uid in (QUERIES_UID, KEYS_UID))
    return HoverLink(
        group,
        "lines",
        n_queries=len(queries.y),
        n_keys=len(keys.y),
        linked=tuple(n for n, uid in enumerate(uids) if uid.startswith(f"{LINE_UID}{head}-")),
        colour=_colour(head),
        width=HIGHLIGHT_PX,
    )
