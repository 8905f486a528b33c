"""The one text-input pipeline of every page's text box (:class:`TextBox`, :func:`read_text`,
:func:`show_text_notices`), the tokenizer of the toy demos, and safe text output. A box's text is
cleaned here, once, into a :class:`models.sentence.Sentence` that the pages and the models take as it
is. User text is never rendered as HTML."""

from __future__ import annotations

import re
from dataclasses import dataclass

import streamlit as st

from i18n import _
from models.sentence import Sentence, clean_text
from ui.sidebar import classroom_mode

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


@dataclass(frozen=True)
class TextBox:
    """What a page's text box accepts: ``limit`` characters (from :mod:`models.limits`; longer
    text is cut with a notice) and ``empty``, the message id (``N_()``) shown when nothing usable
    was typed."""

    limit: int
    empty: str

    def help(self) -> str:
        """The box's tooltip: any text, and where it is cut (in the session's language)."""
        return _("Any text works; it is cut at {n:,} characters.").format(n=self.limit)


def read_text(box: TextBox, raw: str | None) -> Sentence:
    """The one reader of every text box: clean ``raw`` with the models' rule
    (:func:`models.sentence.clean_text`: control and format characters out, whitespace collapsed),
    cut it to ``box.limit`` characters with a notice, and flag an empty text with ``box.empty``
    (translated, as the Sentence's hint). A text of only invisible characters comes back empty,
    with the hint."""
    text, notice = clean_text(raw or ""), None
    if len(text) > box.limit:
        notice = _("Your text has {n:,} characters; only the first {limit:,} are used.").format(
            n=len(text), limit=box.limit
        )
        text = text[: box.limit].rstrip()
    return Sentence(text, notice, None if text else _(box.empty))


def show_text_notices(sentence: Sentence, *, also_cut: str | None = None) -> bool:
    """The one way a page shows what :func:`read_text` found: the cut as an info box (with
    ``also_cut``, the model's own cut of what it read, in the same box), the empty hint as a
    warning. True when there is text to run."""
    cuts = " ".join(part for part in (sentence.notice, also_cut) if part)
    if cuts:
        st.info(cuts, icon=":material/content_cut:")
    if sentence.hint:
        st.warning(sentence.hint, icon=":material/keyboard:")
    return sentence.hint is None


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
