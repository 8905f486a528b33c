"""``table_ui``: the one way pages show a small table of results.

A static table (``st.table``), not the interactive grid: its text is the page's own, so it wraps
instead of hiding the end of a long cell (the Alignment page's beam hypotheses), shows every row
without an inner scroll bar, and grows with classroom mode's larger type like the rest of the page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st


def table_ui(rows: Sequence[Mapping[str, object]] | Mapping[str, Sequence[object]]) -> None:
    """Show ``rows`` (records, or columns by name) as a table without its index column."""
    st.table(rows, hide_index=True)
