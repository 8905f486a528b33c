"""Bar charts and 2-D vector diagrams for the attention anatomy, whose tip names are placed apart
(pure plotly, no streamlit); and ``title_beside_colorbar`` for any heatmap's colour bar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import N_, _
from viz._checks import MARGIN, check_labels, escape
from viz.axes import token_axis
from viz.describe import number
from viz.figure import figure
from viz.heatmaps import WEIGHT, label_separator
from viz.measure import LEGEND_PX, fitted_margin, number_labels, text_px, widest_px
from viz.palette import BLACK, BLUE, BLUISH_GREEN, GREY, VERMILLION

COLOURS = {"query": VERMILLION, "keys": BLUE, "values": BLUISH_GREEN, "context": BLACK}
# The vector diagram's groups: id (its colour) -> its name in the legend, translated when shown.
GROUPS = {
    "keys": N_("keys"),
    "values": N_("values"),
    "query": N_("query"),
    "context": N_("context"),
}


def weights_bar(
    series: Mapping[str, ArrayLike] | ArrayLike,
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
        "xaxis": token_axis(ticks, angle=angle),
        "yaxis": {"title": {"text": y_title}},
    }
    # plain dicts (viz.figure): the anatomy page redraws this on every edit
    return figure({"data": bars, "layout": layout})


def _arrows(
    points: np.ndarray,
    tips: tuple[np.ndarray, list[str], Sequence[str]],
    group: str,
    dash: str,
    label: str | None = None,
) -> list[dict]:
    """Arrows from the origin to each 2-D point: one line trace with arrow-head markers at the
    tips (``angleref="previous"`` points them along the line), cheaper to draw than annotations;
    and the names at the tips: ``tips`` = (points (m, 2), their names, the side of the tip each
    name is on, as plotly text positions). ``group`` picks the colour; ``label`` (default
    ``group``) names the arrows in the hover text."""
    label = group if label is None else label
    xs: list[float | None] = []
    ys: list[float | None] = []
    for x, y in points:
        xs += [0.0, float(x), None]
        ys += [0.0, float(y), None]
    colour = COLOURS.get(group, GREY)
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
            "x": tips[0][:, 0],
            "y": tips[0][:, 1],
            # an invisible marker keeps each name TIP_MARKER_PX / 2 off its tip
            "mode": "markers+text",
            "marker": {"size": TIP_MARKER_PX, "opacity": 0},
            "text": escape(tips[1]),
            "textposition": list(tips[2]),
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


def _merged(points: np.ndarray, names: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """The distinct tips of one group and their names: tips that coincide share one name
    ('k:A, k:B'), which is drawn once."""
    tips: list[np.ndarray] = []
    joined: list[str] = []
    for point, name in zip(points, names, strict=True):
        same = next((i for i, tip in enumerate(tips) if np.allclose(tip, point)), None)
        if same is None:
            tips.append(point)
            joined.append(name)
        else:
            joined[same] += ", " + name
    return np.array(tips, dtype=float).reshape(-1, 2), joined


def _as_points(arr: ArrayLike, name: str) -> np.ndarray:
    """(n, 2) finite float array or ValueError."""
    pts = np.asarray(arr, dtype=float).reshape(-1, 2) if np.size(arr) else np.zeros((0, 2))
    if not np.all(np.isfinite(pts)):
        raise ValueError(f"{name} contain NaN or infinite values")
    return pts


# Where a tip's name can go (plotly text positions), as (x, y) offsets of the name's box from
# the tip in units of (its width, its height) and of the gap: -1 left/below, 0 centred, 1 right/above.
PLACES = {
    "top center": (0, 1),
    "bottom center": (0, -1),
    "middle right": (1, 0),
    "middle left": (-1, 0),
    "top right": (1, 1),
    "top left": (-1, 1),
    "bottom right": (1, -1),
    "bottom left": (-1, -1),
}
LABEL_PX = 18  # a tip name's height at plotly's 12 px font, with room to spare
TIP_MARKER_PX = 10
LABEL_GAP_PX = 7  # from a tip to its name: plotly puts text size / 1.6 + 1 px off a marker
# The smallest side, in px at the 12 px font, the diagram's square of data is drawn at (a phone,
# or a projector's half column in classroom mode, where text and plot grow alike): names that do
# not overlap there do not overlap anywhere.
DIAGRAM_PX = 230
DIAGRAM_HEIGHT = 400  # a plot at least DIAGRAM_PX high (ui.charts grows it with the font)


def _box(x: float, y: float, w: float, h: float, gap: float, place: str) -> tuple:
    """(x0, y0, x1, y1) of a name w x h (data units) at ``place`` beside the tip (x, y)."""
    dx, dy = PLACES[place]
    cx = x + dx * (w / 2 + gap)
    cy = y + dy * (h / 2 + gap)
    return cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2


def _overlaps(box: tuple, others: np.ndarray) -> float:
    """The total area the box (x0, y0, x1, y1) shares with each of ``others`` (m, 4)."""
    if not len(others):
        return 0.0
    w = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0])  # (m,)
    h = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1])  # (m,)
    return float((np.clip(w, 0.0, None) * np.clip(h, 0.0, None)).sum())


def _preferred(x: float, y: float) -> list[str]:
    """The places for a tip's name, the one pointing away from the origin (along the arrow)
    first, then the others."""
    if abs(x) < 1e-12 and abs(y) < 1e-12:
        first = "top center"
    else:
        vertical = "top" if y > 0 else "bottom"
        horizontal = "right" if x > 0 else "left"
        if abs(x) > 2 * abs(y):
            first = f"middle {horizontal}"
        elif abs(y) > 2 * abs(x):
            first = f"{vertical} center"
        else:
            first = f"{vertical} {horizontal}"
    return [first, *(place for place in PLACES if place != first)]


def _arrow_boxes(tips: np.ndarray, unit: float) -> np.ndarray:
    """Small boxes (n * 10, 4) along each arrow from the origin to a tip (n, 2): names should
    not sit on the arrows either."""
    half = 3 * unit  # px
    steps = np.linspace(0.15, 1.0, 10)
    centres = (steps[None, :, None] * tips[:, None, :]).reshape(-1, 2)  # (n * 10, 2)
    return np.concatenate([centres - half, centres + half], axis=1)


def place_names(tips: np.ndarray, names: Sequence[str], unit: float) -> tuple[list[str], list]:
    """A place (plotly text position) for the name of each tip (n, 2), one after the other, so
    that no two names overlap when a data unit is drawn ``1 / unit`` px: the first free place
    of :func:`_preferred`, else the least crowded one (names count more than arrows). Returns
    (places, the names' boxes)."""
    places, boxes, arrows = [], [], _arrow_boxes(tips, unit)
    for (x, y), name in zip(tips, names, strict=True):
        w, h, gap = text_px(name) * unit, LABEL_PX * unit, LABEL_GAP_PX * unit
        options = [(place, _box(x, y, w, h, gap, place)) for place in _preferred(x, y)]
        placed = np.array(boxes).reshape(-1, 4)
        crowding = [10 * _overlaps(box, placed) + _overlaps(box, arrows) for __, box in options]
        place, box = options[crowding.index(min(crowding))]
        places.append(place)
        boxes.append(box)
    return places, boxes


def name_layout(tips: np.ndarray, names: Sequence[str]) -> tuple[list[str], list, list, list]:
    """(places of the names, their boxes, x range, y range): the names placed apart for a square
    of DIAGRAM_PX px over ranges that hold the origin, the tips and the names. The names' size in
    data units depends on the ranges, so this repeats until the ranges need no more room than
    the names were placed for."""
    lo = np.minimum(tips.min(axis=0, initial=0.0), 0.0)
    hi = np.maximum(tips.max(axis=0, initial=0.0), 0.0)
    side = max(float((hi - lo).max()), 1e-9) * 1.4
    for __ in range(6):
        places, boxes = place_names(tips, names, side / DIAGRAM_PX)
        every = np.array([[*lo, *hi], *boxes])  # (n + 1, 4)
        low = np.minimum(every[:, :2].min(axis=0), lo)
        high = np.maximum(every[:, 2:].max(axis=0), hi)
        pad = 0.03 * float((high - low).max())
        low, high = low - pad, high + pad
        needed = float((high - low).max())
        if needed <= side * 1.0001:
            break
        side = needed
    return places, boxes, [low[0], high[0]], [low[1], high[1]]


def _named_arrows(arrows: list[tuple]) -> tuple[list[dict], list, list]:
    """The traces of every group of ``arrows`` (points, tip names, group, dash, hover label),
    their names placed apart (the query's and the context's first: they keep their best
    places), and the x and y ranges that hold them."""
    merged = [_merged(points, tip_names) for points, tip_names, *__ in arrows]
    order = [2, 3, *range(4, len(arrows)), 0, 1]
    tips = np.concatenate([merged[i][0] for i in order])
    places, __, x_range, y_range = name_layout(tips, [n for i in order for n in merged[i][1]])
    traces, start = [[] for __ in arrows], 0
    for i in order:
        points, __, group, dash, label = arrows[i]
        at, tip_names = merged[i]
        shown = (at, tip_names, places[start : start + len(at)])
        traces[i] = _arrows(points, shown, group, dash, label)
        start += len(at)
    return [trace for pair in traces for trace in pair], x_range, y_range


def vector_diagram(
    query: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike,
    context: ArrayLike,
    labels: Sequence[str] | None = None,
    *,
    title: str = "",
    extra: Mapping[str, ArrayLike] | None = None,
) -> go.Figure:
    """Query (2,), keys (n, 2), values (n, 2) and context (2,) as arrows from the origin, each
    tip named (k:A, v:A, query, context, and each ``extra``), the names placed apart.

    ``extra`` adds named single vectors (e.g. a hard-attention pick), drawn dashed; their names
    and ``title`` are shown as they are (pass translated text), the groups' names are translated.
    No legend: the names at the tips say what each arrow is.
    """
    k, v = _as_points(keys, "keys"), _as_points(values, "values")
    if k.shape != v.shape:
        raise ValueError(f"{k.shape[0]} keys but {v.shape[0]} values")
    names = check_labels(labels, k.shape[0], f"labels vs {k.shape[0]} keys")
    shown = {group: _(text) for group, text in GROUPS.items()}
    arrows = [  # (points, tip names, group, dash, hover label)
        (k, [f"k:{n}" for n in names], "keys", "dot", shown["keys"]),
        (v, [f"v:{n}" for n in names], "values", "solid", shown["values"]),
        (_as_points(query, "query")[:1], [shown["query"]], "query", "solid", shown["query"]),
        (
            _as_points(context, "context")[:1],
            [shown["context"]],
            "context",
            "solid",
            shown["context"],
        ),
        *(
            (_as_points(vec, name)[:1], [name], name, "dash", name)
            for name, vec in (extra or {}).items()
        ),
    ]
    traces, x_range, y_range = _named_arrows(arrows)
    rows = [
        [tip, label, number(x), number(y)]
        for points, tips, __, __, label in arrows
        for tip, (x, y) in zip(tips, points, strict=False)
    ]
    said = "; ".join(f"{tip} ({x}, {y})" for tip, __, x, y in rows)
    columns = ["", _("vector"), "x", "y"]
    layout = {
        "title": {"text": title},
        "margin": MARGIN | {"r": 20},
        "height": DIAGRAM_HEIGHT,
        "showlegend": False,
        # in words (viz.describe): every arrow's tip, named as drawn
        "meta": {
            "atlas": {
                "summary": _("Arrows from the origin to: {tips}.").format(tips=said),
                "tables": [{"caption": "", "columns": columns, "rows": rows}],
            }
        },
        "xaxis": {"zeroline": True, "range": x_range},
        "yaxis": {"scaleanchor": "x", "scaleratio": 1, "zeroline": True, "range": y_range},
    }
    return figure({"data": traces, "layout": layout})


COLORBAR_TITLE_BESIDE_PX = 8


def title_beside_colorbar(fig: go.Figure) -> go.Figure:
    """Write the colour bars' titles (heatmaps' and the colour axis's) up their right side: on
    top, a title met the bar's highest tick label ('1') when the scale ends on a round number.
    Changes ``fig``; returns it."""
    fig.update_traces(colorbar_title_side="right", selector={"type": "heatmap"})
    if fig.layout.coloraxis.colorbar.title.text:
        fig.layout.coloraxis.colorbar.title.side = "right"
    if fig.layout.margin.r is not None:  # a title beside the bar is a little wider than above it
        fig.layout.margin.r += COLORBAR_TITLE_BESIDE_PX
    return fig
