"""``plotly_chart``: the one way pages show a plotly figure, legible on every screen.

Figure builders (viz/) write for plotly's default 12 px font, with margins fitted to their labels
(viz/_margins.py). Here, just before a figure is sent:

- every font in it is made legible for the screen: in classroom mode each size is scaled by
  ``CLASSROOM_SCALE`` (20/12) with a floor of ``CLASSROOM_MIN_PX``, and the margins, the height and
  any minimum width grow by the same factor, so the larger labels still fit; otherwise sizes under
  ``MIN_PX`` are raised to it. Axis and title ``automargin`` (set here: Streamlit's default plotly
  template has none) are the safety net for anything wider than estimated;
- a figure that asks for more width than the column gives (``layout.width``: the width its cells
  need) keeps that width and scrolls sideways in its own container instead of being squeezed, so
  every token keeps its label and each cell its size.

The chart is drawn by the chart component (``ui.plotly_component``: mounted under the chart's key,
updated in place with ``Plotly.react``), or by ``st.plotly_chart`` where the component is off.
Both draw the same legible figure: ``legible`` makes the figure's plain dict (``Figure.to_dict()``)
legible once, without plotly's validation on the way back, for either path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import plotly.graph_objects as go
import streamlit as st

from i18n import N_, _
from serve.memory import figure_bytes, note_figure
from ui import plotly_component
from ui.sidebar import classroom_mode
from viz.behaviours import Behaviours, Chart
from viz.describe import ChartText, chart_text
from viz.figure import colour_scale
from viz.palette import OKABE_ITO  # every chart's colour way: see viz.palette
from viz.wrap import blocks_needed, wrap_columns

CLASSROOM_SEQUENTIAL = "Cividis"
CLASSROOM_DIVERGING = "PuOr"
BASE_FONT_PX = 12  # plotly's default, which the builders' margins are fitted to
CLASSROOM_FONT = 20
CLASSROOM_SCALE = CLASSROOM_FONT / BASE_FONT_PX
CLASSROOM_MIN_PX = 16  # no text under this in classroom mode (tick labels included)
LEAST_CLASSROOM_SCALE = CLASSROOM_MIN_PX / BASE_FONT_PX  # a fitted chart is never drawn smaller
MIN_PX = 11  # no text under this otherwise
# the page's column on a projector's 1280x720 screen in classroom mode (Streamlit's wide layout,
# 100 px each side): a chart that asks for more width is drawn at a smaller scale, never under
# the classroom minimum (``fitted_width_scale``); charts side by side pass their column's width
CLASSROOM_COLUMN_PX = 1080
# the gaps between st.columns in classroom mode (1 and 2 rem of its 20 px root font)
COLUMN_GAP_PX = {"small": 20, "medium": 40}
# the page's column on a laptop's 1280x800 screen outside classroom mode, and the small gap
# between columns there (measured in Chromium: two columns of 402 px)
LAPTOP_COLUMN_PX, LAPTOP_GAP_PX = 820, 16
# the least height of a row of labels (a heatmap's token row, a column of tokens) when classroom
# mode presses a chart's rows together to fit ``fit_height``: a 16 px label (the legibility
# judge's least cell)
FIT_ROW_PX = 20
FIT_PLOT_PX = 200  # the least height of a plot area pressed to fit ``fit_height`` (bars, lines)
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


def fitted_scale(height: float | None, fit_height: int | None) -> float:
    """Classroom mode's scale for a figure ``height`` px tall (at the builders' font) that should
    fit within ``fit_height`` px: CLASSROOM_SCALE when it fits, else smaller, down to the scale
    at which the 12 px font reaches CLASSROOM_MIN_PX and never below (the page then scrolls)."""
    if not height or not fit_height:
        return CLASSROOM_SCALE
    return max(LEAST_CLASSROOM_SCALE, min(CLASSROOM_SCALE, fit_height / float(height)))


def fitted_width_scale(width: float | None, fit_width: int | None, scale: float) -> float:
    """Classroom mode's ``scale``, made smaller where a figure that asks for ``width`` px (at the
    builders' font: its cells' and labels' least width) would be wider than ``fit_width`` px,
    down to the scale at which the 12 px font reaches CLASSROOM_MIN_PX and never below (the chart
    then scrolls sideways)."""
    if not width or not fit_width or width * scale <= fit_width:
        return scale
    return max(LEAST_CLASSROOM_SCALE, fit_width / float(width))


def fits_classroom(width: float | None, fit_width: int) -> bool:
    """Whether a figure that asks for ``width`` px (at the builders' font) fits ``fit_width`` px
    in classroom mode, drawn at the least scale if need be (:func:`fitted_width_scale`)."""
    return not width or width * LEAST_CLASSROOM_SCALE <= fit_width


def fits_column(width: float | None, weights: Sequence[int] = (1,), which: int = 0) -> bool:
    """Whether a figure that asks for ``width`` px fits column ``which`` of
    ``st.columns(weights)`` (the small gap): in classroom mode on a projector's 1280x720 screen
    (:func:`fits_classroom`), else on a laptop's 1280x800 (``LAPTOP_COLUMN_PX``, where the figure
    is drawn at its own size). A page turns a chart that does not fit on its side, or stacks it."""
    if classroom_mode():
        return fits_classroom(width, column_px(weights, which))
    return not width or width <= _share(LAPTOP_COLUMN_PX, LAPTOP_GAP_PX, weights, which)


def across_or_turned(
    build: Callable[[bool], go.Figure], weights: Sequence[int] = (1,), which: int = 0
) -> go.Figure:
    """``build(True)``, the figure with its tokens across, where it fits its column
    (:func:`fits_column`); else ``build(False)``, the same turned on its side, its tokens down."""
    fig = build(True)
    return fig if fits_column(fig.layout.width, weights, which) else build(False)


def column_px(weights: Sequence[int], which: int, gap: str = "small") -> int:
    """The width in px of column ``which`` of ``st.columns(weights, gap=gap)`` on a projector's
    1280x720 screen in classroom mode, at most: ``plotly_chart``'s ``fit_width`` for a chart in
    it. (Streamlit takes the gaps from the columns' shares unevenly: [3, 2] with the medium gap
    is 628 and 412 px, so each share gives up a whole gap here.)"""
    return int(_share(CLASSROOM_COLUMN_PX, COLUMN_GAP_PX[gap], weights, which))


def _share(total: int, gap: int, weights: Sequence[int], which: int) -> float:
    """Column ``which``'s share of ``total`` px split by ``weights``, less a whole ``gap`` where
    there are several columns (an upper bound on what Streamlit gives it)."""
    return total * weights[which] / sum(weights) - (gap if len(weights) > 1 else 0)


def fitted_rows(fig: go.Figure, rows: int, fit_height: int, scale: float) -> None:
    """Press a figure's ``rows`` rows of labels together so that, drawn at ``scale``, it fits
    ``fit_height`` px, each row at least ``FIT_ROW_PX`` and the plot at least ``FIT_PLOT_PX``
    (its margins keep their size); a figure that fits, or has no height, is left as it is.
    Changes ``fig`` in place."""
    height = fig.layout.height
    if not height or height * scale <= fit_height:
        return
    margin = fig.layout.margin
    sides = (margin.t or 0) + (margin.b or 0)
    least = sides + max(rows * FIT_ROW_PX, FIT_PLOT_PX) / scale
    fig.layout.height = round(max(least, fit_height / scale))
    _keep_outside(fig, (height - sides) / max(1.0, fig.layout.height - sides))


def _keep_outside(fig: go.Figure, ratio: float) -> None:
    """Annotations above or below the plot (paper y over 1 or under 0: a title over the heads'
    ticks) keep their distance from it in px when the plot's height changes by 1 / ``ratio``."""
    for note in fig.layout.annotations:
        if note.yref not in (None, "paper") or note.y is None:
            continue
        if note.y > 1:
            note.y = 1 + (note.y - 1) * ratio
        elif note.y < 0:
            note.y = note.y * ratio


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


