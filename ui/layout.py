"""Classroom mode's first screen: the page's title, the controls a teacher changes most in one row
with a popover of the other settings beside them, and under them the main chart (fitted to what
is left of a projector's 1280x720 screen: ``ui.fit.first_screen``). Outside classroom mode a page
keeps its controls one under the other."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from i18n import _
from serve.streamlit_private import DeltaGenerator
from ui.sidebar import classroom_mode


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


def regions() -> tuple[DeltaGenerator, DeltaGenerator]:
    """(where the charts go, where the notes go): in classroom mode the notes come after the
    charts, so that the main chart is on a projector's first screen; else both are the page, in
    the order the page writes them."""
    if not classroom_mode():
        page = st.container()
        return page, page
    charts = st.container()
    return charts, st.container()
