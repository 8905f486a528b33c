"""Bar charts and 2-D vector diagrams for the attention anatomy (pure plotly, no streamlit)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from i18n import N_, _
from viz._checks import MARGIN, check_labels, escape
from viz._margins import LEGEND_PX, fitted_margin, number_labels, widest_px
from viz.heatmaps import WEIGHT, label_separator

COLOURS = {"query": "#D55E00", "keys": "#0072B2", "values": "#009E73", "context": "#000000"}
# The vector diagram's groups: id (its colour) -> its name in the legend, translated when shown.
GROUPS = {
    "keys": N_("keys"),
    "values": N_("values"),
    "query": N_("query"),
    "context": N_("context"),
}


def weights_bar(
    series: Mapping[str, object] | object,
    labels: Sequence[str] | None = None,
    *,
    title: str = "",
    y_title: str | None = None,
) -> go.Figure:
    """Bars of one or more 1-D series (e.g. scores, or raw vs final weights) over the same items.

    ``series`` is an array (one series) or a mapping name -> array, each of length n. The title,
    ``y_title`` (default 'weight' in the current language) and the series names are shown as
    they are: pass translated text.
    """
    y_title = _(WEIGHT) if y_title is None else y_title
    sep = label_separator()
    named = series if isinstance(series, Mapping) else {y_title: series}
    arrays = {name: np.asarray(values, dtype=float).ravel() for name, values in named.items()}
    sizes = {name: arr.size for name, arr in arrays.items()}
    n = next(iter(sizes.values()), 0)
    if any(size != n for size in sizes.values()):
        raise ValueError(f"series have different lengths: {sizes}")
    shown = check_labels(labels, n, f"labels vs {n} values")
    ticks = escape(shown)
    bars = [
        {
            "type": "bar",
            "x": list(range(n)),
            "y": arr,
            "name": name,
            "text": [f"{v:.3f}" for v in arr],
            "textposition": "auto",
            "customdata": ticks,
            "hovertemplate": "%{customdata}" + sep + "%{y:.3f}<extra>" + name + "</extra>",
        }
        for name, arr in arrays.items()
    ]
    margin, angle = fitted_margin(
        shown,
        number_labels(arrays.values()),
        x_title=False,
        right=20
        if len(arrays) == 1
        else LEGEND_PX + widest_px(list(arrays)),  # room for the legend
    )
    layout = {
        "title": {"text": title},
        "barmode": "group",
        "margin": margin,
        "xaxis": {
            "tickmode": "array",
            "tickvals": list(range(n)),
            "ticktext": ticks,
            "tickangle": angle,
        },
        "yaxis": {"title": {"text": y_title}},
    }
    # built as plain dicts and validated once: the anatomy page redraws this on every edit
    return go.Figure({"data": bars, "layout": layout})


def _arrows(
    points: np.ndarray, names: list[str], group: str, dash: str, label: str | None = None
) -> list[dict]:
    """Arrows from the origin to each 2-D point: one line trace with arrow-head markers at the
    tips (``angleref="previous"`` points them along the line), cheaper to draw than annotations;
    and the names at the tips. ``group`` picks the colour; ``label`` (default ``group``) names
    the arrows in the legend and the hover text."""
    label = group if label is None else label
    xs: list[float | None] = []
    ys: list[float | None] = []
    for x, y in points:
        xs += [0.0, float(x), None]
        ys += [0.0, float(y), None]
    colour = COLOURS.get(group, "#555555")
    return [
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines+markers",
            "name": label,
            "line": {"color": colour, "dash": dash},
            "hoverinfo": "skip",
            "marker": {
                "symbol": "arrow",
                "angleref": "previous",
                "size": [0, 13, 0] * len(points),
                "color": colour,
            },
        },
        {
            "type": "scatter",
            "x": points[:, 0],
            "y": points[:, 1],
            "mode": "text",
            "text": escape(names),
            "textposition": "top center",
            "textfont": {"color": colour},
            "name": f"{group} tips",
            "showlegend": False,
            "hovertemplate": "%{text}"
            + label_separator()
            + "(%{x:.3f}, %{y:.3f})<extra>"
            + label
            + "</extra>",
        },
    ]


def _as_points(arr: object, name: str) -> np.ndarray:
    """(n, 2) finite float array or ValueError."""
    pts = np.asarray(arr, dtype=float).reshape(-1, 2) if np.size(arr) else np.zeros((0, 2))
    if not np.all(np.isfinite(pts)):
        raise ValueError(f"{name} contain NaN or infinite values")
    return pts


def vector_diagram(
    query: object,
    keys: object,
    values: object,
    context: object,
    labels: Sequence[str] | None = None,
    *,
    title: str = "",
    extra: Mapping[str, object] | None = None,
) -> go.Figure:
    """Query (2,), keys (n, 2), values (n, 2) and context (2,) as arrows from the origin.

    ``extra`` adds named single vectors (e.g. a hard-attention pick), drawn dashed; their names
    and ``title`` are shown as they are (pass translated text), the groups' names are translated.
    """
    k, v = _as_points(keys, "keys"), _as_points(values, "values")
    if k.shape != v.shape:
        raise ValueError(f"{k.shape[0]} keys but {v.shape[0]} values")
    names = check_labels(labels, k.shape[0], f"labels vs {k.shape[0]} keys")
    shown = {group: _(text) for group, text in GROUPS.items()}
    traces = [
        *_arrows(k, [f"k:{n}" for n in names], "keys", "dot", shown["keys"]),
        *_arrows(v, [f"v:{n}" for n in names], "values", "solid", shown["values"]),
        *_arrows(
            _as_points(query, "query")[:1], [shown["query"]], "query", "solid", shown["query"]
        ),
        *_arrows(
            _as_points(context, "context")[:1],
            [shown["context"]],
            "context",
            "solid",
            shown["context"],
        ),
    ]
    for name, vec in (extra or {}).items():
        traces += _arrows(_as_points(vec, name)[:1], [name], name, "dash")
    legend = [*shown.values(), *(extra or {})]
    layout = {
        "title": {"text": title},
        "margin": MARGIN
        | {"r": LEGEND_PX + widest_px(legend)},  # the legend sits in the right margin
        "xaxis": {"zeroline": True},
        "yaxis": {"scaleanchor": "x", "scaleratio": 1, "zeroline": True},
    }
    return go.Figure({"data": traces, "layout": layout})  # validated once
