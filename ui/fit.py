"""How a chart fits the screen it is drawn on: the one layout rule on the Streamlit side.

Figure builders (viz/) write for plotly's default 12 px font and size themselves from their labels
(``viz.measure``, the one place text width is estimated); a figure's ``layout.width``, where it has
one, is the least width its cells and labels need. A page says only *where* a chart goes, as a
:class:`Fit` (the column it is in, and in classroom mode the height it should fit on the first
screen); ``ui.charts.plotly_chart`` turns that into a scale here:

- in classroom mode each font is scaled by ``CLASSROOM_SCALE`` (20/12), less where the chart would
  be taller than its ``Fit.height`` or wider than its column, never under ``CLASSROOM_MIN_PX``
  (the chart then scrolls); its rows of labels may first be pressed together down to
  ``FIT_ROW_PX``;
- outside classroom mode a chart keeps the builders' size, fonts raised to ``MIN_PX``.

A page that puts charts side by side asks :meth:`Column.holds` whether a figure fits there, or
:meth:`Column.across_or_turned` for a figure that can turn its tokens down; it never computes
widths itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go

from ui.sidebar import classroom_mode

BASE_FONT_PX = 12  # plotly's default, which the builders' margins are fitted to
CLASSROOM_FONT = 20
CLASSROOM_SCALE = CLASSROOM_FONT / BASE_FONT_PX
CLASSROOM_MIN_PX = 16  # no text under this in classroom mode (tick labels included)
LEAST_CLASSROOM_SCALE = CLASSROOM_MIN_PX / BASE_FONT_PX  # a fitted chart is never drawn smaller
MIN_PX = 11  # no text under this otherwise
# the page's column on a projector's 1280x720 screen in classroom mode (Streamlit's wide layout,
# 100 px each side)
CLASSROOM_COLUMN_PX = 1080
# the gaps between st.columns in classroom mode (1 and 2 rem of its 20 px root font)
COLUMN_GAP_PX = {"small": 20, "medium": 40}
# the page's column on a laptop's 1280x800 screen outside classroom mode, and the small gap
# between columns there (two columns of 402 px in Chromium)
LAPTOP_COLUMN_PX, LAPTOP_GAP_PX = 820, 16
# the least height of a row of labels (a heatmap's token row, a column of tokens) when classroom
# mode presses a chart's rows together to fit its height: a 16 px label (the legibility judge's
# least cell)
FIT_ROW_PX = 20
FIT_PLOT_PX = 200  # the least height of a plot area pressed to fit (bars, lines)
# the px a main chart may take under the title row (about 90 px with classroom mode's 20 px root
# font) and one row of controls (about 100 px) on a 720 px projector: it starts at about 200 px
# (tests/test_browser_legibility.py holds it: the main chart whole on the first screen at
# 1280x720 in classroom mode)
FIRST_SCREEN_FIT_PX = 500


@dataclass(frozen=True)
class Column:
    """Column ``which`` of ``st.columns(weights, gap=gap)``; the default is the page's width."""

    weights: tuple[int, ...] = (1,)
    which: int = 0
    gap: str = "small"

    def classroom_px(self) -> int:
        """Its width in px on a projector's 1280x720 screen in classroom mode, at most.
        (Streamlit takes the gaps from the columns' shares unevenly: [3, 2] with the medium gap
        is 628 and 412 px, so each share gives up a whole gap here.)"""
        return int(self._share(CLASSROOM_COLUMN_PX, COLUMN_GAP_PX[self.gap]))

    def laptop_px(self) -> float:
        """Its width in px on a laptop's 1280x800 screen outside classroom mode."""
        return self._share(LAPTOP_COLUMN_PX, LAPTOP_GAP_PX)

    def _share(self, total: int, gap: int) -> float:
        share = total * self.weights[self.which] / sum(self.weights)
        return share - (gap if len(self.weights) > 1 else 0)

    def holds(self, fig: go.Figure) -> bool:
        """Whether ``fig`` (its ``layout.width``: the least width it needs at the builders' font)
        fits here: in classroom mode at the least legible scale, else at its own size."""
        return self.holds_width(fig.layout.width)

    def holds_width(self, width: float | None) -> bool:
        """:meth:`holds` for a figure that asks for ``width`` px."""
        if not width:
            return True
        if classroom_mode():
            return width * LEAST_CLASSROOM_SCALE <= self.classroom_px()
        return width <= self.laptop_px()

    def across_or_turned(self, build: Callable[[bool], go.Figure]) -> go.Figure:
        """``build(True)``, the figure with its tokens across, where it fits here; else
        ``build(False)``, the same turned on its side, its tokens down."""
        fig = build(True)
        return fig if self.holds(fig) else build(False)


PAGE = Column()


def side_by_side(figs: list[go.Figure], gap: str = "small") -> list[Column] | None:
    """The equal columns for ``figs`` side by side where each fits its own, else None (stack
    them, each in the page's width)."""
    columns = [Column((1,) * len(figs), i, gap) for i in range(len(figs))]
    return columns if all(c.holds(f) for c, f in zip(columns, figs, strict=True)) else None


@dataclass(frozen=True)
class Fit:
    """Where a chart is drawn: its ``column``; in classroom mode the px ``height`` it should fit
    in, and ``rows``, the rows of labels its height is shared by (a heatmap's, a column of
    tokens'; 0 for a plot of bars or lines), which may be pressed together to fit."""

    column: Column = PAGE
    height: int | None = None
    rows: int | None = None


PAGE_FIT = Fit()  # the page's width; no height to fit


def first_screen(rows: int, *, above: int = 0, column: Column = PAGE) -> Fit:
    """The fit of a page's main chart of ``rows`` rows of labels (0 for bars or lines): on
    classroom mode's first screen, under the title, one row of controls and ``above`` px more."""
    return Fit(column, FIRST_SCREEN_FIT_PX - above, rows)


def height_scale(height: float | None, fit_height: int | None) -> float:
    """Classroom mode's scale for a figure ``height`` px tall that should fit within
    ``fit_height`` px: CLASSROOM_SCALE when it fits, else smaller, never below the scale at which
    the 12 px font reaches CLASSROOM_MIN_PX (the page then scrolls)."""
    if not height or not fit_height:
        return CLASSROOM_SCALE
    return max(LEAST_CLASSROOM_SCALE, min(CLASSROOM_SCALE, fit_height / float(height)))


def width_scale(width: float | None, column_px: int, scale: float) -> float:
    """``scale``, made smaller where a figure that asks for ``width`` px would be wider than
    ``column_px``, never below the least legible scale (the chart then scrolls sideways)."""
    if not width or width * scale <= column_px:
        return scale
    return max(LEAST_CLASSROOM_SCALE, column_px / float(width))


def press_rows(fig: go.Figure, rows: int, fit_height: int, scale: float) -> None:
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


def height_fitted(fig: go.Figure, fit: Fit) -> float:
    """Classroom mode's scale for ``fig`` drawn where ``fit`` says, before its width is known:
    the height's (:func:`height_scale`), its rows pressed together first where that lets it fit
    (:func:`press_rows`; changes ``fig``)."""
    scale = height_scale(fig.layout.height, fit.height)
    if fit.height and fit.rows is not None:
        press_rows(fig, fit.rows, fit.height, scale)
    return scale


def column_px(fit: Fit, classroom: bool) -> float:
    """The px of the column ``fit`` puts a chart in, on this screen."""
    return fit.column.classroom_px() if classroom else fit.column.laptop_px()
