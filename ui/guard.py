"""The one guard around model calls: a model refuses input it cannot use with a ``ValueError``
(an empty sentence, a beam out of range, every token hidden), and every page shows that as a
message, never as an exception box.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from i18n import _

T = TypeVar("T")


def refusal_message(exc: ValueError) -> str:
    """The model's reason as a sentence for the page (capitalised). The models word their
    reasons in the session's language (``i18n``), so the text is shown as it is."""
    text = str(exc).strip() or _("The model cannot use this input.")
    return text[0].upper() + text[1:]


def guarded(run: Callable[[], T]) -> tuple[T | None, str | None]:
    """``(run(), None)``, or ``(None, message)`` when the model refused the input (ValueError)."""
    try:
        return run(), None
    except ValueError as exc:
        return None, refusal_message(exc)


def show_refusal(message: str) -> None:
    """The message box every page uses for a refused input."""
    st.warning(message, icon=":material/error:")


def guarded_ui(run: Callable[[], T]) -> T | None:
    """:func:`guarded`, showing the message on the page; None when the model refused."""
    value, message = guarded(run)
    if message is not None:
        show_refusal(message)
    return value
