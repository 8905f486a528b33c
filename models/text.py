"""The one cleaning rule for text that reaches a model: the pages' sentence boxes and the
tokenizers (training and inference) all call :func:`clean_text`, so the page's emptiness check
and the model agree on what a sentence is.
"""

from __future__ import annotations

import unicodedata

_REMOVED = ("Cc", "Cf")  # control and format characters: NUL, U+200B, U+FEFF, U+00AD, bidi marks


def clean_text(text: str) -> str:
    """Whitespace of any kind (tabs, line breaks, U+00A0, ...) becomes one space; other control
    and format characters (zero-width space, byte-order mark, soft hyphen, bidi overrides, NUL)
    are removed; the result is NFC-normalised and stripped. Idempotent:
    ``clean_text(clean_text(s)) == clean_text(s)``; a text of only such characters becomes ``""``.
    """
    kept = (
        " " if ch.isspace() else "" if unicodedata.category(ch) in _REMOVED else ch for ch in text
    )
    return " ".join(unicodedata.normalize("NFC", "".join(kept)).split())
