"""Classroom mode's first screen: the page's title, the controls a teacher changes most in one row
with a popover of the other settings beside them, and under them the main chart, fitted to what
is left of a projector's 1280x720 screen (``FIRST_SCREEN_FIT_PX``, ``ui.charts.plotly_chart``'s
``fit_height``). Outside classroom mode a page keeps its controls one under the other."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from i18n import _
from serve.streamlit_private import DeltaGenerator
from ui.sidebar import classroom_mode

# the px a main chart may take under the title row (about 90 px with classroom mode's 20 px root
# font) and one row of controls (about 100 px) on a 720 px projector: it starts at about 200 px
# (measured in Chromium; tests/test_browser_legibility.py holds it: the main chart whole on the
# first screen at 1280x720 in classroom mode)
FIRST_SCREEN_FIT_PX = 500


@dataclass(frozen=True)
class ControlRow:
    """Where a page's controls go in classroom mode: ``columns`` (one row) for the ones a teacher
    changes most, ``more`` (a popover at the row's end) for the rest."""

    columns: tuple[DeltaGenerator, ...]
    more: DeltaGenerator


def control_row(widths: Sequence[int]) -> ControlRow:
    """Classroom mode's controls: one row of ``widths`` columns and a "Settings" popover."""
    *columns, end = st.columns([*widths, 2], vertical_alignment="bottom")
    more = end.popover(_("Settings"), icon=":material/tune:", use_container_width=True)
    return ControlRow(tuple(columns), more)


def first_screen_fit(rows: int, *, above: int = 0) -> dict[str, int]:
    """``ui.charts.plotly_chart``'s arguments that fit a chart of ``rows`` rows of labels (0 for
    bars or lines) to classroom mode's first screen, under ``above`` px more than the title and
    one row of controls (they change nothing outside classroom mode)."""
    return {"fit_height": FIRST_SCREEN_FIT_PX - above, "fit_rows": rows}


def regions() -> tuple[DeltaGenerator, DeltaGenerator]:
    """(where the charts go, where the notes go): in classroom mode the notes come after the
    charts, so that the main chart is on a projector's first screen; else both are the page, in
    the order the page writes them."""
    if not classroom_mode():
        page = st.container()
        return page, page
    charts = st.container()
    return charts, st.container()
