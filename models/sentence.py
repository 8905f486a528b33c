"""The one cleaning rule for text that reaches a model, and the typed sentence it makes.

A page's text box cleans what was typed once (:func:`clean_text`, through ``ui.text.read_text``)
and hands on a :class:`Sentence`; the models read a Sentence as it is and clean only a bare
``str`` (:func:`as_sentence`: the training scripts, notebooks), so the page's emptiness check and the
model agree on what a sentence is, and nothing after the box cleans it again.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Sentence:
    """A text box's text as the pages and the models read it, made once per input by
    ``ui.text.read_text``. text: cleaned with :func:`clean_text` and cut to the box's limit;
    notice: why it was cut (None when it was not); hint: why nothing can run (the box's empty
    message), None when there is text."""

    text: str
    notice: str | None = None
    hint: str | None = None


def as_sentence(text: Sentence | str) -> Sentence:
    """What a model reads: a :class:`Sentence` as it is (cleaned when its text box made it), a
    bare ``str`` cleaned here into one (no limit, no notices)."""
    return text if isinstance(text, Sentence) else Sentence(clean_text(text))
