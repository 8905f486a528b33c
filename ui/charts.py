"""``plotly_chart``: the one way pages show a plotly figure, legible on every screen.

Figure builders (viz/) write for plotly's default 12 px font, sized from their labels
(``viz.measure``). A page says where the chart goes (a :class:`ui.fit.Fit`); here, just before the
figure is sent, it is scaled by ``ui.fit``'s rule and made legible:

- every font in it is made legible for the screen: in classroom mode each size is scaled (by
  ``CLASSROOM_SCALE``, 20/12, or less to fit) with a floor of ``CLASSROOM_MIN_PX``, and the
  margins, the height and any minimum width grow by the same factor, so the larger labels still
  fit; otherwise sizes under ``MIN_PX`` are raised to it. Axis and title ``automargin`` (set here:
  Streamlit's default plotly template has none) are the safety net for anything wider than
  estimated;
- a map of tokens by tokens wider than its column even at the least legible scale is wrapped into
  blocks of columns (``viz.wrap``); any other figure that asks for more width than the column
  gives (``layout.width``: the width its cells need) keeps that width and scrolls sideways in its
  own container instead of being squeezed, so every token keeps its label and each cell its size.

The chart is drawn by the chart component (``ui.plotly_component``: mounted under the chart's key,
updated in place with ``Plotly.react``), or by ``st.plotly_chart`` where the component is off.
Both draw the same legible figure: ``legible`` makes the figure's plain dict (``Figure.to_dict()``)
legible once, without plotly's validation on the way back, for either path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import plotly.graph_objects as go
import streamlit as st

from i18n import N_, _
from serve.memory import figure_bytes, note_figure
from ui import plotly_component
from ui.fit import (
    BASE_FONT_PX,
    CLASSROOM_MIN_PX,
    CLASSROOM_SCALE,
    LEAST_CLASSROOM_SCALE,
    MIN_PX,
    PAGE_FIT,
    Fit,
    column_px,
    height_fitted,
    width_scale,
)
from ui.sidebar import classroom_mode
from viz.behaviours import Behaviours, Chart
from viz.describe import ChartText, chart_text
from viz.figure import colour_scale
from viz.palette import OKABE_ITO  # every chart's colour way: see viz.palette
from viz.wrap import blocks_needed, wrap_columns

CLASSROOM_SEQUENTIAL = "Cividis"
CLASSROOM_DIVERGING = "PuOr"
TITLE_PAD_PX = 8  # space above a chart title
# every chart drawn by the component has a full-screen button (fullscreen.js); st.plotly_chart
# has Streamlit's own
FULLSCREEN_LABEL = N_("Full screen (Esc to return)")
# every chart drawn by the component has its name, summary and numbers in words (describe.js,
# from viz.describe); its tables open with a button that the keyboard reaches
NUMBERS_LABELS = {
    "show": N_("Show the numbers as a table"),
    "hide": N_("Hide the table"),
    "more_rows": N_("{n} more rows are not shown."),
    "more_columns": N_("{n} more columns are not shown."),
}
PLOTLY_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2, "filename": "attention-atlas"},
}


def _scaled_fonts(node: object, scale: float, floor: int) -> object:
    """A copy of a plotly JSON ``node`` with every ``size`` inside a ``*font`` mapping scaled by
    ``scale`` and raised to at least ``floor``."""
    if isinstance(node, list):
        return [_scaled_fonts(item, scale, floor) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for name, value in node.items():
        if name.endswith("font") and isinstance(value, dict) and "size" in value:
            size = value["size"]
            if isinstance(size, int | float):
                value = value | {"size": max(floor, round(size * scale))}
        out[name] = _scaled_fonts(value, scale, floor)
    return out


def _scaled_layout(layout: dict, scale: float, floor: int) -> dict:
    """The layout with legible fonts, and with margins, height and width grown by ``scale``."""
    layout = _scaled_fonts(layout, scale, floor)
    base = (layout.get("font") or {}).get("size", BASE_FONT_PX)
    layout["font"] = (layout.get("font") or {}) | {"size": max(floor, round(base * scale))}
    if scale != 1:
        margin = layout.get("margin")
        if margin:
            layout["margin"] = margin | {
                side: round(margin[side] * scale) for side in ("l", "r", "t", "b") if side in margin
            }
        for extent in ("height", "width"):
            if layout.get(extent) is not None:
                layout[extent] = round(layout[extent] * scale)
    for name, axis in layout.items():
        # Streamlit's default plotly template has no automargin: put the safety net back
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            axis.setdefault("automargin", True)
    title = layout.get("title")
    if isinstance(title, dict) and title.get("text"):
        # automargin pushes the top margin to fit the title; the pad keeps its ascenders off the
        # figure's top edge (without it, glyphs reach 3-5 px above the SVG)
        pad = title.get("pad") or {}
        top = max(pad.get("t", 0), round(TITLE_PAD_PX * scale))
        layout["title"] = title | {"automargin": True, "pad": pad | {"t": top}}
    return layout


def _scale_floor(classroom: bool, scale: float | None) -> tuple[float, int]:
    if not classroom:
        return 1.0, MIN_PX
    return (CLASSROOM_SCALE if scale is None else scale), CLASSROOM_MIN_PX


def legible(spec: dict, *, classroom: bool, scale: float | None = None) -> dict:
    """Make a figure's plain dict (``Figure.to_dict()``) legible for the screen (see the module
    docstring): fonts, margins and sizes, and in classroom mode a colour-blind-safe palette and
    colour scales. Changes ``spec`` in place and returns it; ``scale``: classroom mode's scale when
    not CLASSROOM_SCALE (:func:`fitted_scale`)."""
    scale, floor = _scale_floor(classroom, scale)
    layout = spec.get("layout") or {}
    traces = spec.get("data") or []
    if classroom:
        layout["colorway"] = OKABE_ITO
        for trace in traces:
            if trace.get("type") == "heatmap":
                diverging = trace.get("zmid") is not None
                trace["colorscale"] = colour_scale(
                    CLASSROOM_DIVERGING if diverging else CLASSROOM_SEQUENTIAL
                )
        coloraxis = layout.get("coloraxis") or {}
        if coloraxis.get("colorscale") is not None:
            coloraxis["colorscale"] = colour_scale(CLASSROOM_SEQUENTIAL)
    spec["layout"] = _scaled_layout(layout, scale, floor)
    for trace in traces:
        for name, value in trace.items():
            if name.endswith("font"):
                trace[name] = _scaled_fonts({name: value}, scale, floor)[name]
            elif name == "colorbar":
                trace[name] = _scaled_fonts(value, scale, floor)
    return spec


def _container_key(key: str | None, width: int) -> str:
    """A key for the scrolling container of a chart ``width`` px wide."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", key or "chart")
    return f"atlas-wide-{name}-{width}"


