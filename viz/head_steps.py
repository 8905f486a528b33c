"""One head's computation as a column of small heatmaps (pure plotly; no streamlit, no torch).

:func:`step_panels` stacks panels that each have their own rows and columns (Q·Kᵀ, ÷√d_k, the
mask, the softmax over the same queries and keys; or V and the head's output) in one figure, one
above the other, every token labelled on every panel. Sizes are in px for plotly's default 12 px
font (``ui.charts`` scales the whole figure, fonts, margins, height and width alike, for
classroom mode): each cell is at least ``MIN_CELL_PX`` (14 px; 40 x 22 px when its number is
written in it) and ``layout.width`` is the width the columns need, so that a narrow screen scrolls
instead of squeezing them. Masked cells (NaN) are left grey and written "−∞".
Built as a plain dict (:func:`viz.figure.figure`); the texts (titles, axis titles, hover) come translated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from viz._checks import check_labels, escape
from viz.axes import token_axis
from viz.figure import figure
from viz.measure import (
    AXIS_TITLE_PX,
    COLORBAR_THICKNESS_PX,
    MIN_CELL_PX,
    cells_extent,
    colorbar_px,
    text_px,
    title_px,
    widest_px,
    x_ticks_height,
)
from viz.palette import MASKED_CELL

NUMBER_CELL_PX = (40, 22)  # (width, height) of a cell with its number written in it
NUMBERS_MAX_COLUMNS = 16  # numbers in the cells up to this many columns (hover always has them)
PANEL_TITLE_PX = 26  # a panel's title line above it (and the gap under the figure's title)
PANEL_TITLE_FONT_PX = 13
TITLE_PX = 15  # a figure's title, drawn as an annotation (lines left-aligned)
TITLE_LINE_PX = 21  # one line of it
MIN_PANEL_PX = 60  # room for a panel's y axis title even with one row
MASKED = "−∞"
MASKED_COLOUR = MASKED_CELL
ZWSP = "\u200b"


def unique_labels(tokens: Sequence[str]) -> list[str]:
    """HTML-escaped tokens, repeats made distinct with trailing zero-width spaces (invisible)."""
    seen: dict[str, int] = {}
    out = []
    for token in escape([str(t) for t in tokens]):
        count = seen.get(token, 0)
        seen[token] = count + 1
        out.append(token + ZWSP * count)
    return out


def cell_tick_angle(labels: Sequence[str], cell_px: float) -> int:
    """0 (flat) when every label fits in its column of ``cell_px``, else -90 (vertical)."""
    return 0 if all(text_px(str(label)) + 6 <= cell_px for label in labels) else -90


# A figure's title is an annotation placed in paper units from px (not layout.title: Streamlit's
# plotly.js anchors a title of several lines by its first line on a redraw, so the others fell
# on the plot). Scaling the whole figure (classroom mode) keeps it in place.


def title_margin(title: str, gap: int = 0) -> int:
    """The top margin that holds ``title`` (lines split by "<br>") ``gap`` px above the plot."""
    lines = title.count("<br>") + 1 if title else 0
    return 12 + lines * TITLE_LINE_PX + gap


def title_width(title: str, margin: dict[str, int]) -> int:
    """The figure width that shows every line of ``title`` whole, from the plot's left edge (the
    title may run over the right margin: it is above the colour bars)."""
    return margin["l"] + title_px(title, TITLE_PX) + 10


def title_annotation(title: str, plot_px: float, gap: int = 0) -> dict:
    """``title`` left-aligned with its bottom ``gap`` px above a plot area ``plot_px`` high
    (named "title", so that tests find it)."""
    return _label(title, 1 + (gap + 4) / plot_px, TITLE_PX) | {"name": "title"}


@dataclass(frozen=True)
class Panel:
    """One matrix of the column: ``z`` (rows, columns), NaN where masked; the labels of its rows
    (``y_labels``) and columns (``x_labels``); its title (above it), its axis titles and the name
    of its values in the hover; ``diverging``: a blue/red scale around 0 (scores), else 0..max."""

    title: str
    z: np.ndarray
    y_labels: Sequence[str]
    x_labels: Sequence[str]
    y_title: str
    x_title: str
    value_name: str
    diverging: bool = False
    digits: int = 2
    zmax: float | None = None  # the top of a 0..zmax scale (default: the panel's largest value)


def _checked(panel: Panel) -> tuple[np.ndarray, list[str], list[str]]:
    z = np.asarray(panel.z, dtype=np.float32)
    if z.ndim != 2:
        raise ValueError(f"panel {panel.title!r}: z must be 2-D, got shape {z.shape}")
    if np.isinf(z).any():
        raise ValueError(f"panel {panel.title!r}: infinite values (mark masked cells with NaN)")
    ys = check_labels(panel.y_labels, z.shape[0], f"panel {panel.title!r} rows")
    xs = check_labels(panel.x_labels, z.shape[1], f"panel {panel.title!r} columns")
    return z, ys, xs


def _numbers(z: np.ndarray, digits: int) -> list[list[str]]:
    """Each cell's value as written in it ("−∞" where masked)."""
    return [[MASKED if math.isnan(v) else f"{v:.{digits}f}" for v in row] for row in z.tolist()]


