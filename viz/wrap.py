"""A map of tokens by tokens too wide for its column, wrapped as a line of text is: its columns
(keys, sources) split into blocks drawn one under the other, each block with every row labelled
and its own columns' labels, so that nothing is hidden sideways and no cell is drawn under the
legibility minimum. Pure: works on a figure's plain dict (``Figure.to_dict()``, at the
builders' font), as ``ui.charts.plotly_chart`` sends it.

A figure can be wrapped when each of its x axes spans the whole width (its plots are stacked,
not side by side) and labels its columns one by one (``tickmode="array"``: tokens), as many in
each. Each block is a copy of the whole figure's plots: its traces on axes of its own (``x2``,
``y4``, ...) whose x range is the block's columns (plotly clips the rest: cells, bars, overlaid
lines, shapes); a block is as tall as the figure's plots were, and between two blocks there is
room for the columns' labels and for what stands over the plots (a panel's title). The colour
bars stay beside the first block; the copies show none. Shapes and annotations on the axes, and
those on the page beside the plots (a panel's title), are copied to every block; those above the
plots stay over the first block, those below under the last. An animation's frames are copied
the same way (the play behaviour moves the copies as it moves the traces).
"""

from __future__ import annotations

import base64
import copy
import math
import re
from dataclasses import dataclass

import numpy as np

Block = tuple[str, str, int, int]  # (x axis, y axis, first column, last column)


@dataclass(frozen=True)
class Wrapped:
    """The outcome of :func:`wrap_columns`: the figure's dict (changed in place), its traces
    before wrapping (block k's copy of trace t is trace ``t + k * traces``), and each block's
    axes for the figure's first plot and columns, which the hover link's outlines need
    (``viz.hover_link``); one block: left as it was."""

    spec: dict
    traces: int
    blocks: tuple[Block, ...]

    @property
    def wrapped(self) -> bool:
        return len(self.blocks) > 1


def _axis_index(name: str) -> int:
    """1 for "x"/"xaxis"/"y", 3 for "x3"/"yaxis3"."""
    digits = re.sub(r"^(xaxis|yaxis|x|y)", "", name)
    return int(digits) if digits else 1


def _axis_id(name: str, index: int) -> str:
    """The id of axis ``index`` (1-based): "x", "x2", ...; "xaxis", "xaxis2", ..."""
    return name if index == 1 else f"{name}{index}"


def _indices(layout: dict, axis: str) -> list[int]:
    return sorted(_axis_index(k) for k in layout if k.startswith(f"{axis}axis"))


def columns_of(spec: dict) -> int:
    """How many labelled columns the figure's plots have (0 when it cannot be wrapped: see the
    module docstring)."""
    layout = spec.get("layout") or {}
    xs, ys = _indices(layout, "x"), _indices(layout, "y")
    traces = spec.get("data") or []
    if not xs or not ys or not traces:
        return 0
    for t in traces:
        if _axis_index(t.get("xaxis", "x")) not in xs or _axis_index(t.get("yaxis", "y")) not in ys:
            return 0
    counts = set()
    for i in xs:
        axis = layout[_axis_id("xaxis", i)]
        lo, hi = axis.get("domain") or [0, 1]
        if axis.get("tickmode") != "array" or not axis.get("ticktext") or hi - lo < 0.99:
            return 0
        counts.add(len(axis.get("tickvals") or []))
    return counts.pop() if len(counts) == 1 else 0


def blocks_needed(spec: dict, fit_width: float) -> int:
    """How many blocks the figure's columns must be cut into so that it is at most
    ``fit_width`` px wide at its cells' own width (1: it fits, or cannot be wrapped)."""
    layout = spec.get("layout") or {}
    width, n = layout.get("width"), columns_of(spec)
    if not width or not n or width <= fit_width:
        return 1
    sides = _sides(layout)
    cell = (width - sides) / n
    per_block = max(1, math.floor((fit_width - sides) / cell))
    return math.ceil(n / per_block)


