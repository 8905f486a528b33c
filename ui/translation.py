"""Streamlit glue for the translation pages: the models they offer, the example sentences, their
widgets (the sentence and reference boxes, the step slider, the notices of a result) and the Local
page's step animation. The translators come from :mod:`ui.loaders`; the computations from
:mod:`ui.translation_compute`.
"""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from i18n import N_, _, ngettext
from models.english_check import check_english
from models.rnn.seq2seq import ATTENTION_NAMES
from models.rnn.translator import Translation, Translator
from serve.streamlit_private import DeltaGenerator
from ui.guard import show_refusal
from ui.registry import PAGES
from ui.sidebar import classroom_mode
from ui.text import show_text_notices
from ui.translation_compute import SENTENCE_BOX, Result, length_notice, truncation_notice
from ui.url_state import parse_int, read_param
from viz.behaviours import Behaviours, Chart
from viz.local_steps import local_play, local_steps_figure

ALL_MODELS = ATTENTION_NAMES  # the seven RNN translators, in story order
GLOBAL_MODELS = {  # id -> label (model names stay; the words around them are translated)
    "bahdanau": N_("Bahdanau (additive)"),
    "luong-dot": N_("Luong global · dot"),
    "luong-general": N_("Luong global · general"),
    "luong-concat": N_("Luong global · concat"),
}
LOCAL_MODELS = {
    "local-p": N_("Luong local-p (predicted p_t)"),
    "local-m": N_("Luong local-m (p_t = t)"),
}
# From Multi30k test_2016_flickr (lines 113, 43, 126, 2, 114, 6): short, reordering, long.
EXAMPLE_PAIRS = {
    "A black dog is retrieving a ball in water.": "Un chien noir récupère une balle dans l'eau.",
    "People sit inside a train.": "Des gens sont assis dans un train.",
    "Four white dogs with muzzles jump over a red wall.": "Quatre chiens blancs avec des muselières sautent par-dessus un mur rouge.",
    "A Boston Terrier is running on lush green grass in front of a white fence.": "Un terrier de Boston court sur l'herbe verdoyante devant une clôture blanche.",
    "A man in white pants and a blue shirt is kicking a yellow boxing bag.": "Un homme en pantalon blanc et T-shirt bleu donne un coup de pied dans un punching-ball jaune.",
    "A man in light colored clothing photographs a group of men wearing dark suits and hats "
    "standing around a woman dressed in a strapless gown.": "Un homme en tenue claire photographie un groupe d'hommes portant des costumes sombres et "
    "des chapeaux, debout autour d'une femme vêtue d'une robe bustier.",
}
EXAMPLES = list(EXAMPLE_PAIRS)
# The page for Chinese text: the Multi-head page's pretrained encoder has CJK in its vocabulary.
CHINESE_PAGE = "app_pages/multi_head/multi_head.py"
ENGLISH_ONLY_NOTE = N_(
    "These models translate English into French. For Chinese text, open the Multi-head "
    "attention page: its pretrained encoder reads Chinese."
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def trained_window(translator: Translator) -> int:
    """The half-width D the local model was trained with."""
    return int(translator.model.cfg.window)


def model_label(kind: str) -> str:
    """The translated label of a GLOBAL_MODELS or LOCAL_MODELS id (the id itself when unknown)."""
    label = GLOBAL_MODELS.get(kind) or LOCAL_MODELS.get(kind)
    return _(label) if label else kind


# ---------------------------------------------------------------- widgets


def _pick_example(text_key: str, example_key: str, ref_key: str | None) -> None:
    """Callback: copy the chosen example into the sentence box (and its French reference)."""
    choice = st.session_state.get(example_key)
    if choice:
        st.session_state[text_key] = choice
        if ref_key and choice in EXAMPLE_PAIRS:
            st.session_state[ref_key] = EXAMPLE_PAIRS[choice]


def english_only_note(raw: str) -> None:
    """Under the sentence box: the models read English, and the Multi-head page is the one for
    Chinese (a link to it). A warning instead of a caption when the text has CJK characters."""
    entry = next((p for p in PAGES if p.file == CHINESE_PAGE and p.exists()), None)
    if _CJK.search(raw):
        st.warning(_(ENGLISH_ONLY_NOTE), icon=":material/translate:")
    else:
        st.caption(_(ENGLISH_ONLY_NOTE))
    if entry is not None:  # under the note: in a column beside it, its label was cut
        st.page_link(entry.file, label=_(entry.title), icon=entry.icon)


def sentence_ui(
    prefix: str,
    *,
    default: str = EXAMPLES[0],
    examples: list[str] = EXAMPLES,
    with_ref: bool = False,
    english_note: bool = False,
    more: DeltaGenerator | None = None,
) -> str:
    """The sentence box (Enter runs it; kept in the URL as ``<prefix>text``), with
    ``english_note`` the note that the models read English (:func:`english_only_note`), and an
    example picker (which also fills ``<prefix>ref`` when ``with_ref``); returns the raw text.
    In classroom mode the picker and the note (unless it warns) fold into ``more`` (a page's
    settings popover, ``ui.layout.control_row``) or else an expander, so that the page's main
    chart starts on the first screen of a projector."""
    text_key, example_key = f"{prefix}text", f"{prefix}example"
    ref_key = f"{prefix}ref" if with_ref else None
    raw = st.text_input(
        _("English sentence"),
        value=default,
        key=text_key,
        bind="query-params",
        placeholder=_("Type an English sentence and press Enter"),
        help=SENTENCE_BOX.help(),
    )
    warns = english_note and bool(_CJK.search(raw or ""))
    if warns:
        english_only_note(raw or "")
    if more is None:
        folded = classroom_mode()
        more = st.expander(_("Examples and other languages")) if folded else st.container()
    with more:
        if english_note and not warns:
            english_only_note(raw or "")
        example_picker(examples, (text_key, example_key, ref_key))
    return raw or ""


def example_picker(examples: list[str], keys: tuple[str, str, str | None]) -> None:
    """The example picker; ``keys``: the sentence box's, its own and the reference box's (or
    None), see :func:`_pick_example`."""
    st.selectbox(
        _("…or pick an example from the test set"),
        examples,
        index=None,
        key=keys[1],
        placeholder=_("Examples (short, reordering adjectives, long)"),
        on_change=_pick_example,
        args=keys,
    )


def reference_ui(prefix: str, *, label: str | None = None, default: str = "") -> str:
    """A French sentence box kept in the URL as ``<prefix>ref``; returns the raw text. ``label``
    is already translated (default: "French reference translation")."""
    raw = st.text_input(
        label or _("French reference translation"),
        value=default,
        key=f"{prefix}ref",
        bind="query-params",
        placeholder=_("Type a French translation and press Enter"),
    )
    return raw or ""


def step_slider(label: str, key: str, n_steps: int) -> int:
    """A step slider over 0..n_steps-1 kept in the URL under ``key``; the stored value is clamped
    when the sentence gets shorter. Returns 0 without a slider for a single step."""
    if n_steps <= 1:
        return 0
    current = st.session_state.get(key, read_param(key, parse_int, 0, 0, 10**6))
    st.session_state[key] = int(np.clip(current, 0, n_steps - 1))
    return int(st.slider(label, 0, n_steps - 1, key=key, bind="query-params"))


def local_steps(tr: Translation, *, step: int = 0) -> go.Figure:
    """The Local page's step animation of a local-attention translation (window, Gaussian, raw
    and final weights), opening at ``step``."""
    return local_steps_figure(
        tr.raw_weights,
        tr.weights,
        tr.gaussian,
        tr.p_t,
        tr.window,
        tr.D,
        tr.source_tokens,
        tr.target_tokens,
        step=step,
    )


def local_steps_chart(tr: Translation, *, step: int = 0) -> Chart:
    """:func:`local_steps` with its play options (:func:`viz.local_steps.local_play`: between
    steps the Gaussian follows p_t in the browser), as the Local page shows it."""
    return Chart(local_steps(tr, step=step), Behaviours(play=local_play(tr.D)))


def unfamiliar_input_ui(text: str, translator: Translator) -> bool:
    """Next to a translation: a warning when ``text`` is unlike what ``translator`` reads
    (:func:`english_warning`), and one when it is longer than any sentence the model saw in
    training (:func:`ui.translation_compute.length_notice`). True when a warning was shown."""
    messages = [
        m for m in (english_warning(text, translator), length_notice(text, translator)) if m
    ]
    for message in messages:
        st.warning(message, icon=":material/translate:")
    return bool(messages)


def english_warning(text: str, translator: Translator) -> str | None:
    """Why the French is probably not a translation of ``text``: it has only symbols or emoji,
    it is mostly not in the Latin script, or most of its words are not in ``translator``'s
    English vocabulary (the model then writes fluent French that translates nothing); None when
    it looks like English."""
    check = check_english(text, translator.src_tok)
    if check.symbols_only:
        return _(
            "This text has no letters or digits, only symbols or emoji, but this model reads "
            "English words: the French above is not a translation of it."
        )
    if check.not_latin:
        return _(
            "Most of this text is not in the Latin alphabet, but this model reads English only: "
            "the French above is not a translation of it."
        )
    if not check.mostly_unknown:
        return None
    unknown = check.n_words - check.n_known
    return ngettext(
        "{unknown} of {n} word is not in the model's English vocabulary (the model reads "
        "it as pieces of words): the French above is probably not a translation of the text.",
        "{unknown} of {n} words are not in the model's English vocabulary (the model reads "
        "them as pieces of words): the French above is probably not a translation of the text.",
        check.n_words,
    ).format(unknown=unknown, n=check.n_words)


def show_notices(result: Result, translator: Translator | None = None) -> bool:
    """The sentence box's notices (:func:`ui.text.show_text_notices`) with the model's own cut
    for ``result`` in the same box (one cut, one box: two boxes pushed the chart below a
    projector's first screen), then the model's refusal; True when the model ran (nothing was
    refused), so there is something to draw."""
    cut = None
    if result.translation is not None and translator is not None:
        cut = truncation_notice(result.translation, translator)
    if not show_text_notices(result.sentence, also_cut=cut):
        return False
    if result.error:
        show_refusal(result.error)
        return False
    return True  # the model ran: the page draws what the result holds
