"""How much room plotly's text takes: the one place where the atlas estimates text width.

Every figure builder in viz/ sizes its margins, its cells' least width and its titles from these
estimates, so that plotly draws a figure once: plotly's ``automargin`` (on in plotly.py's default
template) grows a margin that is too small for the tick labels, the axis titles or the colour bar
by drawing the whole figure a second time, which about doubles its drawing time. Automargin stays
on as the safety net for labels wider than estimated. ``ui.fit`` then scales a figure to the
screen (classroom mode, the column it is drawn in) without measuring text again.

The estimates are for plotly's default 12 px font and take each printable ASCII character's own
width into account (a flat 0.55 em per character alone put "▁homme" at 40 px where Chromium draws
49 px). ``tests/test_browser_margins.py`` holds them against Chromium's own measurement of the
same labels, in both languages' fonts.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

TICK_FONT_PX = 12
AXIS_TITLE_PX = 26  # an axis title and its gap to the tick labels
FLAT_TICKS_FIT_PX = 280  # flat x tick labels only when all of them fit in this width
COLORBAR_PX = 104  # a vertical colour bar with its ticks and a short title
# a colour bar narrower than plotly's 30 px, where a map must fit beside another or the page
COLORBAR_THICKNESS_PX = 16
LEGEND_PX = 66  # a legend in the right margin: its symbol and padding, besides the widest name
LEGEND_ROW_PX = 30  # a horizontal legend in its own row under the x axis title
# Left margin beside a y axis's tick labels when it has no title: plotly needs the labels' width
# plus 13 px (measured in Chromium: 22 px for 'A', 25 px for one Chinese character, 49 px for three)
Y_TICKS_PAD_PX = 13


# Advance widths of the printable ASCII characters ' ' to '~' in 1/1000 em: Arial's metrics, which
# Chromium uses for plotly's default family ("Open Sans", verdana, arial, sans-serif) when Open Sans
# is absent (Liberation Sans here; measured with a canvas's measureText).
ASCII_WIDTHS = (
    278,
    278,
    355,
    556,
    556,
    889,
    667,
    191,
    333,
    333,
    389,
    584,
    278,
    333,
    278,
    278,
    556,
    556,
    556,
    556,
    556,
    556,
    556,
    556,
    556,
    556,
    278,
    278,
    584,
    584,
    584,
    556,
    1015,
    667,
    667,
    722,
    722,
    667,
    611,
    778,
    722,
    278,
    500,
    667,
    556,
    833,
    722,
    778,
    667,
    778,
    722,
    667,
    611,
    722,
    667,
    944,
    667,
    667,
    611,
    278,
    278,
    278,
    469,
    556,
    333,
    556,
    556,
    500,
    556,
    556,
    278,
    556,
    556,
    222,
    222,
    500,
    222,
    833,
    556,
    556,
    556,
    556,
    333,
    500,
    278,
    556,
    500,
    722,
    500,
    500,
    500,
    334,
    260,
    334,
    584,
)
OTHER_EM = 0.77  # any other narrow character (SentencePiece's word-start mark ▁ is 0.769 em)
WIDE_EM = 1.0  # a wide (CJK) character
SAFETY = 1.1  # other sans-serif fonts (DejaVu Sans) run up to about 10% wider


def char_em(char: str) -> float:
    """Estimated width of one character in em at the default font (0 for invisible format and
    combining characters, such as the zero-width spaces that keep repeated tokens apart)."""
    code = ord(char)
    if 32 <= code < 127:
        return ASCII_WIDTHS[code - 32] / 1000
    if unicodedata.category(char) in ("Cf", "Mn", "Me"):
        return 0.0
    return WIDE_EM if unicodedata.east_asian_width(char) in "WF" else OTHER_EM


def text_px(label: str, font_px: float = TICK_FONT_PX) -> float:
    """Estimated width in px of ``label`` at ``font_px`` (the default tick font), a little
    generous: the larger of a flat 0.55 em per narrow character (1 em per wide one), which the
    paddings here were tuned with, and each character's own width plus 10% (for labels rich in m,
    w, capitals and ▁)."""
    visible = [c for c in label if char_em(c) > 0]
    wide = sum(1 for c in visible if unicodedata.east_asian_width(c) in "WF")
    flat = 0.55 * (len(visible) - wide) + WIDE_EM * wide
    return max(flat, SAFETY * sum(char_em(c) for c in label)) * font_px


def title_px(title: str, font_px: float) -> int:
    """Estimated width in px of ``title``'s widest line (lines split by "<br>") at ``font_px``."""
    lines = title.split("<br>") if title else [""]
    return math.ceil(max(text_px(line, font_px) for line in lines))


def widest_px(labels: Sequence[str]) -> int:
    """The widest label's estimated width in px (0 when there are none)."""
    return math.ceil(max((text_px(label) for label in labels), default=0.0))


def x_tick_angle(labels: Sequence[str]) -> int:
    """0 (flat) when all labels fit side by side in a narrow plot, else -90 (vertical): a fixed
    angle keeps plotly from trying 0, 30 and 90 degrees and lets the margin be known here."""
    needed = sum(text_px(label) + 10 for label in labels)
    return 0 if needed <= FLAT_TICKS_FIT_PX else -90


def x_ticks_height(labels: Sequence[str], angle: int) -> int:
    """Height in px of the x tick labels at ``angle`` (0 or -90), with their padding."""
    return 28 if angle == 0 else widest_px(labels) + 12


def colorbar_px(title: str) -> int:
    """Right margin for a vertical colour bar whose title is ``title``."""
    return COLORBAR_PX + max(0, math.ceil(text_px(title)) - 45)


def number_labels(arrays: Iterable[ArrayLike]) -> list[str]:
    """A label as wide as the widest tick plotly is likely to write on an axis showing these
    values (for the margin beside a numeric axis)."""
    values = np.concatenate([np.ravel(a) for a in arrays] + [np.zeros(1)])
    widest = max(len(f"{v:.3g}") for v in (values.min(), values.max()))
    return ["0" * max(4, widest + 1)]


def legend_below(margin: dict[str, int]) -> dict:
    """Layout for a horizontal legend in its own row at the bottom of the figure, under the x
    axis title: the legend, and ``margin`` with the row added."""
    return {
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"},
        "margin": margin | {"b": margin["b"] + LEGEND_ROW_PX},
    }


def fitted_margin(
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    x_title: bool = True,
    y_title: bool = True,
    colorbar_title: str | None = None,
    top: int = 60,
    right: int = 20,
) -> tuple[dict[str, int], int]:
    """(margin, x tick angle) for one plot with these tick labels on its bottom and left axes."""
    angle = x_tick_angle(x_labels)
    margin = {
        "l": widest_px(y_labels) + 10 + (AXIS_TITLE_PX if y_title else 0),
        "b": x_ticks_height(x_labels, angle) + (AXIS_TITLE_PX if x_title else 0),
        "t": top,
        "r": colorbar_px(colorbar_title) if colorbar_title is not None else right,
    }
    return margin, angle


MIN_CELL_PX = (
    14  # a heatmap cell is never drawn smaller than this (ui/charts scales it in classroom)
)


def cells_extent(
    n_cells: int, margin_before: int, margin_after: int, cell_px: int = MIN_CELL_PX
) -> int:
    """Width (or height) in px a plot needs so that ``n_cells`` cells are each ``cell_px`` wide
    between margins of these sizes: set it as ``layout.width`` (ui/charts lets a chart wider than
    its column scroll) or use it as the least ``layout.height``."""
    return n_cells * cell_px + margin_before + margin_after