def _sides(layout: dict) -> float:
    margin = layout.get("margin") or {}
    return float(margin.get("l") or 0) + float(margin.get("r") or 0)


def _spans(n: int, blocks: int) -> list[tuple[int, int]]:
    """The first and last column of each of ``blocks`` blocks of ``n`` columns, as even as can
    be (the first blocks take one more)."""
    base, extra = divmod(n, blocks)
    spans, start = [], 0
    for k in range(blocks):
        size = base + (1 if k < extra else 0)
        spans.append((start, start + size - 1))
        start += size
    return spans


@dataclass(frozen=True)
class _Band:
    """The wrapped figure's plots, px: ``blocks`` blocks, each ``plot`` tall, ``gap`` between
    two blocks."""

    blocks: int
    plot: float
    gap: float

    @property
    def total(self) -> float:
        return self.blocks * self.plot + (self.blocks - 1) * self.gap

    def y(self, k: int, y: float) -> float:
        """A page height ``y`` of the one-block figure (0 to 1: its plots), in block ``k``."""
        return 1 - (k * (self.plot + self.gap) + (1 - y) * self.plot) / self.total

    def page_y(self, y: float) -> float:
        """A page height outside the plots' band: above them over the first block, below them
        under the last."""
        return self.y(0 if y >= 0 else self.blocks - 1, y)


@dataclass(frozen=True)
class _Renamed:
    """Each block's axis indices: ``x[k][i]`` is block k's copy of x axis i (``y`` alike)."""

    x: list[dict[int, int]]
    y: list[dict[int, int]]

    def ref(self, ref: str, k: int) -> str:
        """An axis reference ("x2", "y3 domain", "paper") of the one-block figure, in block k."""
        head, _, tail = ref.partition(" ")
        if not re.fullmatch(r"[xy]\d*", head):
            return ref
        table = self.x if head[0] == "x" else self.y
        name = _axis_id(head[0], table[k][_axis_index(head)])
        return f"{name} {tail}" if tail else name


def _renamed(layout: dict, blocks: int) -> _Renamed:
    tables = {}
    for axis in ("x", "y"):
        own = _indices(layout, axis)
        top = max(own)
        tables[axis] = [
            {i: i if k == 0 else top + (k - 1) * len(own) + n + 1 for n, i in enumerate(own)}
            for k in range(blocks)
        ]
    return _Renamed(tables["x"], tables["y"])


def wrap_columns(spec: dict, blocks: int) -> Wrapped:
    """The figure cut into ``blocks`` blocks of columns, one under the other (see the module
    docstring); ``blocks`` <= 1, or a figure that cannot be wrapped, is left as it is."""
    n = columns_of(spec)
    layout = spec.get("layout") or {}
    traces = len(spec.get("data") or [])
    if blocks <= 1 or n < 2 or not layout.get("height"):
        return Wrapped(spec, traces, (("x", "y", 0, max(n - 1, 0)),))
    blocks = min(blocks, n)
    spans = _spans(n, blocks)
    margin = layout.get("margin") or {}
    top, bottom = float(margin.get("t") or 0), float(margin.get("b") or 0)
    # between two blocks: the columns' labels, then what stands over the next block (titles)
    band = _Band(blocks, float(layout["height"]) - top - bottom, top + bottom)
    ratio = float(layout["height"]) / round(top + band.total + bottom)
    layout["height"] = round(top + band.total + bottom)
    sides = _sides(layout)
    cell = (float(layout["width"]) - sides) / n
    layout["width"] = round(sides + max(b - a + 1 for a, b in spans) * cell)
    names = _renamed(layout, blocks)
    first_y = _axis_id("y", min(names.y[0]))  # the first plot's (the hover link's heatmap)
    first_x = _axis_id("x", min(names.x[0]))
    _wrap_axes(layout, names, spans, band)
    spec["data"] = _with_copies(spec.get("data") or [], names, band, spans)
    _place_extras(layout, names, band)
    for frame in spec.get("frames") or []:
        _wrap_frame(frame, names, band, traces, spans)
        _keep_from_top([(frame.get("layout") or {}).get("title")], ratio)
    for item in [*(layout.get("sliders") or []), *(layout.get("updatemenus") or [])]:
        if item.get("yref", "paper") == "paper" and isinstance(item.get("y"), int | float):
            item["y"] = band.page_y(float(item["y"]))
    _keep_from_top(
        [layout.get("title"), *(layout.get("sliders") or []), *(layout.get("updatemenus") or [])],
        ratio,
    )
    ids = tuple(
        (names.ref(first_x, k), names.ref(first_y, k), a, b) for k, (a, b) in enumerate(spans)
    )
    return Wrapped(spec, traces, ids)


