"""Streamlit glue for the translation pages: cached translators, cached decoding, the sentence box,
and the pure ``compute_*`` functions that turn raw user text into what the pages draw.

Checkpoints are read from ``$ATLAS_CHECKPOINTS`` (default: the project's ``checkpoints/``), so tests
can point the pages at tiny random-weight models. A missing or damaged checkpoint shows the command
that builds it and leaves the rest of the page (and the app) working.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sacrebleu
import streamlit as st
import torch

from models.rnn.checkpoint import CHECKPOINT_ROOT, CheckpointError, read_card, rebuild_command
from models.rnn.seq2seq import ATTENTION_NAMES
from models.rnn.translator import EncoderGradients, Translation, Translator
from models.wordview import merge_subwords
from ui.runtime import freeze_long_lived
from ui.sidebar import current_device
from ui.text import escape_markdown, sanitize_text
from ui.url_state import parse_int, read_param

CHECKPOINTS_ENV = "ATLAS_CHECKPOINTS"
MAX_CHARS = 2000
ALL_MODELS = ATTENTION_NAMES  # the seven RNN translators, in story order
GLOBAL_MODELS = {
    "bahdanau": "Bahdanau (additive)",
    "luong-dot": "Luong global · dot",
    "luong-general": "Luong global · general",
    "luong-concat": "Luong global · concat",
}
LOCAL_MODELS = {"local-p": "Luong local-p (predicted p_t)", "local-m": "Luong local-m (p_t = t)"}
EMPTY_HINT = "Type an English sentence in the box above and press Enter (or pick an example)."
# From Multi30k test_2016_flickr (lines 113, 43, 126, 2, 114, 6): short, reordering, long.
EXAMPLE_PAIRS = {
    "A black dog is retrieving a ball in water.": "Un chien noir récupère une balle dans l'eau.",
    "People sit inside a train.": "Des gens sont assis dans un train.",
    "Four white dogs with muzzles jump over a red wall.":
        "Quatre chiens blancs avec des muselières sautent par-dessus un mur rouge.",
    "A Boston Terrier is running on lush green grass in front of a white fence.":
        "Un terrier de Boston court sur l'herbe verdoyante devant une clôture blanche.",
    "A man in white pants and a blue shirt is kicking a yellow boxing bag.":
        "Un homme en pantalon blanc et T-shirt bleu donne un coup de pied dans un punching-ball jaune.",
    "A man in light colored clothing photographs a group of men wearing dark suits and hats "
    "standing around a woman dressed in a strapless gown.":
        "Un homme en tenue claire photographie un groupe d'hommes portant des costumes sombres et "
        "des chapeaux, debout autour d'une femme vêtue d'une robe bustier.",
}  # fmt: skip
EXAMPLES = list(EXAMPLE_PAIRS)


# ---------------------------------------------------------------- checkpoints and loading


def checkpoint_root() -> Path:
    """Where the ``seq2seq-*`` folders are: ``$ATLAS_CHECKPOINTS`` or ``checkpoints/``."""
    return Path(os.environ.get(CHECKPOINTS_ENV) or CHECKPOINT_ROOT)


def checkpoint_folder(kind: str) -> Path:
    """The folder of the ``seq2seq-<kind>`` checkpoint."""
    return checkpoint_root() / f"seq2seq-{kind}"


def _stamp(folder: Path) -> float:
    """Modification time of the weights (0 when absent): a new file means a fresh load."""
    try:
        return (folder / "model.safetensors").stat().st_mtime
    except OSError:
        return 0.0


@st.cache_resource(show_spinner="Loading the translation model…", max_entries=16)
def _cached_translator(folder: str, device: str, stamp: float) -> Translator:
    """One Translator per (folder, device, weights file version), in eval mode, shared by sessions."""
    translator = Translator.load(Path(folder), device)
    freeze_long_lived(again=True)  # cached for the life of the process
    return translator


def load_translator(kind: str, *, quiet: bool = False) -> Translator | None:
    """The ``kind`` translator on the sidebar's device, or None after an error box naming the
    command that builds it (no box when ``quiet``)."""
    folder = checkpoint_folder(kind)
    try:
        return _cached_translator(str(folder), current_device(), _stamp(folder))
    except CheckpointError as exc:
        if not quiet:
            missing_model_ui(kind, str(exc))
        return None


def missing_model_ui(kind: str, reason: str) -> None:
    """An error box: which model is missing, why, and the command that builds it."""
    st.error(
        f"The **{kind}** model is not available yet, so this part of the page is off.\n\n"
        f"{escape_markdown(reason)}",
        icon=":material/model_training:",
    )
    st.code(rebuild_command(f"seq2seq-{kind}"), language="bash")


def trained_window(translator: Translator) -> int:
    """The half-width D the local model was trained with."""
    return int(translator.model.cfg.window)


def model_cards(kinds: tuple[str, ...] = ALL_MODELS) -> dict[str, dict]:
    """The cards of the models that have one (kind -> card)."""
    cards = {kind: read_card(checkpoint_folder(kind)) for kind in kinds}
    return {kind: card for kind, card in cards.items() if card}


# ---------------------------------------------------------------- decoding (cached)


def _cache_id(translator: Translator) -> tuple[str, str, int]:
    return translator.name, str(translator.device), id(translator.model)


@st.cache_data(max_entries=256, show_spinner="Translating…")
def _decode(
    _translator: Translator,
    cache_id: tuple,
    text: str,
    beam: int,
    window: int | None,
    reference: str | None,
) -> Translation:
    """translate() or force() under inference mode, cached per model, text and settings."""
    with torch.inference_mode():
        if reference is not None:
            return _translator.force(text, reference, window=window)
        return _translator.translate(text, beam=beam, window=window)


def decode(
    translator: Translator,
    text: str,
    *,
    beam: int = 1,
    window: int | None = None,
    reference: str | None = None,
) -> Translation:
    """Cached ``translate`` (beam 1-10) or, with ``reference``, ``force``."""
    beam = int(np.clip(beam, 1, 10))
    return _decode(translator, _cache_id(translator), text, beam, window, reference)


@st.cache_data(max_entries=64, show_spinner="Computing the gradients…")
def _gradients(_translator: Translator, cache_id: tuple, text: str) -> EncoderGradients:
    """encoder_gradients needs autograd, so it runs outside inference mode."""
    return _translator.encoder_gradients(text)


# ---------------------------------------------------------------- pure computations


@dataclass(frozen=True)
class SentenceInput:
    """User text after cleaning. notice: why it was cut; hint: why nothing can run (empty)."""

    text: str
    notice: str | None = None
    hint: str | None = None


def clean_sentence(raw: str | None, *, empty_hint: str = EMPTY_HINT) -> SentenceInput:
    """Strip control characters, truncate to MAX_CHARS with a notice, flag empty text."""
    text, notice = sanitize_text(raw, MAX_CHARS)
    if not text:
        return SentenceInput("", notice, empty_hint)
    return SentenceInput(text, notice)


@dataclass(frozen=True)
class AlignmentView:
    """An alignment at subword or word level: weights (T_out, T_src) or None (no attention)."""

    source: list[str]
    target: list[str]
    weights: np.ndarray | None


def view_of(
    translation: Translation, level: str, weights: np.ndarray | None = None
) -> AlignmentView:
    """``translation``'s alignment (or the given ``weights`` of the same shape, e.g. a beam
    hypothesis) at ``level`` 'subword' or 'word' (pieces merged into words, rows still sum to 1)."""
    w = translation.weights if weights is None else weights
    return tokens_view(translation.source_tokens, translation.target_tokens, w, level)


def tokens_view(
    source: list[str], target: list[str], weights: np.ndarray | None, level: str
) -> AlignmentView:
    """Subword pieces -> view at ``level`` (see :func:`view_of`)."""
    if weights is None or level != "word" or not source or not target:
        return AlignmentView(list(source), list(target), weights)
    merged = merge_subwords(np.asarray(weights), list(source), list(target))
    return AlignmentView(merged.source_words, merged.target_words, merged.weights)


@dataclass(frozen=True)
class Result:
    """What a translation page shows for one input. ``error`` holds a message for the page when
    the model refused the input; ``sentence`` carries the cleaning notice or the empty hint."""

    sentence: SentenceInput
    translation: Translation | None = None
    view: AlignmentView | None = None
    error: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.translation is not None


def truncation_notice(translation: Translation, translator: Translator) -> str | None:
    """A sentence for the page when the model cut the source at its piece limit."""
    if not translation.truncated:
        return None
    limit = translator.model.cfg.max_src_len
    return (
        f"The sentence has {translation.n_source_pieces} subword pieces; "
        f"the model reads the first {limit}."
    )


def _guard(sentence: SentenceInput, run: Callable[[], Result]) -> Result:
    """Run ``run`` unless the text is empty; a ValueError becomes a message, not a traceback."""
    if sentence.hint:
        return Result(sentence)
    try:
        return run()
    except ValueError as exc:
        return Result(sentence, error=str(exc))


def compute_alignment(
    translator: Translator,
    raw: str | None,
    *,
    beam: int = 1,
    level: str = "subword",
    reference: str | None = None,
) -> Result:
    """Translate (or, with a non-empty ``reference``, force) the user's sentence; the page's view."""
    sentence = clean_sentence(raw)
    ref = clean_sentence(reference, empty_hint="").text if reference is not None else None
    if reference is not None and not ref:
        return Result(sentence, error="Type a French reference translation to force it.")

    def run() -> Result:
        tr = decode(translator, sentence.text, beam=beam, reference=ref)
        return Result(sentence, tr, view_of(tr, level))

    return _guard(sentence, run)


def compute_compare(
    first: Translator,
    second: Translator,
    raw: str | None,
    *,
    level: str = "subword",
    reference: str | None = None,
) -> Result:
    """Both models forced through the same translation (the first model's greedy output, or the
    user's reference), so their alignments share rows and columns and can be subtracted.
    extra: {"second": Translation, "second_view": AlignmentView, "difference": array or None}."""
    sentence = clean_sentence(raw)
    ref = clean_sentence(reference, empty_hint="").text if reference else ""

    def run() -> Result:
        target = ref or decode(first, sentence.text).text
        if not target.strip():
            return Result(sentence, error="The first model produced an empty translation.")
        a = decode(first, sentence.text, reference=target)
        b = decode(second, sentence.text, reference=target)
        va, vb = view_of(a, level), view_of(b, level)
        same = (
            va.weights is not None
            and vb.weights is not None
            and va.weights.shape == vb.weights.shape
        )
        diff = vb.weights - va.weights if same and va.source == vb.source else None
        return Result(sentence, a, va, extra={"second": b, "second_view": vb, "difference": diff})

    return _guard(sentence, run)


def compute_local(
    local: Translator, global_: Translator | None, raw: str | None, *, window: int | None = None
) -> Result:
    """The local model's translation with window half-width ``window`` (None: the trained D), and
    the global model forced through the same translation (extra["global"], or None)."""
    sentence = clean_sentence(raw)

    def run() -> Result:
        tr = decode(local, sentence.text, window=window)
        glob = None
        if global_ is not None and tr.text.strip():
            glob = decode(global_, sentence.text, reference=tr.text)
        return Result(sentence, tr, view_of(tr, "subword"), extra={"global": glob})

    return _guard(sentence, run)


def sentence_bleu(hypothesis: str, reference: str) -> float:
    """sacreBLEU sentence-level BLEU (13a, cased) of one hypothesis against one reference."""
    return float(sacrebleu.sentence_bleu(hypothesis, [reference]).score)


def compute_why(
    translators: dict[str, Translator | None], raw: str | None, *, reference: str | None = None
) -> Result:
    """Each available model's translation (extra["translations"]) and, with a reference, its
    sentence BLEU (extra["bleu"])."""
    sentence = clean_sentence(raw)
    ref = clean_sentence(reference, empty_hint="").text if reference else ""

    def run() -> Result:
        outputs = {k: decode(t, sentence.text) for k, t in translators.items() if t is not None}
        bleu = {k: sentence_bleu(tr.text, ref) for k, tr in outputs.items()} if ref else {}
        first = next(iter(outputs.values()), None)
        return Result(sentence, first, extra={"translations": outputs, "bleu": bleu})

    return _guard(sentence, run)


def compute_gradients(translator: Translator, raw: str | None) -> Result:
    """The encoder's gradient norms for the sentence (extra["gradients"]: EncoderGradients)."""
    sentence = clean_sentence(raw)

    def run() -> Result:
        grads = _gradients(translator, _cache_id(translator), sentence.text)
        return Result(sentence, None, extra={"gradients": grads})

    return _guard(sentence, run)


# ---------------------------------------------------------------- widgets


def _pick_example(text_key: str, example_key: str, ref_key: str | None) -> None:
    """Callback: copy the chosen example into the sentence box (and its French reference)."""
    choice = st.session_state.get(example_key)
    if choice:
        st.session_state[text_key] = choice
        if ref_key and choice in EXAMPLE_PAIRS:
            st.session_state[ref_key] = EXAMPLE_PAIRS[choice]


def sentence_ui(
    prefix: str,
    *,
    default: str = EXAMPLES[0],
    examples: list[str] = EXAMPLES,
    with_ref: bool = False,
) -> str:
    """The sentence box (Enter runs it; kept in the URL as ``<prefix>text``) and an example
    picker (which also fills ``<prefix>ref`` when ``with_ref``); returns the raw text."""
    text_key, example_key = f"{prefix}text", f"{prefix}example"
    ref_key = f"{prefix}ref" if with_ref else None
    raw = st.text_input(
        "English sentence", value=default, key=text_key, bind="query-params",
        placeholder="Type an English sentence and press Enter",
        help=f"Any text works; it is cut at {MAX_CHARS:,} characters.",
    )  # fmt: skip
    st.selectbox(
        "…or pick an example from the test set", examples, index=None, key=example_key,
        placeholder="Examples (short, reordering adjectives, long)",
        on_change=_pick_example, args=(text_key, example_key, ref_key),
    )  # fmt: skip
    return raw or ""


def reference_ui(
    prefix: str, *, label: str = "French reference translation", default: str = ""
) -> str:
    """A French sentence box kept in the URL as ``<prefix>ref``; returns the raw text."""
    raw = st.text_input(
        label, value=default, key=f"{prefix}ref", bind="query-params",
        placeholder="Type a French translation and press Enter",
    )  # fmt: skip
    return raw or ""


def step_slider(label: str, key: str, n_steps: int) -> int:
    """A step slider over 0..n_steps-1 kept in the URL under ``key``; the stored value is clamped
    when the sentence gets shorter. Returns 0 without a slider for a single step."""
    if n_steps <= 1:
        return 0
    current = st.session_state.get(key, read_param(key, parse_int, 0, 0, 10**6))
    st.session_state[key] = int(np.clip(current, 0, n_steps - 1))
    return int(st.slider(label, 0, n_steps - 1, key=key, bind="query-params"))


def show_notices(result: Result, translator: Translator | None = None) -> bool:
    """Hint, truncation notices and errors for ``result``; True when there is something to draw."""
    if result.sentence.notice:
        st.warning(result.sentence.notice, icon=":material/content_cut:")
    if result.sentence.hint:
        st.info(result.sentence.hint, icon=":material/keyboard:")
        return False
    if result.error:
        st.warning(result.error, icon=":material/error:")
        return False
    if result.translation is not None and translator is not None:
        cut = truncation_notice(result.translation, translator)
        if cut:
            st.warning(cut, icon=":material/content_cut:")
    return result.ok or bool(result.extra)