def _component_chart(
    spec: dict,
    key: str | None,
    on_select,
    behaviours: Behaviours | None,
    on_trigger: dict | None,
    text: ChartText,
) -> bool:
    """Show the legible figure ``spec`` with the chart component, named and described by
    ``text``; False (nothing shown) where it is off."""
    if not plotly_component.wanted():
        return False
    labels = {name: _(label) for name, label in NUMBERS_LABELS.items()}
    options = {
        "fullscreen": {"label": _(FULLSCREEN_LABEL)},
        "describe": text.payload() | {"labels": labels},
    } | (behaviours.options() if behaviours is not None else {})
    # A figure with a width scrolls sideways inside the component (its own container, whose key
    # does not change with the width: a new container would mount the chart anew).
    data = plotly_component.payload(
        spec, PLOTLY_CONFIG, select=on_select is not None, behaviours=options
    )
    note_figure(len(data))
    return plotly_component.show(data, key=key, on_select=on_select, on_trigger=on_trigger)


def _wrapped(
    spec: dict, fit_width: int, classroom: bool, behaviours: Behaviours | None
) -> tuple[float | None, Behaviours | None]:
    """Wrap a map of tokens by tokens that is wider than its column even at the least legible
    scale (``viz.wrap``: blocks of columns one under the other; ``spec`` at the builders' font,
    changed in place): (the wrapped figure's width at the builders' font, or None where it was
    not wrapped; the behaviours told where the blocks are: :meth:`Behaviours.in_blocks`)."""
    least = LEAST_CLASSROOM_SCALE if classroom else 1.0
    column = fit_width if classroom else fit_width * LAPTOP_COLUMN_PX / CLASSROOM_COLUMN_PX
    blocks = blocks_needed(spec, column / least)
    if blocks <= 1:
        return None, behaviours
    wrapped = wrap_columns(spec, blocks)
    if behaviours is not None:
        behaviours = behaviours.in_blocks(wrapped)
    return float(spec["layout"]["width"]), behaviours