def _keep_from_top(items: list, ratio: float) -> None:
    """Items placed on the whole figure (``yref="container"``: a title) keep their distance in
    px from its top, the figure's height having changed by 1 / ``ratio``."""
    for item in items:
        if isinstance(item, dict) and item.get("yref") == "container":
            if isinstance(item.get("y"), int | float):
                item["y"] = 1 - (1 - float(item["y"])) * ratio


def _refs(axis: dict, names: _Renamed, k: int, anchor: str) -> None:
    """An axis's references to other axes, in block ``k`` (``anchor``: its default anchor)."""
    axis.setdefault("anchor", anchor)
    for key in ("anchor", "scaleanchor", "overlaying", "matches"):
        if isinstance(axis.get(key), str) and axis[key] != "free":
            axis[key] = names.ref(axis[key], k)


def _wrap_axes(layout: dict, names: _Renamed, spans: list[tuple[int, int]], band: _Band) -> None:
    """Each block's axes: its x axes showing its columns, its y axes within its band."""
    xs = {i: copy.deepcopy(layout[_axis_id("xaxis", i)]) for i in names.x[0]}
    ys = {i: copy.deepcopy(layout[_axis_id("yaxis", i)]) for i in names.y[0]}
    side_top = layout["xaxis"].get("side") == "top" if "xaxis" in layout else False
    for k, (first, last) in enumerate(spans):
        for i, original in xs.items():
            xa = copy.deepcopy(original) | {"range": [first - 0.5, last + 0.5], "autorange": False}
            _refs(xa, names, k, _axis_id("y", i))
            if (k < band.blocks - 1 and not side_top) or (k and side_top):
                xa.pop("title", None)  # the columns' title under the last block (over the first)
            layout[_axis_id("xaxis", names.x[k][i])] = xa
        for i, original in ys.items():
            ya = copy.deepcopy(original)
            lo, hi = original.get("domain") or [0, 1]
            ya["domain"] = [max(0.0, band.y(k, lo)), min(1.0, band.y(k, hi))]
            _refs(ya, names, k, _axis_id("x", i))
            layout[_axis_id("yaxis", names.y[k][i])] = ya


def _with_copies(
    traces: list[dict], names: _Renamed, band: _Band, spans: list[tuple[int, int]]
) -> list:
    """``traces`` (the figure's, or an animation frame's) and their copies on each further
    block's axes, block by block: each block's heatmaps hold only its own columns (``spans``:
    :func:`_columns`), and the colour bars are placed and sized beside the first block as they
    were beside the plots."""
    for trace in traces:
        bar = trace.get("colorbar")
        if isinstance(bar, dict) and trace.get("showscale", True) is not False:
            if bar.get("lenmode", "fraction") == "fraction":
                bar["len"] = float(bar.get("len", 1)) * band.plot / band.total
            bar["y"] = band.y(0, float(bar.get("y", 0.5)))
    blocks = [[] for _ in range(band.blocks)]
    for trace in traces:
        heatmap = trace.get("type") == "heatmap"
        whole = copy.deepcopy(trace) if heatmap else trace  # block 0 keeps only its columns
        for k in range(band.blocks):
            twin = copy.deepcopy(whole) if k else trace
            if k:
                for axis in ("xaxis", "yaxis"):
                    twin[axis] = names.ref(trace.get(axis, axis[0]), k)
                if heatmap or "colorbar" in twin:
                    twin["showscale"] = False
                twin["showlegend"] = False
            if heatmap:
                _columns(twin, *spans[k])
            blocks[k].append(twin)
    return [trace for block in blocks for trace in block]