@contextmanager
def _wide(key: str | None, width: int | float | None) -> Iterator[None]:
    """Where a chart ``width`` px wide goes: for a width, a keyed container that scrolls sideways,
    whose chart keeps at least that width; else the column itself."""
    if width is None:
        yield
        return
    # Streamlit sizes the plot to its element container; a minimum width on that container (in
    # a keyed container that scrolls) keeps the cells and labels at their size on a narrow screen.
    box = _container_key(key, int(width))
    st.html(
        f"<style>.st-key-{box}{{overflow-x:auto}}"
        f".st-key-{box} .stElementContainer{{min-width:{int(width)}px}}</style>"
    )
    with st.container(key=box):
        yield


def _component_data(prepared: Prepared) -> bytes:
    """The bytes the chart component draws for ``prepared`` (its name, summary, tables and
    labels in the session's language)."""
    labels = {name: _(label) for name, label in NUMBERS_LABELS.items()}
    labels["html"] = _("Download as HTML")  # describe.js: the chart as one page (viz.standalone)
    behaviours = prepared.behaviours
    options = {
        "fullscreen": {"label": _(FULLSCREEN_LABEL)},
        "describe": prepared.text.payload() | {"labels": labels},
    } | (behaviours.options() if behaviours is not None else {})
    # A figure with a width scrolls sideways inside the component (its own container, whose key
    # does not change with the width: a new container would mount the chart anew). The payload
    # takes the width and the template out of the layout: a copy, so the spec stays whole.
    spec = prepared.spec | {"layout": dict(prepared.spec.get("layout") or {})}
    return plotly_component.payload(spec, PLOTLY_CONFIG, select=prepared.select, behaviours=options)


