"""Dragging the query and the keys on the Attention anatomy page.

The vector diagram's query and key tips are handles (``components/atlas-plotly/atlas_plotly/assets/
drag.js``). While a handle is dragged the browser recomputes the three stages itself, with the
page's score function and temperature (:class:`DragOptions` carries all it needs), and redraws the
diagram and the scores and weights charts in place; on release it sends the new vectors back (the
trigger ``drag``) and :func:`apply_drag` writes them into the query inputs and the key/value table,
so that the URL and the table follow and the rerun draws the server's values, which equal the
preview: the browser rounds every dragged coordinate to ``STEP`` first, and so does this module.

The vectors are 2-D, so the plane holds them exactly: no projection is involved.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from app_pages.anatomy.number_table import LIMIT, current_rows, set_rows
from viz.anatomy import COLOURS
from viz.behaviours import Behaviours, Chart

STEP = 0.1  # the query inputs' step; dragged coordinates are rounded to it
GROUP = "anat"  # the charts that follow one drag (the scores, the weights, the diagram)
TRACES = ("query", "keys", "context")  # the diagram's groups whose arrows the preview redraws
HANDLES = ("query", "keys")  # the groups whose tips are dragged


def snap(value: float, step: float = STEP) -> float:
    """``value`` rounded to a multiple of ``step`` (1 / step a whole number) and kept within
    [-LIMIT, LIMIT], as drag.js rounds it: value * (1 / step) to a whole number, halves up (as
    JavaScript's Math.round), over 1 / step, so that 2.3 is the float that "2.3" reads as (not
    23 * 0.1 = 2.3000000000000003)."""
    per_unit = round(1 / step)
    return min(LIMIT, max(-LIMIT, math.floor(float(value) * per_unit + 0.5) / per_unit))


@dataclass(frozen=True)
class DragOptions:
    """What drag.js needs to recompute the stages of the vector diagram in the browser.

    group/role: the charts of one page that follow a drag find each other by ``group``; ``role``
    is "vectors" for the diagram. query: (2,); keys, values: (n, 2); names: the items' letters.
    score: a score function of ``models.attention.score`` ("dot", "scaled_dot", "general",
    "additive"); W: (2, 2) for "general", else None; W_q, W_k: (2, 2) and v: (2,) for
    "additive", else None; temperature: divides the scores before the softmax; step: dragged
    coordinates are rounded to it; traces: group -> (arrows trace index, tips trace index) in the
    diagram; key_tips: the keys' names at their tips; colours: group -> the colour of its
    handles (rings at the query's and the keys' tips), its arrows' (``viz.anatomy.COLOURS``);
    limit: no coordinate beyond +-limit.
    """

    group: str
    role: str
    query: list[float]
    keys: list[list[float]]
    values: list[list[float]]
    names: list[str]
    score: str
    W: list[list[float]] | None
    W_q: list[list[float]] | None
    W_k: list[list[float]] | None
    v: list[float] | None
    temperature: float
    step: float
    traces: dict[str, list[int]]
    key_tips: list[str]
    colours: dict[str, str]
    limit: float = LIMIT

    def payload(self) -> dict:
        """The options as ``plotly_chart(drag_chart(fig, self))`` sends them (plain JSON)."""
        return asdict(self)


@dataclass(frozen=True)
class DragMember:
    """The drag options of a chart that only follows the group's drags: ``role`` is "scores" or
    "weights" (its first trace's bars are redrawn)."""

    role: str
    group: str = GROUP

    def payload(self) -> dict:
        """The options as ``plotly_chart(drag_chart(fig, self))`` sends them (plain JSON)."""
        return {"group": self.group, "role": self.role}


def drag_chart(fig: go.Figure, drag: DragOptions | DragMember) -> Chart:
    """One of the page's charts that act on a drag: the vector diagram ``fig`` with its
    :func:`drag_options`, or the scores' or weights' bars with their :class:`DragMember`."""
    return Chart(fig, Behaviours(drag=drag))


def member(role: str) -> dict:
    """The plain-JSON drag options of a chart that only follows the group's drags
    (:class:`DragMember`)."""
    return DragMember(role).payload()


def arrow_traces(fig: go.Figure) -> dict[str, list[int]]:
    """Where the query's, the keys' and the context's traces are in ``viz.vector_diagram``'s
    figure: group -> [its arrows' trace, its tips' trace] (the tips trace is named "<group> tips"
    and follows its arrows)."""
    names = [trace.name for trace in fig.data]
    found = {}
    for group in TRACES:
        tips = names.index(f"{group} tips")  # ValueError: not a vector diagram
        found[group] = [tips - 1, tips]
    return found


def _rows(arr: np.ndarray) -> list[list[float]]:
    return [[float(x) for x in row] for row in np.asarray(arr, dtype=float)]


def drag_options(
    fig: go.Figure,
    query: np.ndarray,
    items: np.ndarray,
    names: Sequence[str],
    *,
    score: str,
    W: np.ndarray | None,
    additive: Mapping[str, object],
    temperature: float,
) -> DragOptions:
    """The options of the diagram ``fig`` drawn from query (2,) and items (n, 4) (key x, key y,
    value x, value y). ``additive``: the additive score's fixed W_q, W_k and v (used only when
    ``score`` is "additive")."""
    is_additive = score == "additive"
    return DragOptions(
        group=GROUP,
        role="vectors",
        query=[float(x) for x in np.asarray(query, dtype=float)],
        keys=_rows(items[:, :2]),
        values=_rows(items[:, 2:]),
        names=list(names),
        score=score,
        W=_rows(W) if score == "general" and W is not None else None,
        W_q=_rows(additive["W_q"]) if is_additive else None,
        W_k=_rows(additive["W_k"]) if is_additive else None,
        v=[float(x) for x in additive["v"]] if is_additive else None,  # type: ignore[union-attr]
        temperature=float(temperature),
        step=STEP,
        traces=arrow_traces(fig),
        key_tips=[f"k:{name}" for name in names],  # as viz.vector_diagram names them
        colours={group: COLOURS[group] for group in HANDLES},
    )


def _point(value: object) -> list[float] | None:
    """A dragged point [x, y], rounded to the step; None when it is not two finite numbers."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(x) and math.isfinite(y)):
        return None
    return [snap(x), snap(y)]


def moved_rows(
    rows: Sequence[Sequence[float]], keys: Sequence[Sequence[float]]
) -> list[list[float]]:
    """The table's ``rows`` (key x, key y, value x, value y; NaN where a cell is unusable) with the
    keys of its complete rows, in order, replaced by ``keys`` (the diagram draws the complete rows
    only). ValueError when the counts differ."""
    complete = [i for i, row in enumerate(rows) if all(math.isfinite(v) for v in row)]
    if len(complete) != len(keys):
        raise ValueError(f"{len(keys)} dragged keys but {len(complete)} complete rows")
    out = [list(map(float, row)) for row in rows]
    for i, key in zip(complete, keys, strict=True):
        out[i][:2] = key
    return out


def apply_drag(chart_key: str) -> None:
    """on_trigger callback of the diagram: write the dragged vectors (``{"query": [x, y], "keys":
    [[x, y], ...]}`` in ``st.session_state[chart_key]["drag"]``) into the query inputs and the
    table; a value that does not fit the table is ignored."""
    value = (st.session_state.get(chart_key) or {}).get("drag") or {}
    query = _point(value.get("query"))
    keys = [_point(k) for k in value.get("keys") or []]
    if query is None or not keys or any(k is None for k in keys):
        return
    rows = current_rows("anat_items")
    try:
        moved = moved_rows(rows, keys)  # type: ignore[arg-type]
    except ValueError:
        return
    st.session_state["anat_qx"], st.session_state["anat_qy"] = query
    if not np.array_equal(moved, rows, equal_nan=True):  # new boxes only when a key moved
        set_rows("anat_items", moved)
