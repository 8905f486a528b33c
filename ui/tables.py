"""``table_ui``: the one way pages show a small table of results.

A static table (``st.table``), not the interactive grid: its text is the page's own, so it wraps
instead of hiding the end of a long cell (the Alignment page's beam hypotheses), shows every row
without an inner scroll bar, and grows with classroom mode's larger type like the rest of the page.

The rows go to Streamlit as an Arrow table built directly (0.04 ms for a dozen rows, against
0.6 ms through the pandas DataFrame Streamlit would make of a list of dicts): the Alignment page
shows one on every Enter. A column that Arrow cannot type (numbers and text mixed) takes the
pandas way, which shows it as text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa
import streamlit as st


def table_ui(rows: Sequence[Mapping[str, object]] | Mapping[str, Sequence[object]]) -> None:
    """Show ``rows`` (records, or columns by name) as a table without its index column."""
    try:
        data = pa.table(rows) if isinstance(rows, Mapping) else pa.Table.from_pylist(list(rows))
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        data = rows
    st.table(data, hide_index=True)
