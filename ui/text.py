"""Input sanitizers and safe text output. User text is never rendered as HTML."""

from __future__ import annotations

import re

import streamlit as st

from i18n import _
from models.text import clean_text
from ui.sidebar import classroom_mode

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def sanitize_text(text: str | None, max_chars: int) -> tuple[str, str | None]:
    """Clean user text with the models' rule (:func:`models.text.clean_text`: control and format
    characters out, whitespace collapsed), then truncate to ``max_chars``.

    Returns (clean_text, notice); notice is a sentence for the page when something was cut. A text
    of only invisible characters comes back empty, so the page's emptiness check catches it.
    """
    clean = clean_text(text or "")
    if len(clean) <= max_chars:
        return clean, None
    notice = _("Your text has {n:,} characters; only the first {limit:,} are used.").format(
        n=len(clean), limit=max_chars
    )
    return clean[:max_chars].rstrip(), notice


def typed_text(raw: str | None, max_chars: int) -> str:
    """A sentence box's text, cleaned and cut (:func:`sanitize_text`), the cut shown as a notice;
    an empty text gets the pages' one warning and comes back as ''."""
    text, notice = sanitize_text(raw, max_chars)
    if notice:
        st.info(notice, icon=":material/content_cut:")
    if not text:
        st.warning(
            _("The sentence is empty: type something and press Enter."), icon=":material/edit:"
        )
    return text


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
    notice = _("{n} tokens; the first {limit} are used.").format(n=len(tokens), limit=max_tokens)
    return tokens[:max_tokens], notice


def page_intro(title: str, about: str) -> None:
    """A page's title and its opening paragraph (both our own text, translated; markdown).

    In classroom mode the paragraph folds into a popover beside the title, so that at a
    projector's 1280x720 the page's controls and its main chart come into the first screen (the
    teacher tells it)."""
    if not classroom_mode():
        st.title(title)
        st.markdown(about)
        return
    heading, end = st.columns([5, 2], vertical_alignment="center")
    heading.title(title)
    with end.popover(_("About this page"), icon=":material/info:", use_container_width=True):
        st.markdown(about)
