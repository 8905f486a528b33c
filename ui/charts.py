"""``plotly_chart``: the one way pages show a plotly figure, legible on every screen.

Figure builders (viz/) write for plotly's default 12 px font, with margins fitted to their labels
(viz/_margins.py). Here, just before a figure is sent:

- every font in it is made legible for the screen: in classroom mode each size is scaled by
  ``CLASSROOM_SCALE`` (20/12) with a floor of ``CLASSROOM_MIN_PX``, and the margins, the height and
  any minimum width grow by the same factor, so the larger labels still fit; otherwise sizes under
  ``MIN_PX`` are raised to it. Axis ``automargin`` (on in plotly's default template) and the
  title's ``automargin`` remain the safety net for anything wider than estimated;
- a figure that asks for more width than the column gives (``layout.width``: the width its cells
  need) keeps that width and scrolls sideways in its own container instead of being squeezed, so
  every token keeps its label and each cell its size.
"""

from __future__ import annotations

import re

import plotly.graph_objects as go
import streamlit as st

from ui.sidebar import classroom_mode

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
OKABE_ITO = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
CLASSROOM_SEQUENTIAL = "Cividis"
CLASSROOM_DIVERGING = "PuOr"
BASE_FONT_PX = 12  # plotly's default, which the builders' margins are fitted to
CLASSROOM_FONT = 20
CLASSROOM_SCALE = CLASSROOM_FONT / BASE_FONT_PX
CLASSROOM_MIN_PX = 16  # no text under this in classroom mode (tick labels included)
MIN_PX = 11  # no text under this otherwise
TITLE_PAD_PX = 8  # space above a chart title
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
        margin = layout.get("margin") or {}
        layout["margin"] = margin | {
            side: round(margin[side] * scale) for side in ("l", "r", "t", "b") if side in margin
        }
        for extent in ("height", "width"):
            if extent in layout:
                layout[extent] = round(layout[extent] * scale)
    title = layout.get("title")
    if isinstance(title, dict) and title.get("text"):
        # automargin pushes the top margin to fit the title; the pad keeps its ascenders off the
        # figure's top edge (without it, glyphs reach 3-5 px above the SVG)
        pad = title.get("pad") or {}
        top = max(pad.get("t", 0), round(TITLE_PAD_PX * scale))
        layout["title"] = title | {"automargin": True, "pad": pad | {"t": top}}
    return layout


def _classroom_colours(fig: go.Figure) -> None:
    """A colour-blind-safe palette and colour scales (changes ``fig`` in place)."""
    fig.update_layout(colorway=OKABE_ITO)
    for trace in fig.data:
        if trace.type != "heatmap":
            continue
        diverging = trace.zmid is not None
        trace.colorscale = CLASSROOM_DIVERGING if diverging else CLASSROOM_SEQUENTIAL
    if fig.layout.coloraxis and fig.layout.coloraxis.colorscale is not None:
        fig.layout.coloraxis.colorscale = CLASSROOM_SEQUENTIAL


def legible(fig: go.Figure, *, classroom: bool) -> go.Figure:
    """Make ``fig`` legible for the screen (in place; see the module docstring) and return it."""
    scale, floor = (CLASSROOM_SCALE, CLASSROOM_MIN_PX) if classroom else (1.0, MIN_PX)
    if classroom:
        _classroom_colours(fig)
    fig.layout = _scaled_layout(fig.layout.to_plotly_json(), scale, floor)
    for trace in fig.data:
        fonts = {k: v for k, v in trace.to_plotly_json().items() if k.endswith("font")}
        colorbar = trace.to_plotly_json().get("colorbar")
        update = _scaled_fonts(fonts, scale, floor)
        if colorbar:
            update["colorbar"] = _scaled_fonts(colorbar, scale, floor)
        if update:
            trace.update(update)
    return fig


def apply_classroom(fig: go.Figure) -> go.Figure:
    """Classroom mode's fonts, sizes and colours (changes ``fig`` in place)."""
    return legible(fig, classroom=True)


def _container_key(key: str | None, width: int) -> str:
    """A key for the scrolling container of a chart ``width`` px wide."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", key or "chart")
    return f"atlas-wide-{name}-{width}"


def plotly_chart(
    fig: go.Figure, *, key: str | None = None, height: int | None = None, on_select=None
) -> None:
    """Show ``fig`` full width with the PNG-export toolbar, legible (classroom mode when on).

    ``height`` overrides the figure's own height. ``on_select``: a callback run when the user
    clicks a point (single-point selection); it reads the selection from ``st.session_state[key]``.
    """
    if height is not None:
        fig.update_layout(height=height)
    legible(fig, classroom=classroom_mode())
    kwargs: dict = {"key": key, "config": PLOTLY_CONFIG, "theme": None}
    if on_select is not None:
        fig.update_layout(clickmode="event+select", dragmode=False)
        kwargs |= {"on_select": on_select, "selection_mode": "points"}
    width = fig.layout.width
    if width is None:
        st.plotly_chart(fig, **kwargs)
        return
    # Streamlit sizes the plot to its element container; a minimum width on that container (in
    # a keyed container that scrolls) keeps the cells and labels at their size on a narrow screen.
    fig.layout.width = None
    box = _container_key(key, int(width))
    st.html(
        f"<style>.st-key-{box}{{overflow-x:auto}}"
        f".st-key-{box} .stElementContainer{{min-width:{int(width)}px}}</style>"
    )
    with st.container(key=box):
        st.plotly_chart(fig, **kwargs)
