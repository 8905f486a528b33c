"""Input sanitizers and safe text output. User text is never rendered as HTML."""

from __future__ import annotations

import re
import unicodedata

import streamlit as st

# Bidi overrides/isolates can visually reorder text; they are removed along with control chars.
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def strip_control(text: str) -> str:
    """Drop control characters (tabs and newlines become spaces) and bidi overrides."""
    out = []
    for ch in text:
        if ch in "\t\n\r":
            out.append(" ")
        elif unicodedata.category(ch) != "Cc" and ch not in _BIDI:
            out.append(ch)
    return "".join(out)


def sanitize_text(text: str | None, max_chars: int) -> tuple[str, str | None]:
    """Clean user text: strip control chars, trim, truncate to ``max_chars``.

    Returns (clean_text, notice); notice is a sentence for the page when something was cut.
    """
    clean = strip_control(text or "").strip()
    if len(clean) <= max_chars:
        return clean, None
    notice = f"Your text has {len(clean):,} characters; only the first {max_chars:,} are used."
    return clean[:max_chars].rstrip(), notice


def escape_markdown(text: str) -> str:
    """Backslash-escape markdown and HTML-ish characters so text shows literally in st.markdown."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def user_text(text: str, *, label: str | None = None) -> None:
    """Show user-supplied ``text`` literally (escaped markdown, never unsafe HTML) after our ``label``."""
    prefix = f"**{label}** " if label else ""  # the label is ours, not the user's
    st.markdown(prefix + escape_markdown(text))


def tokenize(text: str, max_tokens: int) -> tuple[list[str], str | None]:
    """Split a sentence into tokens: on whitespace, or per character for unspaced scripts.

    Returns (tokens, notice) where notice explains a cut to ``max_tokens``.
    """
    tokens = text.split()
    if len(tokens) == 1 and len(tokens[0]) > 1 and not tokens[0].isascii():
        tokens = list(tokens[0])  # e.g. Chinese or Japanese written without spaces
    if len(tokens) <= max_tokens:
        return tokens, None
    return tokens[:max_tokens], f"{len(tokens)} tokens; the first {max_tokens} are used."