def _wrapped(
    spec: dict, fit: Fit, classroom: bool, behaviours: Behaviours | None
) -> tuple[float | None, Behaviours | None]:
    """Wrap a map of tokens by tokens that is wider than its column even at the least legible
    scale (``viz.wrap``: blocks of columns one under the other; ``spec`` at the builders' font,
    changed in place): (the wrapped figure's width at the builders' font, or None where it was
    not wrapped; the behaviours told where the blocks are: :meth:`Behaviours.in_blocks`)."""
    least = LEAST_CLASSROOM_SCALE if classroom else 1.0
    blocks = blocks_needed(spec, column_px(fit, classroom) / least)
    if blocks <= 1:
        return None, behaviours
    wrapped = wrap_columns(spec, blocks)
    if behaviours is not None:
        behaviours = behaviours.in_blocks(wrapped)
    return float(spec["layout"]["width"]), behaviours


@dataclass(frozen=True)
class Prepared:
    """A chart made legible for this screen, ready to send: ``spec`` (the figure's plain dict,
    legible; not to be changed), ``text`` (its name, summary and tables), ``behaviours``, whether
    clicks are sent back (``select``), and the chart component's bytes (made once, on first use:
    the same prepared chart may be shown to many sessions)."""

    spec: dict
    text: ChartText
    behaviours: Behaviours | None
    select: bool
    _data: list = field(default_factory=list, compare=False, repr=False)

    def component_data(self) -> bytes:
        if not self._data:
            self._data.append(_component_data(self))
        return self._data[0]


def prepare_chart(
    chart: go.Figure | Chart, *, fit: Fit = PAGE_FIT, select: bool = False
) -> Prepared:
    """``chart`` made legible where ``fit`` puts it (classroom mode when on), and described:
    everything :func:`plotly_chart` does before it sends. No Streamlit element is drawn, so a
    prepared chart may be kept and shown again (:func:`show_prepared`)."""
    fig, behaviours = (
        (chart.figure, chart.behaviours) if isinstance(chart, Chart) else (chart, None)
    )
    if select:
        fig.update_layout(clickmode="event+select", dragmode=False)
    classroom = classroom_mode()
    scale = height_fitted(fig, fit) if classroom else None
    spec = fig.to_dict()
    text = chart_text(spec)  # before wrapping: the figure's own rows and columns
    width, behaviours = _wrapped(spec, fit, classroom, behaviours)
    if classroom:
        width = width or fig.layout.width
        scale = width_scale(width, fit.column.classroom_px(), scale or CLASSROOM_SCALE)
    return Prepared(legible(spec, classroom=classroom, scale=scale), text, behaviours, select)


def show_prepared(
    prepared: Prepared, *, key: str | None, on_select=None, on_trigger: dict | None = None
) -> None:
    """Send a :func:`prepare_chart` result: by the chart component, or ``st.plotly_chart`` where
    it is off (the same legible figure). ``on_select`` needs a chart prepared with ``select``."""
    if plotly_component.wanted():
        data = prepared.component_data()
        note_figure(len(data))
        if plotly_component.show(data, key=key, on_select=on_select, on_trigger=on_trigger):
            return
    spec = prepared.spec | {"layout": dict(prepared.spec["layout"])}  # the width goes: a copy
    note_figure(figure_bytes(spec))
    kwargs: dict = {"key": key, "config": PLOTLY_CONFIG, "theme": None}
    if on_select is not None:
        kwargs |= {"on_select": on_select, "selection_mode": "points"}
    width = spec["layout"].pop("width", None)
    with _wide(key, width):
        # as a Figure: st.plotly_chart refuses a plain dict without traces (a formula diagram's)
        st.plotly_chart(go.Figure(spec), **kwargs)


def plotly_chart(
    chart: go.Figure | Chart,
    *,
    key: str | None = None,
    fit: Fit = PAGE_FIT,
    on_select=None,
    on_trigger: dict | None = None,
) -> None:
    """Show ``chart`` full width with the PNG-export toolbar, legible (classroom mode when on).

    ``chart``: a figure, or a :class:`Chart` (a figure with its browser behaviours: play, drag,
    link; see ``components/atlas-plotly``). Give every chart a ``key``: the component keeps a
    keyed chart mounted across reruns. ``fit``: where the chart is drawn (its column, and in
    classroom mode the height it should fit; :mod:`ui.fit`). ``on_select``: a callback run when
    the user clicks a point (single-point selection); it reads the selection from
    ``st.session_state[key]``. ``on_trigger`` (``{trigger: callback}``): callbacks for the values
    a behaviour sends back. Behaviours apply only where the component draws the chart: a page
    must work without them (with ``st.plotly_chart``, the figure's own controls).
    """
    prepared = prepare_chart(chart, fit=fit, select=on_select is not None)
    show_prepared(prepared, key=key, on_select=on_select, on_trigger=on_trigger)