def _colours(z: np.ndarray, diverging: bool, zmax: float | None) -> dict:
    finite = z[np.isfinite(z)]
    top = zmax or float(np.abs(finite).max(initial=0.0)) or 1.0
    if diverging:
        return {"colorscale": "RdBu", "zmid": 0.0, "zmin": -top, "zmax": top, "reversescale": True}
    return {"colorscale": "Blues", "zmin": 0.0, "zmax": top}


def _trace(panel: Panel, n: int, numbers: bool, domain: list[float]) -> dict:
    """The heatmap of panel ``n`` (axes x{n}/y{n}; plotly names the first ones x/y), beside it
    its own colour bar (``domain``: the panel's paper y) where the cells carry no numbers."""
    z, ys, xs = _checked(panel)
    s = "" if n == 0 else str(n + 1)
    value = "%{text}" if numbers else f"%{{z:.{panel.digits + 2}f}}"
    trace = {
        "type": "heatmap",
        "z": z,
        "x": unique_labels(xs),
        "y": unique_labels(ys),
        "xaxis": f"x{s}",
        "yaxis": f"y{s}",
        "showscale": False,
        "hoverongaps": False,
        "hovertemplate": (
            f"{panel.y_title}: %{{y}}<br>{panel.x_title}: %{{x}}<br>{panel.value_name}: "
            f"{value}<extra></extra>"
        ),
        **_colours(z, panel.diverging, panel.zmax),
    }
    if numbers:
        trace |= {
            "text": _numbers(z, panel.digits),
            "texttemplate": "%{text}",
            "textfont": {"size": 12},
        }
    else:
        trace |= {
            "showscale": True,
            "colorbar": {
                "title": {"text": panel.value_name, "side": "right"},
                "y": (domain[0] + domain[1]) / 2,
                "yanchor": "middle",
                "len": domain[1] - domain[0],
                "thickness": COLORBAR_THICKNESS_PX,
            },
        }
    return trace


def _axes(trace: dict, panel: Panel, n: int, domain: list[float], angle: int) -> dict:
    """The x and y axes of panel ``n``: every label a tick, the first row on top."""
    s = "" if n == 0 else str(n + 1)
    x_title, y_title = ({"text": t, "standoff": 4} for t in (panel.x_title, panel.y_title))
    return {
        f"xaxis{s}": token_axis(
            trace["x"], category=True, angle=angle, showgrid=False, anchor=f"y{s}", title=x_title
        ),
        f"yaxis{s}": token_axis(
            trace["y"],
            category=True,
            top_down=True,
            showgrid=False,
            anchor=f"x{s}",
            domain=domain,
            title=y_title,
        ),
    }