def plotly_chart(
    fig: go.Figure | Chart,
    *,
    key: str | None = None,
    height: int | None = None,
    on_select=None,
    behaviours: Behaviours | None = None,
    on_trigger: dict | None = None,
    fit_height: int | None = None,
    fit_rows: int | None = None,
    fit_width: int = CLASSROOM_COLUMN_PX,
) -> None:
    """Show ``fig`` full width with the PNG-export toolbar, legible (classroom mode when on).

    ``fig`` may be a :class:`Chart` (a figure with its behaviours, as the builders of charts that
    always go with one return it): its behaviours are sent, and ``behaviours`` must then be None
    (ValueError otherwise). ``height`` overrides the figure's own height. ``on_select``: a callback run when the user
    clicks a point (single-point selection); it reads the selection from ``st.session_state[key]``.
    Give every chart a ``key``: the component keeps a keyed chart mounted across reruns.
    ``behaviours`` (:class:`Behaviours`): what the chart does in the browser without a rerun
    (play, drag, link; see ``components/atlas-plotly``); ``on_trigger`` (``{trigger: callback}``):
    callbacks for the values a behaviour sends back. Both apply only where the component draws the
    chart: a page must work without them (with ``st.plotly_chart``, the figure's own controls).
    ``fit_height``: in classroom mode, the px the chart should fit in (:func:`fitted_scale`);
    ``fit_rows``: the rows of labels the figure's height is shared by (a heatmap's, a column of
    tokens'; 0 for a plot of bars or lines), which may then be pressed together down to
    ``FIT_ROW_PX`` (:func:`fitted_rows`). ``fit_width``: in classroom mode, the px of the chart's
    column; a figure asking for more is drawn smaller, down to the classroom minimum
    (:func:`fitted_width_scale`).
    """
    if isinstance(fig, Chart):
        if behaviours is not None:
            raise ValueError("a Chart brings its own behaviours: pass behaviours=None")
        fig, behaviours = fig.figure, fig.behaviours
    if height is not None:
        fig.update_layout(height=height)
    if on_select is not None:
        fig.update_layout(clickmode="event+select", dragmode=False)
    classroom = classroom_mode()
    scale = fitted_scale(fig.layout.height, fit_height) if fit_height else None
    if classroom and fit_height and fit_rows is not None:
        fitted_rows(fig, fit_rows, fit_height, scale or CLASSROOM_SCALE)
    spec = fig.to_dict()
    text = chart_text(spec)  # before wrapping: the figure's own rows and columns
    width, behaviours = _wrapped(spec, fit_width, classroom, behaviours)
    if classroom:
        width = width or fig.layout.width
        scale = fitted_width_scale(width, fit_width, scale or CLASSROOM_SCALE)
    spec = legible(spec, classroom=classroom, scale=scale)
    if _component_chart(spec, key, on_select, behaviours, on_trigger, text):
        return
    note_figure(figure_bytes(spec))
    kwargs: dict = {"key": key, "config": PLOTLY_CONFIG, "theme": None}
    if on_select is not None:
        kwargs |= {"on_select": on_select, "selection_mode": "points"}
    width = spec["layout"].pop("width", None)
    with _wide(key, width):
        # as a Figure: st.plotly_chart refuses a plain dict without traces (a formula diagram's)
        st.plotly_chart(go.Figure(spec), **kwargs)
