"""``table_ui``: the one way pages show a small table of results.

A static table (``st.table``), not the interactive grid: its text is the page's own, so it wraps
instead of hiding the end of a long cell (the Alignment page's beam hypotheses), shows every row
without an inner scroll bar, and grows with classroom mode's larger type like the rest of the page.

The rows go to Streamlit as an Arrow table built directly, far cheaper than the pandas DataFrame
Streamlit would make of a list of dicts (the figures: docs/performance.md, "On the server"): the
Alignment page shows one on every Enter. A column that Arrow cannot type (numbers and text mixed)
takes the pandas way, which shows it as text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import pyarrow as pa
import streamlit as st


def table_ui(
    rows: Sequence[Mapping[str, object]] | Mapping[str, Sequence[object]] | pd.DataFrame,
) -> None:
    """Show ``rows`` (records, columns by name, or a DataFrame) as a table without its index."""
    st.table(_arrow(rows), hide_index=True)


def _arrow(rows: object) -> object:
    """Records or columns as an Arrow table; anything else, or a column Arrow cannot type, as
    it came."""
    try:
        if isinstance(rows, Mapping):
            return pa.table(dict(rows))
        if isinstance(rows, list | tuple) and all(isinstance(r, Mapping) for r in rows):
            return pa.Table.from_pylist(list(rows))
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        pass
    return rows
