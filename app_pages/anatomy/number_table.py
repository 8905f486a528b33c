"""``number_grid_ui``: a small table of numbers a person types into, one text box per cell.

Not ``st.data_editor``: in Chromium its grid opens a cell's editor on the first key typed into a
selected cell, and a second key that comes before the editor is ready starts it again, so typing
"-3" quickly entered 3 (measured with Playwright: lost at 0-60 ms between the keys, in number and
text columns alike; only a double-click, which opens the editor first, was safe). A text box keeps
every key. Each cell is checked as it is committed (Enter, Tab or a click elsewhere): the box
refuses what is not a number, with a message; what still cannot be used (a number out of range,
an empty cell) reads as NaN.

The rows live in ``st.session_state[key]`` (a list of rows of floats, NaN for an empty cell):
the values the boxes start from, and what they last read (Streamlit forgets a widget's state after
a run that does not draw it, so an edit would otherwise be lost when the table comes back).
:func:`set_rows` replaces the rows (a preset, a row added or deleted) and starts new boxes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import streamlit as st

from i18n import _
from ui.url_state import parse_float

LIMIT = 100.0  # numbers are kept within [-LIMIT, LIMIT]
CELL = re.compile(r"\s*[-+\u2212]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")  # '−' is a minus too
NAME_PX = 22  # the row names' column (one letter, or 'q x')


def parse_cell(text: object) -> float:
    """A cell as a number: NaN when empty, not a number, or outside [-LIMIT, LIMIT]."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        text = f"{text:g}"
    clean = str(text if text is not None else "").strip().replace("\u2212", "-")
    return parse_float(clean, math.nan, -LIMIT, LIMIT) if CELL.fullmatch(clean) else math.nan


def cell_text(value: float) -> str:
    """A number as its cell shows it ('2', '-0.5', '1e-06'); '' for an empty cell (NaN)."""
    return f"{value:g}" if math.isfinite(value) else ""


def _version(key: str) -> int:
    return st.session_state.setdefault(f"{key}_version", 0)


def _cell_key(key: str, row: int, col: int) -> str:
    """The text box of a cell; a new version of the rows gets new boxes."""
    return f"{key}_cell_{_version(key)}_{row}_{col}"


def set_rows(key: str, rows: Sequence[Sequence[float]]) -> None:
    """Replace the table's rows (NaN: an empty cell); its boxes start again from them."""
    st.session_state[key] = [[float(v) for v in row] for row in rows]
    st.session_state[f"{key}_version"] = _version(key) + 1


def current_rows(key: str) -> list[list[float]]:
    """The rows as their boxes read now (for a callback, which runs before the boxes are drawn
    again); NaN where a cell is empty or unreadable."""
    rows = st.session_state[key]
    return [
        [
            parse_cell(st.session_state.get(_cell_key(key, r, c), cell_text(v)))
            for c, v in enumerate(row)
        ]
        for r, row in enumerate(rows)
    ]


def _delete_row(key: str, row: int) -> None:
    rows = current_rows(key)
    del rows[row]
    set_rows(key, rows)


def _add_row(key: str, n_cols: int) -> None:
    set_rows(key, [*current_rows(key), [math.nan] * n_cols])


def _row_ui(
    key: str, r: int, name: str, columns: Sequence[str], deletable: bool | None
) -> list[float]:
    """One row: its name, a box per column (the first row's boxes show the column names) and,
    unless ``deletable`` is None, its delete button (disabled when False). Returns the row as
    numbers (NaN where unusable)."""
    row = st.session_state[key][r]
    message = _("Type a number, such as -3 or 0.5.")
    with st.container(horizontal=True, wrap=False, vertical_alignment="bottom", gap="small"):
        st.markdown(f"**{name}**", width=NAME_PX)
        texts = [
            st.text_input(
                column if r == 0 else f"{name} · {column}",
                cell_text(value),
                key=_cell_key(key, r, c),
                label_visibility="visible" if r == 0 else "collapsed",
                validate=("^" + CELL.pattern + "$", message),
            )
            for c, (column, value) in enumerate(zip(columns, row, strict=True))
        ]
        if deletable is not None:
            st.button(
                "✕",  # a label, not an icon: an icon-only button reads "close icon" aloud, in English
                key=f"{key}_delete_{_version(key)}_{r}",
                help=_("Delete item {name}").format(name=name),
                on_click=_delete_row,
                args=(key, r),
                disabled=not deletable,
            )
    return [parse_cell(text) for text in texts]


def number_grid_ui(
    key: str,
    columns: Sequence[str],
    row_names: Sequence[str],
    *,
    rows: tuple[int, int] | None = None,
) -> np.ndarray:
    """The table of ``st.session_state[key]``: a row per entry named ``row_names[i]``, a text box
    per column headed ``columns[j]`` (pass translated text). ``rows`` = (fewest, most): rows can
    be added and deleted within those bounds; None: a fixed table. Returns the numbers
    (n_rows, n_columns), NaN where a cell is empty or unreadable."""
    n = len(st.session_state[key])
    deletable = None if rows is None else n > rows[0]
    values = [_row_ui(key, r, row_names[r], columns, deletable) for r in range(n)]
    # what the boxes hold now is what they start from when drawn again after a run without
    # them (W while another score is chosen, the table after a visit to another page)
    st.session_state[key] = values
    if rows is not None:
        st.button(
            _("Add an item"),
            icon=":material/add:",
            key=f"{key}_add",
            on_click=_add_row,
            args=(key, len(columns)),
            disabled=n >= rows[1],
        )
    return np.array(values, dtype=float).reshape(n, len(columns))
