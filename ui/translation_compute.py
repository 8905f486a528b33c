"""The translation pages' computations: cached decoding and the pure ``compute_*`` functions that
turn raw user text into typed results (no widgets; those are in :mod:`ui.translation`).

Every model call goes through :func:`ui.guard.guarded` (a refused input becomes ``error``) and
every decoding result is cached with ``st.cache_data`` on the weights' identity
(:func:`ui.loaders.weights_id`; :mod:`serve.cache`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import streamlit as st
import torch

from i18n import N_, _
from models.limits import TRANSLATION_CHARS
from models.rnn.translator import EncoderGradients, Translation, Translator
from models.subword_merge import merge_subwords
from models.translation import sentence_bleu
from ui.guard import guarded
from ui.loaders import ModelKey, card_of, spinner, weights_id
from ui.text import SentenceInput, TextBox, read_text

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


# ---------------------------------------------------------------- decoding (cached)


# The spinners are shown by the callers (decode, compute_gradients) in the session's language
# (ui.loaders.spinner): a decorator's text would be fixed at import.
@st.cache_data(max_entries=256, show_spinner=False)  # 256 results, a few MB at most
def _decode(
    _translator: Translator,
    weights: ModelKey,
    text: str,
    beam: int,
    window: int | None,
    reference: str | None,
) -> Translation:
    """translate() or force() under inference mode, cached per weights, text and settings."""
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
    """Cached ``translate`` or, with ``reference``, ``force``. A beam out of the model's range
    (1 to :data:`models.limits.TRANSLATOR_BEAM`) is the model's ValueError, a message under
    :func:`ui.guard.guarded`."""
    with spinner(_("Translating…")):
        return _decode(translator, weights_id(translator), text, beam, window, reference)


@st.cache_data(max_entries=64, show_spinner=False)  # 64 small norm vectors
def _gradients(_translator: Translator, weights: ModelKey, text: str) -> EncoderGradients:
    """encoder_gradients needs autograd, so it runs outside inference mode."""
    return _translator.encoder_gradients(text)


# ---------------------------------------------------------------- typed inputs and views


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


# ---------------------------------------------------------------- typed results


@dataclass(frozen=True)
class Result:
    """What a translation page shows for one input: the translation and its view. ``error`` holds
    a message for the page when the model refused the input; ``sentence`` carries the cleaning
    notice or the empty hint."""

    sentence: SentenceInput
    translation: Translation | None = None
    view: AlignmentView | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.translation is not None


@dataclass(frozen=True)
class CompareResult(Result):
    """Two models forced through one translation: ``translation``/``view`` are the first model's,
    ``second``/``second_view`` the second's; ``difference`` (T_out, T_src) is second minus first,
    None when the two views do not share their tokens."""

    second: Translation | None = None
    second_view: AlignmentView | None = None
    difference: np.ndarray | None = None


@dataclass(frozen=True)
class ScoresResult(Result):
    """Several models forced through one translation (the reference model's greedy output), so
    their alignments share rows: ``translations`` and ``views`` by model id in the order given
    (``translation``/``view`` are the reference model's); ``shared`` is True when every view has
    the same tokens (then any two weight matrices can be subtracted)."""

    translations: Mapping[str, Translation] = field(default_factory=dict)
    views: Mapping[str, AlignmentView] = field(default_factory=dict)
    shared: bool = False


@dataclass(frozen=True)
class WhyResult(Result):
    """Each available model's translation (kind -> Translation; ``translation`` is the first), and
    with a reference each one's sentence BLEU (kind -> score; empty without a reference)."""

    translations: Mapping[str, Translation] = field(default_factory=dict)
    bleu: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class GradientResult(Result):
    """The encoder's gradient norms over the source pieces (no translation)."""

    gradients: EncoderGradients | None = None

    @property
    def ok(self) -> bool:
        return self.gradients is not None


R = TypeVar("R", bound=Result)


def _guard(sentence: SentenceInput, run: Callable[[], R], kind: type[R]) -> R:
    """``run()`` unless the text is empty (a ``kind`` with the hint); a refused input becomes a
    ``kind`` with the message (the one guard, :func:`ui.guard.guarded`)."""
    if sentence.hint:
        return kind(sentence)
    result, message = guarded(run)
    return kind(sentence, error=message) if result is None else result


def truncation_notice(translation: Translation, translator: Translator) -> str | None:
    """A sentence for the page when the model cut the source at its piece limit."""
    if not translation.truncated:
        return None
    limit = translator.model.cfg.max_src_len
    return _("The sentence has {n} subword pieces; the model reads the first {limit}.").format(
        n=translation.n_source_pieces, limit=limit
    )


@dataclass(frozen=True)
class TrainingLimit:
    """The longest source, in subword pieces, that a translator is known to have trained on:
    ``measured`` when it is the longest training sentence of its card (``Card.train_lengths``),
    else the config's ``max_src_len`` (what training cut its sources to)."""

    pieces: int
    measured: bool


def training_limit(translator: Translator) -> TrainingLimit:
    """``translator``'s :class:`TrainingLimit`, from its card when the card records it."""
    card = card_of(translator.name)
    pieces = int((card.train_lengths if card else {}).get("src_pieces", 0))
    if pieces > 0:
        return TrainingLimit(pieces, measured=True)
    return TrainingLimit(int(translator.model.cfg.max_src_len), measured=False)


def length_notice(text: str, translator: Translator) -> str | None:
    """A sentence for the page when ``text`` has more source pieces than any sentence the model
    saw in training (it never learned to translate such lengths: BLEU falls with length)."""
    limit, n = training_limit(translator), len(translator.src_tok.encode(text))
    if n <= limit.pieces:
        return None
    if limit.measured:
        message = _(
            "This sentence has {n} subword pieces; the longest sentence this model saw in "
            "training had {limit}: beyond the training lengths; expect a poor translation."
        )
    else:
        message = _(
            "This sentence has {n} subword pieces, more than the model's max_src_len of {limit} "
            "(its card does not record the longest training sentence): beyond the training "
            "lengths; expect a poor translation."
        )
    return message.format(n=n, limit=limit.pieces)


# ---------------------------------------------------------------- computations


def compute_alignment(
    translator: Translator,
    raw: str | None,
    *,
    beam: int = 1,
    level: str = "subword",
    reference: str | None = None,
) -> Result:
    """Translate (or, with a non-empty ``reference``, force) the user's sentence; the page's view."""
    sentence = read_text(SENTENCE_BOX, raw)
    forced = read_text(REFERENCE_BOX, reference) if reference is not None else None
    if forced is not None and forced.hint:
        return Result(sentence, error=forced.hint)
    ref = forced.text if forced is not None else None

    def run() -> Result:
        tr = decode(translator, sentence.text, beam=beam, reference=ref)
        return Result(sentence, tr, view_of(tr, level))

    return _guard(sentence, run, Result)


def compute_compare(
    first: Translator,
    second: Translator,
    raw: str | None,
    *,
    level: str = "subword",
    reference: str | None = None,
) -> CompareResult:
    """Both models forced through the same translation (the first model's greedy output, or the
    user's reference), so their alignments share rows and columns and can be subtracted."""
    sentence = read_text(SENTENCE_BOX, raw)
    ref = read_text(REFERENCE_BOX, reference).text

    def run() -> CompareResult:
        target = ref or decode(first, sentence.text).text
        if not target.strip():
            return CompareResult(
                sentence, error=_("The first model produced an empty translation.")
            )
        a = decode(first, sentence.text, reference=target)
        b = decode(second, sentence.text, reference=target)
        va, vb = view_of(a, level), view_of(b, level)
        same = (
            va.weights is not None
            and vb.weights is not None
            and va.weights.shape == vb.weights.shape
        )
        diff = vb.weights - va.weights if same and va.source == vb.source else None
        return CompareResult(sentence, a, va, second=b, second_view=vb, difference=diff)

    return _guard(sentence, run, CompareResult)


def compute_scores(
    translators: Mapping[str, Translator],
    reference: str,
    raw: str | None,
    *,
    level: str = "subword",
) -> ScoresResult:
    """Every model in ``translators`` (id -> translator) forced through the greedy translation of
    the ``reference`` model (one of the ids), so that their weights share rows and columns."""
    sentence = read_text(SENTENCE_BOX, raw)

    def run() -> ScoresResult:
        target = decode(translators[reference], sentence.text).text
        if not target.strip():
            return ScoresResult(sentence, error=_("The first model produced an empty translation."))
        forced = {k: decode(t, sentence.text, reference=target) for k, t in translators.items()}
        views = {k: view_of(tr, level) for k, tr in forced.items()}
        first = views[reference]
        shared = all(
            v.weights is not None and v.source == first.source and v.target == first.target
            for v in views.values()
        )
        return ScoresResult(
            sentence, forced[reference], first, translations=forced, views=views, shared=shared
        )

    return _guard(sentence, run, ScoresResult)


def compute_local(local: Translator, raw: str | None, *, window: int | None = None) -> Result:
    """The local model's translation with window half-width ``window`` (None: the trained D)."""
    sentence = read_text(SENTENCE_BOX, raw)

    def run() -> Result:
        tr = decode(local, sentence.text, window=window)
        return Result(sentence, tr, view_of(tr, "subword"))

    return _guard(sentence, run, Result)


def compute_why(
    translators: Mapping[str, Translator | None], raw: str | None, *, reference: str | None = None
) -> WhyResult:
    """Each available model's translation and, with a reference, its sentence BLEU."""
    sentence = read_text(SENTENCE_BOX, raw)
    ref = read_text(REFERENCE_BOX, reference).text

    def run() -> WhyResult:
        outputs = {k: decode(t, sentence.text) for k, t in translators.items() if t is not None}
        bleu = {k: sentence_bleu(tr.text, ref) for k, tr in outputs.items()} if ref else {}
        first = next(iter(outputs.values()), None)
        return WhyResult(sentence, first, translations=outputs, bleu=bleu)

    return _guard(sentence, run, WhyResult)


def compute_gradients(translator: Translator, raw: str | None) -> GradientResult:
    """The encoder's gradient norms for the sentence."""
    sentence = read_text(SENTENCE_BOX, raw)

    def run() -> GradientResult:
        with spinner(_("Computing the gradients…")):
            grads = _gradients(translator, weights_id(translator), sentence.text)
        return GradientResult(sentence, gradients=grads)

    return _guard(sentence, run, GradientResult)