def _sizes(panels: Sequence[Panel], numbers: bool) -> tuple[list[int], list[int], list[int]]:
    """Per panel: the height of its rows, the x tick angle and the height under it (ticks and
    axis title), in px."""
    cell_w, cell_h = NUMBER_CELL_PX if numbers else (MIN_CELL_PX + 1, MIN_CELL_PX + 1)
    rows = [max(MIN_PANEL_PX, len(p.y_labels) * cell_h) for p in panels]
    angles = [cell_tick_angle(p.x_labels, cell_w) for p in panels]
    under = [
        x_ticks_height([str(x) for x in p.x_labels], a) + AXIS_TITLE_PX
        for p, a in zip(panels, angles, strict=True)
    ]
    return rows, angles, under


def _margin_and_width(panels: Sequence[Panel], title: str, numbers: bool, under: int) -> tuple:
    """(margin, width): room for the row labels, the title lines and the last panel's ticks; the
    width the columns need (``cell_w`` each) and that the longest title needs."""
    widest_y = widest_px([str(y) for p in panels for y in p.y_labels])
    colour_bars = 0 if numbers else max(colorbar_px(p.value_name) for p in panels)
    margin = {
        "l": widest_y + 10 + AXIS_TITLE_PX,
        "r": max(20, colour_bars),
        "t": title_margin(title, PANEL_TITLE_PX),
        "b": under + 8,
    }
    cell_w = NUMBER_CELL_PX[0] if numbers else MIN_CELL_PX + 1  # 1 px to spare
    n_columns = max(len(p.x_labels) for p in panels)
    panel_titles = max(text_px(p.title, PANEL_TITLE_FONT_PX) for p in panels)
    width = max(
        cells_extent(n_columns, margin["l"], margin["r"], cell_w),
        title_width(title, margin),
        margin["l"] + math.ceil(panel_titles) + margin["r"] + 10,
    )
    return margin, width


def step_panels(panels: Sequence[Panel], *, title: str = "") -> go.Figure:
    """``panels`` one above the other, each with its own axes and every label; ``title`` (lines
    split by "<br>") above them. Cells are written with their numbers when every panel has at
    most NUMBERS_MAX_COLUMNS columns; hover always gives row, column and value.

    Every position is in paper units computed from px, so that scaling the whole figure (fonts,
    margins and height alike, as classroom mode does) keeps the layout."""
    if not panels:
        raise ValueError("step_panels needs at least one panel")
    numbers = all(len(p.x_labels) <= NUMBERS_MAX_COLUMNS for p in panels)
    rows, angles, under = _sizes(panels, numbers)
    gaps = [u + PANEL_TITLE_PX for u in under[:-1]]  # ticks, axis title, next panel's title
    plot_h = sum(rows) + sum(gaps)
    margin, width = _margin_and_width(panels, title, numbers, under[-1])
    layout: dict = {
        "margin": margin,
        "height": plot_h + margin["t"] + margin["b"],
        "width": width,
        "plot_bgcolor": MASKED_COLOUR,
        "annotations": [],
    }
    top, traces = 0, []
    for n, panel in enumerate(panels):
        domain = [1 - (top + rows[n]) / plot_h, 1 - top / plot_h]
        domain = [round(max(0.0, domain[0]), 6), round(min(1.0, domain[1]), 6)]
        traces.append(_trace(panel, n, numbers, domain))
        layout |= _axes(traces[-1], panel, n, domain, angles[n])
        layout["annotations"].append(
            _label(panel.title, domain[1] + 4 / plot_h, PANEL_TITLE_FONT_PX)
        )
        top += rows[n] + (gaps[n] if n < len(gaps) else 0)
    if title:
        layout["annotations"].append(title_annotation(title, plot_h, PANEL_TITLE_PX - 4))
    return figure({"data": traces, "layout": layout})


def _label(text: str, y: float, size: int) -> dict:
    """A title (a panel's, or the figure's), left-aligned at the plot's left edge with its
    bottom at ``y`` (paper units: above 1 is the top margin)."""
    return {
        "text": text,
        "x": 0,
        "xref": "paper",
        "xanchor": "left",
        "y": y,
        "yref": "paper",
        "yanchor": "bottom",
        "align": "left",
        "showarrow": False,
        "font": {"size": size},
    }
