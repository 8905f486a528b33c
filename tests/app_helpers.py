"""The app under AppTest, opened the way a browser navigates to a page, and the charts it drew
read one way whichever path drew them (the chart component or ``st.plotly_chart``)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.server import ROOT

APP = str(ROOT / "app.py")


def open_app(
    page: str | None = None,
    params: dict[str, str] | None = None,
    first: dict[str, str] | None = None,
    timeout: float = 60,
) -> AppTest:
    """Run the app (home, with the ``first`` URL params), then open ``page`` with ``params`` (a
    navigation clears the URL params, as in the browser); no exception was raised."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for name, value in (first or {}).items():
        at.query_params[name] = value
    at.run()
    if page:
        at.switch_page(page)
        for name, value in (params or {}).items():
            at.query_params[name] = value
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# The chart component's name as Streamlit registers it (components/atlas-plotly: ``NAME``).
COMPONENT = "atlas-plotly.chart"
# The style ``ui.charts._wide`` gives a wide st.plotly_chart's scrolling box: (box key, least width).
_WIDE = re.compile(r"\.st-key-([\w-]+) \.stElementContainer\{min-width:(\d+)px\}")
_TYPED = {"dtype", "bdata", "shape"}
# plotly.js's typed arrays' dtypes as numpy's ("u1c": a Uint8ClampedArray), little-endian.
_DTYPES = {name: f"<{name[:2]}" for name in ("i1", "u1", "u1c", "i2", "u2", "i4", "u4", "f4", "f8")}


@dataclass(frozen=True)
class SentChart:
    """One chart as the app sent it. ``figure``: ``{"data", "layout", "frames"}`` as plain Python
    (plotly's typed arrays decoded to lists, nested for a 2-D one; ``frames`` a list, empty for
    none); the layout's ``template`` is left as sent (the component's has its colours filled in,
    st.plotly_chart's keeps the "streamlit" template's placeholders). ``behaviours``: the
    component's behaviour options (``{}`` from st.plotly_chart); ``select``: whether clicks are
    sent back; ``min_width``: the least width it is drawn at (the figure's ``layout.width``, taken
    out of the layout on both paths), None for none; ``component``: whether the chart component
    drew it (False: st.plotly_chart, the fallback)."""

    key: str | None
    figure: dict
    behaviours: dict
    select: bool
    min_width: int | float | None
    component: bool

    @property
    def data(self) -> list[dict]:
        return self.figure["data"]

    @property
    def layout(self) -> dict:
        return self.figure["layout"]


def decode_arrays(node: object) -> object:
    """``node`` (a figure's plain JSON, or a part of it) with every plotly typed array
    (``{"dtype", "bdata"[, "shape"]}``: base64 of little-endian values, ``shape`` "rows, columns")
    decoded to a list (nested lists for a shape of more than one dimension); the rest as it is
    (a dtype plotly.js does not know, or ``bdata`` that is not text, is left as plotly.js leaves
    it)."""
    if isinstance(node, list):
        return [decode_arrays(item) for item in node]
    if not isinstance(node, dict):
        return node
    if (
        {"dtype", "bdata"} <= node.keys() <= _TYPED
        and node["dtype"] in _DTYPES
        and isinstance(node["bdata"], str)
    ):
        values = np.frombuffer(base64.b64decode(node["bdata"]), dtype=_DTYPES[node["dtype"]])
        shape = node.get("shape")
        if shape is not None:
            dims = shape.split(",") if isinstance(shape, str) else shape
            values = values.reshape([int(n) for n in dims])
        return values.tolist()
    return {name: decode_arrays(value) for name, value in node.items()}


def _figure(spec: dict) -> dict:
    return {
        "data": decode_arrays(spec.get("data") or []),
        "layout": decode_arrays(spec.get("layout") or {}),
        "frames": decode_arrays(spec.get("frames") or []),
    }


def _walk(node: object, boxes: tuple[str, ...] = ()) -> Iterator[tuple[object, tuple[str, ...]]]:
    """Every element under ``node`` in the page's order, with the keys of the blocks around it."""
    children = getattr(node, "children", None)
    if children is None:
        yield node, boxes
        return
    key = getattr(node, "key", None)
    inner = (*boxes, key) if isinstance(key, str) and key else boxes
    for child in children.values():
        yield from _walk(child, inner)


def charts(at: AppTest) -> list[SentChart]:
    """Every chart ``at`` drew, in the page's order: the chart component's (its payload,
    ``ui.plotly_component.payload``) and st.plotly_chart's (its figure's JSON) alike."""
    nodes = list(_walk(at._tree))
    # A wide st.plotly_chart sits in a keyed box that scrolls, given its least width by a style
    # (``ui.charts._wide``; Streamlit puts a style-only st.html elsewhere on the page).
    widths = {
        box: int(width)
        for node, _ in nodes
        if getattr(node, "type", None) == "html"
        for box, width in _WIDE.findall(node.proto.body)
    }
    out = []
    for node, boxes in nodes:
        kind = getattr(node, "type", None)
        if kind == "bidi_component" and node.proto.component_name == COMPONENT:
            message = json.loads(node.proto.bytes)
            out.append(
                SentChart(
                    key=node.key,
                    figure=_figure(message["figure"]),
                    behaviours=message.get("behaviours") or {},
                    select=bool(message.get("select")),
                    min_width=message.get("minWidth"),
                    component=True,
                )
            )
        elif kind == "plotly_chart":
            out.append(
                SentChart(
                    key=node.key,
                    figure=_figure(json.loads(node.proto.spec)),
                    behaviours={},
                    select=bool(node.proto.selection_mode),
                    min_width=next((widths[b] for b in reversed(boxes) if b in widths), None),
                    component=False,
                )
            )
    return out


def check_path(at: AppTest, chart_path: str) -> None:
    """Every chart of ``at`` went the way the ``chart_path`` fixture chose (tests/conftest.py:
    "component" or "fallback"), and there is one at least."""
    drawn = [sent.component for sent in charts(at)]
    assert drawn and all(one == (chart_path == "component") for one in drawn), (chart_path, drawn)


def figures(at: AppTest) -> list[dict]:
    """The figures of :func:`charts`, in the page's order."""
    return [sent.figure for sent in charts(at)]


def chart(at: AppTest, key: str) -> SentChart:
    """The one chart drawn under ``key``."""
    found = [sent for sent in charts(at) if sent.key == key]
    assert len(found) == 1, (key, [sent.key for sent in charts(at)])
    return found[0]
