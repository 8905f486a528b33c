"""The translation pages' results, cached: one function per page mode takes the text box's
:class:`models.sentence.Sentence` (cleaned once, by the box) and the loaded translators, and returns
the typed result of :mod:`models.rnn.results`; :func:`decode` is the one cached translation for
the pages that only need a :class:`Translation`.

Each result is cached with ``st.cache_data`` on the weights' identity
(:func:`ui.loaders.weights_id`; :mod:`serve.cache`), the sentence and the settings, so that a
rerun that changes nothing in them (a slider under the chart) runs no model. A model refusing the
input (``ValueError``) is a message in ``Result.error`` through the one guard,
:func:`ui.guard.guarded`; an empty sentence runs nothing and keeps the box's hint.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

import streamlit as st
import torch

from i18n import _
from models.rnn import results
from models.rnn.results import (
    CompareResult,
    GradientResult,
    Result,
    ScoresResult,
    WhyResult,
    view_of,
)
from models.rnn.translator import Translation, Translator
from models.sentence import Sentence
from ui.guard import guarded
from ui.loaders import ModelKey, spinner, weights_id

R = TypeVar("R", bound=Result)
Weights = tuple[tuple[str, ModelKey], ...]  # (model id, weights' identity) per translator


def _run(result_type: type[R], sentence: Sentence, compute: Callable[[], R], busy: str = "") -> R:
    """``compute()`` under a spinner (``busy``, default "Translating…") unless the sentence is
    empty (a ``result_type`` with the box's hint); a refused input becomes a ``result_type`` with the model's
    message."""
    if sentence.hint:
        return result_type(sentence)
    with spinner(busy or _("Translating…")):
        result, message = guarded(compute)
    return result_type(sentence, error=message) if result is None else result


def _weights(translators: Mapping[str, Translator]) -> Weights:
    return tuple((k, weights_id(t)) for k, t in translators.items())


# The spinners are the callers' (_run), in the session's language (ui.loaders.spinner): a
# decorator's text would be fixed at import. Translations are a few hundred KB at most.
@st.cache_data(max_entries=256, show_spinner=False)
def _alignment(
    _translator: Translator,
    weights: ModelKey,
    sentence: Sentence,
    beam: int,
    level: str,
    reference: Sentence | None,
) -> Result:
    with torch.inference_mode():
        if reference is not None:
            tr = _translator.force(sentence, reference)
        else:
            tr = _translator.translate(sentence, beam=beam)
    return Result(sentence, tr, view_of(tr, level))


def alignment_result(
    translator: Translator,
    sentence: Sentence,
    *,
    beam: int = 1,
    level: str = "subword",
    reference: Sentence | None = None,
) -> Result:
    """The model's translation of ``sentence`` (or, with ``reference``, the model forced through
    it) and its alignment at ``level``. A beam out of the model's range (1 to
    :data:`models.limits.TRANSLATOR_BEAM`) is the model's refusal; an empty reference, the
    reference box's hint as the error."""
    if not sentence.hint and reference is not None and reference.hint:
        return Result(sentence, error=reference.hint)
    key = weights_id(translator)
    return _run(
        Result, sentence, lambda: _alignment(translator, key, sentence, beam, level, reference)
    )


@st.cache_data(max_entries=64, show_spinner=False)
def _local(
    _translator: Translator, weights: ModelKey, sentence: Sentence, window: int | None
) -> Result:
    with torch.inference_mode():
        tr = _translator.translate(sentence, window=window)
    return Result(sentence, tr, view_of(tr, "subword"))


def local_result(local: Translator, sentence: Sentence, *, window: int | None = None) -> Result:
    """The local model's translation with window half-width ``window`` (None: the trained D)."""
    key = weights_id(local)
    return _run(Result, sentence, lambda: _local(local, key, sentence, window))


@st.cache_data(max_entries=64, show_spinner=False)
def _scores(
    _translators: Mapping[str, Translator],
    weights: Weights,
    reference: str,
    sentence: Sentence,
    level: str,
) -> ScoresResult:
    with torch.inference_mode():
        return results.scores(_translators, reference, sentence, level=level)


def scores_result(
    translators: Mapping[str, Translator],
    reference: str,
    sentence: Sentence,
    *,
    level: str = "subword",
) -> ScoresResult:
    """:func:`models.rnn.results.scores`: every model forced through the ``reference`` model's
    greedy translation."""
    key = _weights(translators)
    return _run(
        ScoresResult, sentence, lambda: _scores(translators, key, reference, sentence, level)
    )


def compare_result(
    first: Translator, second: Translator, sentence: Sentence, *, level: str = "subword"
) -> CompareResult:
    """Both models forced through the first one's greedy translation
    (:func:`scores_result`), with the difference of their weights
    (:func:`models.rnn.results.compared`)."""
    found = scores_result({"first": first, "second": second}, "first", sentence, level=level)
    return results.compared(found, "first", "second")


@st.cache_data(max_entries=64, show_spinner=False)
def _why(
    _translators: Mapping[str, Translator],
    weights: Weights,
    sentence: Sentence,
    reference: Sentence | None,
) -> WhyResult:
    with torch.inference_mode():
        return results.why(_translators, sentence, reference=reference)


def why_result(
    translators: Mapping[str, Translator | None],
    sentence: Sentence,
    *,
    reference: Sentence | None = None,
) -> WhyResult:
    """:func:`models.rnn.results.why` for the available models (None: not loaded)."""
    ready = {k: t for k, t in translators.items() if t is not None}
    key = _weights(ready)
    return _run(WhyResult, sentence, lambda: _why(ready, key, sentence, reference))


# encoder_gradients needs autograd, so it runs outside inference mode; 64 small norm vectors
@st.cache_data(max_entries=64, show_spinner=False)
def _gradients(_translator: Translator, weights: ModelKey, sentence: Sentence) -> GradientResult:
    return GradientResult(sentence, gradients=_translator.encoder_gradients(sentence))


def gradients_result(translator: Translator, sentence: Sentence) -> GradientResult:
    """The encoder's gradient norms for the sentence."""
    key = weights_id(translator)
    busy = _("Computing the gradients…")
    return _run(GradientResult, sentence, lambda: _gradients(translator, key, sentence), busy)


@st.cache_data(max_entries=256, show_spinner=False)
def _decode(
    _translator: Translator,
    weights: ModelKey,
    sentence: Sentence | str,
    beam: int,
    window: int | None,
    reference: Sentence | str | None,
) -> Translation:
    with torch.inference_mode():
        if reference is not None:
            return _translator.force(sentence, reference, window=window)
        return _translator.translate(sentence, beam=beam, window=window)


def decode(
    translator: Translator,
    sentence: Sentence | str,
    *,
    beam: int = 1,
    window: int | None = None,
    reference: Sentence | str | None = None,
) -> Translation:
    """Cached ``translate`` or, with ``reference``, ``force``, for a page that needs only the
    :class:`Translation` (a refused input raises the model's ValueError: call it under
    :func:`ui.guard.guarded`)."""
    with spinner(_("Translating…")):
        return _decode(translator, weights_id(translator), sentence, beam, window, reference)
