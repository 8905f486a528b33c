"""Download buttons for the matrices on screen (CSV) and structured results (JSON)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from i18n import _


def matrix_csv(matrix: object, row_labels: Sequence[str], col_labels: Sequence[str]) -> str:
    """CSV text of a (rows, cols) matrix with labelled rows and columns (duplicates allowed)."""
    arr = np.asarray(matrix, dtype=float)
    _check_shape(arr, row_labels, col_labels)
    frame = pd.DataFrame(arr, index=list(row_labels), columns=list(col_labels))
    return frame.to_csv(float_format="%.6g")


def _check_shape(arr: np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str]) -> None:
    if arr.shape != (len(row_labels), len(col_labels)):
        raise ValueError(
            f"matrix is {arr.shape} but there are {len(row_labels)} row and "
            f"{len(col_labels)} column labels"
        )


def download_csv(
    matrix: object,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    filename: str,
    *,
    label: str | None = None,
    key: str | None = None,
) -> None:
    """A download button for one labelled matrix as CSV, written when the button is clicked
    (a rerun only registers it). ``label``: translated text (default 'Download CSV'). The file's
    row and column labels are data and stay as given."""
    label = _("Download CSV") if label is None else label
    arr, rows, cols = np.array(matrix, dtype=float), list(row_labels), list(col_labels)
    _check_shape(arr, rows, cols)  # now, not at the click
    download_text(label, lambda: matrix_csv(arr, rows, cols), filename, "text/csv", key=key)


def download_text(
    label: str, build: Callable[[], str], filename: str, mime: str, *, key: str | None = None
) -> None:
    """The one download button: ``build()`` writes the file's text when the button is clicked
    (a rerun only registers it), and the click does not rerun the page."""
    st.download_button(
        label,
        build,
        file_name=filename,
        mime=mime,
        key=key,
        icon=":material/download:",
        on_click="ignore",
    )


def _jsonable(obj: object) -> object:
    """numpy arrays and scalars -> lists and floats for json.dumps."""
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def download_json(
    data: object, filename: str, *, label: str | None = None, key: str | None = None
) -> None:
    """A download button for a JSON document (numpy arrays become nested lists), written when the
    button is clicked. ``label``: translated text (default 'Download JSON')."""
    label = _("Download JSON") if label is None else label
    download_text(label, lambda: json_text(data), filename, "application/json", key=key)


def json_text(data: object) -> str:
    """``data`` as indented JSON text (numpy arrays and scalars become lists and floats)."""
    return json.dumps(data, default=_jsonable, ensure_ascii=False, indent=1)


def csv_and_json(
    matrix: object,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    data: object,
    name: str,
    key: str,
) -> None:
    """The two downloads side by side: the labelled matrix as ``name``.csv and ``data`` as
    ``name``.json. One horizontal container (three elements to send and draw on each rerun, where
    two columns made five); both files are written only when clicked."""
    with st.container(horizontal=True):
        download_csv(matrix, row_labels, col_labels, f"{name}.csv", key=f"{key}_csv")
        download_json(data, f"{name}.json", key=f"{key}_json")
