"""Streamlit glue for the translation pages: the models they offer, the example sentences, their
widgets (the sentence and reference boxes, the step slider, the notices of a result) and the Local
page's step animation. The boxes hand on a typed :class:`models.sentence.Sentence`, cleaned once
(:func:`ui.text.read_text`); the translators come from :mod:`ui.loaders`, the results from
:mod:`ui.translation_results`.
"""

from __future__ import annotations

import re

import numpy as np
import streamlit as st

from i18n import N_, _, ngettext
from models.english_check import check_english
from models.limits import TRANSLATION_CHARS
from models.rnn.results import Result, TrainingLimit, length_notice, truncation_notice
from models.rnn.seq2seq import ATTENTION_NAMES
from models.rnn.translator import Translation, Translator
from models.sentence import Sentence
from serve.streamlit_private import DeltaGenerator
from ui.guard import show_refusal
from ui.loaders import card_of
from ui.registry import PAGES
from ui.sidebar import classroom_mode
from ui.text import TextBox, read_text, show_text_notices
from ui.url_state import parse_int, read_param
from viz.behaviours import Chart
from viz.views import local_steps_view

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
# The English sentence box of the translation pages (and of Recurrent, Why √d_k, the lessons).
SENTENCE_BOX = TextBox(
    TRANSLATION_CHARS,
    N_(
        "The sentence is empty: type an English sentence in the box above and press Enter (or "
        "pick an example)."
    ),
)
# The French reference box: an empty reference cannot be forced.
REFERENCE_BOX = TextBox(TRANSLATION_CHARS, N_("Type a French reference translation to force it."))


def trained_window(translator: Translator) -> int:
    """The half-width D the local model was trained with."""
    return int(translator.model.cfg.window)


def model_label(model: str) -> str:
    """The translated label of a GLOBAL_MODELS or LOCAL_MODELS id (the id itself when unknown)."""
    label = GLOBAL_MODELS.get(model) or LOCAL_MODELS.get(model)
    return _(label) if label else model


# ---------------------------------------------------------------- widgets


def _pick_example(text_key: str, example_key: str, ref_key: str | None) -> None:
    """Callback: copy the chosen example into the sentence box (and its French reference)."""
    choice = st.session_state.get(example_key)
    if choice:
        st.session_state[text_key] = choice
        if ref_key and choice in EXAMPLE_PAIRS:
            st.session_state[ref_key] = EXAMPLE_PAIRS[choice]


def english_only_note(text: str) -> None:
    """Under the sentence box: the models read English, and the Multi-head page is the one for
    Chinese (a link to it). A warning instead of a caption when the text has CJK characters."""
    entry = next((p for p in PAGES if p.file == CHINESE_PAGE and p.exists()), None)
    if _CJK.search(text):
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
) -> Sentence:
    """The sentence box (Enter runs it; kept in the URL as ``<prefix>text``), with
    ``english_note`` the note that the models read English (:func:`english_only_note`), and an
    example picker (which also fills ``<prefix>ref`` when ``with_ref``); returns the typed text
    as the one :class:`Sentence` of this input (cleaned and cut by :func:`ui.text.read_text`,
    with its notice or its empty hint), which every later step takes as it is.
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
    sentence = read_text(SENTENCE_BOX, raw)
    warns = english_note and bool(_CJK.search(sentence.text))
    if warns:
        english_only_note(sentence.text)
    if more is None:
        folded = classroom_mode()
        more = st.expander(_("Examples and other languages")) if folded else st.container()
    with more:
        if english_note and not warns:
            english_only_note(sentence.text)
        example_picker(examples, (text_key, example_key, ref_key))
    return sentence


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


def reference_ui(prefix: str, *, label: str | None = None, default: str = "") -> Sentence:
    """A French sentence box kept in the URL as ``<prefix>ref``; returns its :class:`Sentence`
    (:data:`REFERENCE_BOX`'s reading). ``label`` is already translated (default: "French
    reference translation")."""
    raw = st.text_input(
        label or _("French reference translation"),
        value=default,
        key=f"{prefix}ref",
        bind="query-params",
        placeholder=_("Type a French translation and press Enter"),
    )
    return read_text(REFERENCE_BOX, raw)


def step_slider(label: str, key: str, n_steps: int) -> int:
    """A step slider over 0..n_steps-1 kept in the URL under ``key``; the stored value is clamped
    when the sentence gets shorter. Returns 0 without a slider for a single step."""
    if n_steps <= 1:
        return 0
    current = st.session_state.get(key, read_param(key, parse_int, 0, 0, 10**6))
    st.session_state[key] = int(np.clip(current, 0, n_steps - 1))
    return int(st.slider(label, 0, n_steps - 1, key=key, bind="query-params"))


def local_steps_chart(tr: Translation, *, step: int = 0) -> Chart:
    """The Local page's step chart: :func:`viz.views.local_steps_view` (between steps the
    Gaussian follows p_t in the browser)."""
    return local_steps_view(tr, step=step)


def training_limit(translator: Translator) -> TrainingLimit:
    """``translator``'s :class:`models.rnn.results.TrainingLimit`, from its card when the card
    records the longest training sentence, else its config's ``max_src_len``."""
    card = card_of(translator.name)
    pieces = int((card.train_lengths if card else {}).get("src_pieces", 0))
    if pieces > 0:
        return TrainingLimit(pieces, measured=True)
    return TrainingLimit(int(translator.model.cfg.max_src_len), measured=False)


def unfamiliar_input_ui(result: Result, translator: Translator) -> bool:
    """Next to ``result``'s translation: a warning when its sentence is unlike what
    ``translator`` reads (:func:`english_warning`), and one when it had more pieces than any
    sentence the model saw in training (:func:`models.rnn.results.length_notice`, from the
    pieces the model counted). True when a warning was shown."""
    too_long = length_notice(result.translation, training_limit(translator))
    messages = [m for m in (english_warning(result.sentence, translator), too_long) if m]
    for message in messages:
        st.warning(message, icon=":material/translate:")
    return bool(messages)


def english_warning(sentence: Sentence, translator: Translator) -> str | None:
    """Why the French is probably not a translation of ``sentence``: it has only symbols or
    emoji, it is mostly not in the Latin script, or most of its words are not in
    ``translator``'s English vocabulary (the model then writes fluent French that translates
    nothing); None when it looks like English."""
    check = check_english(sentence, translator.src_tok)
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
        cut = truncation_notice(result.translation, translator.model.cfg.max_src_len)
    if not show_text_notices(result.sentence, also_cut=cut):
        return False
    if result.error:
        show_refusal(result.error)
        return False
    return True  # the model ran: the page draws what the result holds
