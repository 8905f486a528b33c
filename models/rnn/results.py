"""What the translation pages show for one sentence, computed from the text box's
:class:`models.sentence.Sentence` (never from raw text): typed results (:class:`Result` and one kind
per page mode), an alignment at subword or word level (:class:`AlignmentView`), the model's own
notices about the sentence (cut at its piece limit, longer than its training sentences; both from
``Translation.n_source_pieces``, the sentence is not tokenized again), and the computations of
the modes that run several models (:func:`scores`, :func:`compared`, :func:`why`).

Pure: a model refusing an input raises ``ValueError``; the pages' cached layer,
``ui.translation_results``, turns that into ``Result.error``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from i18n import _
from models.rnn.translator import EncoderGradients, Translation, Translator
from models.sentence import Sentence
from models.subword_merge import merge_subwords
from models.translator_base import sentence_bleu


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
    """What a translation page shows for one sentence: the translation and its view. ``error``
    holds a message for the page when the model refused the input; ``sentence`` is the text box's
    value (its cut notice or its empty hint)."""

    sentence: Sentence
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
    """Each available model's translation (model id -> Translation; ``translation`` is the
    first), and with a reference each one's sentence BLEU (id -> score; empty without one)."""

    translations: Mapping[str, Translation] = field(default_factory=dict)
    bleu: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class GradientResult(Result):
    """The encoder's gradient norms over the source pieces (no translation)."""

    gradients: EncoderGradients | None = None

    @property
    def ok(self) -> bool:
        return self.gradients is not None


def _empty_translation() -> ValueError:
    return ValueError(_("The first model produced an empty translation."))


def scores(
    translators: Mapping[str, Translator], reference: str, sentence: Sentence, *, level: str
) -> ScoresResult:
    """Every model in ``translators`` (id -> translator) forced through the greedy translation of
    the ``reference`` model (one of the ids), so that their weights share rows and columns."""
    target = translators[reference].translate(sentence).text
    if not target.strip():
        raise _empty_translation()
    forced = {k: t.force(sentence, target) for k, t in translators.items()}
    views = {k: view_of(tr, level) for k, tr in forced.items()}
    first = views[reference]
    shared = all(
        v.weights is not None and v.source == first.source and v.target == first.target
        for v in views.values()
    )
    return ScoresResult(
        sentence, forced[reference], first, translations=forced, views=views, shared=shared
    )


def compared(found: ScoresResult, first: str, second: str) -> CompareResult:
    """Models ``first`` and ``second`` of ``found`` (both forced through one translation) as a
    comparison: ``difference`` is the second's weights minus the first's where their views have
    the same shape and source tokens."""
    if not found.ok:
        return CompareResult(found.sentence, error=found.error)
    va, vb = found.views[first], found.views[second]
    same = (
        va.weights is not None and vb.weights is not None and va.weights.shape == vb.weights.shape
    )
    diff = vb.weights - va.weights if same and va.source == vb.source else None
    a, b = found.translations[first], found.translations[second]
    return CompareResult(found.sentence, a, va, second=b, second_view=vb, difference=diff)


def why(
    translators: Mapping[str, Translator], sentence: Sentence, *, reference: Sentence | None
) -> WhyResult:
    """Each model's translation and, with a non-empty ``reference``, its sentence BLEU."""
    outputs = {k: t.translate(sentence) for k, t in translators.items()}
    ref = reference.text if reference is not None else ""
    bleu = {k: sentence_bleu(tr.text, ref) for k, tr in outputs.items()} if ref else {}
    first = next(iter(outputs.values()), None)
    return WhyResult(sentence, first, translations=outputs, bleu=bleu)


def truncation_notice(translation: Translation, max_src_len: int) -> str | None:
    """A sentence for the page when the model cut the source at its piece limit."""
    if not translation.truncated:
        return None
    return _("The sentence has {n} subword pieces; the model reads the first {limit}.").format(
        n=translation.n_source_pieces, limit=max_src_len
    )


@dataclass(frozen=True)
class TrainingLimit:
    """The longest source, in subword pieces, that a translator is known to have trained on:
    ``measured`` when it is the longest training sentence of its card (``Card.train_lengths``),
    else the config's ``max_src_len`` (what training cut its sources to)."""

    pieces: int
    measured: bool


def length_notice(translation: Translation, limit: TrainingLimit) -> str | None:
    """A sentence for the page when the source had more pieces (``n_source_pieces``, counted
    once by the model) than any sentence the model saw in training (it never learned to
    translate such lengths: BLEU falls with length)."""
    n = translation.n_source_pieces
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