def _array(value: object) -> np.ndarray | None:
    """A trace's array as numpy: a list, an array, or plotly's typed array ({dtype, bdata,
    shape}); None for anything else."""
    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = [int(n) for n in shape.split(",")]
        return flat.reshape(shape) if shape else flat
    if isinstance(value, list | tuple | np.ndarray):
        return np.asarray(value, dtype=object if isinstance(value, list | tuple) else None)
    return None


def _columns(trace: dict, first: int, last: int) -> None:
    """A heatmap cut to its columns ``first``..``last`` (its x the columns' own numbers), so
    that the blocks together send each cell once."""
    z = _array(trace.get("z"))
    if z is None or z.ndim != 2 or z.shape[1] <= last:
        return
    width = z.shape[1]
    trace["z"] = _as_sent(z[:, first : last + 1])
    x = _array(trace.get("x"))
    xs = x if x is not None and x.ndim == 1 and len(x) == width else np.arange(width)
    trace["x"] = _as_sent(xs[first : last + 1])
    trace.pop("x0", None), trace.pop("dx", None)
    for key in ("customdata", "text", "hovertext"):
        cells = _array(trace.get(key))
        if cells is not None and cells.ndim >= 2 and cells.shape[1] == width:
            trace[key] = _as_sent(cells[:, first : last + 1])


def _as_sent(values: np.ndarray) -> dict | list:
    """An array as a figure's dict holds it: numbers as plotly's typed array, else a list."""
    if values.dtype.kind not in "biuf":
        return values.tolist()
    values = np.ascontiguousarray(values)
    if values.dtype.kind == "b":
        values = values.astype(np.uint8)
    typed = {"dtype": values.dtype.str.lstrip("<|="), "bdata": base64.b64encode(values).decode()}
    return typed | ({"shape": ", ".join(map(str, values.shape))} if values.ndim > 1 else {})


def _wrap_frame(
    frame: dict, names: _Renamed, band: _Band, traces: int, spans: list[tuple[int, int]]
) -> None:
    """An animation frame: its traces' copies (block k's copy of trace t is t + k * traces, a
    heatmap's cut to the block's columns as the figure's) and its layout's shapes and
    annotations, as the figure's."""
    data = frame.get("data") or []
    indices = frame.get("traces") or list(range(len(data)))
    frame["data"] = _with_copies(data, names, band, spans)
    frame["traces"] = [t + k * traces for k in range(band.blocks) for t in indices]
    if isinstance(frame.get("layout"), dict):
        _place_extras(frame["layout"], names, band)


def _place_extras(layout: dict, names: _Renamed, band: _Band) -> None:
    """Shapes and annotations: those on the axes, or on the page beside the plots (a panel's
    title), in every block; those above the plots over the first block, below them under the
    last."""
    for name in ("shapes", "annotations"):
        items = layout.get(name) or []
        default = "x" if name == "shapes" else "paper"
        placed = []
        for item in items:
            xref, yref = item.get("xref", default), item.get("yref", default)
            if yref != "paper":
                placed += [
                    copy.deepcopy(item) | {"xref": names.ref(xref, k), "yref": names.ref(yref, k)}
                    for k in range(band.blocks)
                ]
                continue
            keys = [key for key in ("y", "y0", "y1") if isinstance(item.get(key), int | float)]
            beside = bool(keys) and all(0 <= item[key] <= 1 for key in keys)
            for k in range(band.blocks) if beside else [None]:
                twin = copy.deepcopy(item)
                for key in keys:
                    y = float(item[key])
                    twin[key] = band.y(k, y) if k is not None else band.page_y(y)
                placed.append(twin)
        if items:
            layout[name] = placed
