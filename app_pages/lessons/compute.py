"""What a lesson step computes, from the real models, through the pages' own cached runs: each
function returns a typed result or None after the page's usual message (missing model, refused
input). Nothing here draws a chart; ``views`` and ``predict`` do."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from app_pages.lessons.answers import target_row, word_row
from i18n import _
from models.analysis.scaling import dot_sample, entropy, softmax
from models.analysis.toy import PermutationResult, permutation_demo
from models.captioning.inference import CaptionResult
from models.rnn.results import AlignmentView, tokens_view
from models.rnn.translator import Translation
from models.transformer.pretrained import DEFAULT_MODEL, EncoderAttention
from models.translator_base import sentence_bleu
from ui.captions import describe_cached, example_scene, image_digest
from ui.guard import guarded_ui, show_refusal
from ui.loaders import cached_captioner, cached_translator, model_key
from ui.multi_head import encode_ui
from ui.sidebar import current_device
from ui.text import escape_markdown, read_text, show_text_notices, tokenize
from ui.translation import SENTENCE_BOX
from ui.translation_results import decode

SCALING_DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
SCALING_KEYS = 10  # one query scored against this many random keys
SCALING_QUERIES = 200  # rows averaged for a softmax's mean entropy
MAX_SHUFFLE_TOKENS = 16


@dataclass(frozen=True)
class TranslationData:
    """A sentence through one RNN translator: the ``translation`` (subword pieces), its word-level
    ``view`` and ``row``, the view's row of the question's target word."""

    translation: Translation
    view: AlignmentView
    row: int


def _clean(sentence: str) -> str | None:
    """The text read as the pages' English sentence box reads it, or None after its hint."""
    cleaned = read_text(SENTENCE_BOX, sentence)
    return cleaned.text if show_text_notices(cleaned) else None


def translation(model: str, sentence: str, target: str | None, *, level: str = "word"):
    """``sentence`` through ``seq2seq-<model>`` (greedy, cached) at ``level``; None after a message."""
    translator = cached_translator(model)
    text = _clean(sentence)
    if translator is None or text is None:
        return None
    tr = guarded_ui(lambda: decode(translator, text))
    if tr is None or tr.weights is None:
        return None
    view = tokens_view(tr.source_tokens, tr.target_tokens, tr.weights, level)
    row = target_row(view.target, target, view.weights)
    if target and word_row(view.target, target) is None:
        missing_target(target, view.target[row])
    return TranslationData(tr, view, row)


def missing_target(target: str, used: str) -> None:
    """Say that a lesson's ``target`` word is not in the model's output, and which word the
    question asks about instead (a mistyped or stale target must not go unnoticed)."""
    st.warning(
        _(
            "This step asks about “{target}”, but the model's output has no such word: the "
            "question asks about “{used}” instead, the word the model is surest of."
        ).format(target=escape_markdown(target), used=escape_markdown(used.replace("▁", ""))),
        icon=":material/warning:",
    )


def both_translations(sentence: str) -> dict[str, Translation] | None:
    """``sentence`` through the translator without attention and Bahdanau's (greedy, cached):
    model -> its translation; None after a message (missing model, refused input)."""
    models = {"none": cached_translator("none"), "bahdanau": cached_translator("bahdanau")}
    text = _clean(sentence)
    if text is None or any(model is None for model in models.values()):
        return None
    found = {name: guarded_ui(lambda m=model: decode(m, text)) for name, model in models.items()}
    return None if any(tr is None for tr in found.values()) else found


def bleu_pair(
    pair: tuple[tuple[str, str], ...],
) -> tuple[dict[str, list[Translation]], np.ndarray] | None:
    """Both sentences of ``pair`` through the translator without attention and Bahdanau's:
    (model -> [translation of each]), BLEU (2 models, 2 sentences) against the references."""
    models = {"none": cached_translator("none"), "bahdanau": cached_translator("bahdanau")}
    if any(model is None for model in models.values()):
        return None
    outputs: dict[str, list[Translation]] = {}
    for name, model in models.items():
        found = [guarded_ui(lambda en=en, m=model: decode(m, en)) for en, _fr in pair]
        if any(tr is None for tr in found):
            return None
        outputs[name] = found
    bleu = np.array(
        [
            [sentence_bleu(tr.text, fr) for tr, (_en, fr) in zip(outputs[m], pair, strict=False)]
            for m in outputs
        ]
    )  # (2 models, 2 sentences)
    return outputs, bleu


def caption(scene: int) -> tuple[np.ndarray, CaptionResult] | None:
    """Example scene ``scene`` (its image) and the soft-attention captioner's result on it."""
    if cached_captioner("caption-soft") is None:
        return None
    image = example_scene(scene).image
    weights = model_key("caption-soft", current_device())
    found = guarded_ui(lambda: describe_cached(weights, image_digest(image), image, 1, 0, 0))
    return None if found is None else (image, found)


def caption_word(result: CaptionResult, target: str | None) -> int:
    """The caption word a question asks about: ``target`` if the caption has it, else the word
    whose map is most peaked (an object, usually), never an article."""
    words = [w.lower() for w in result.words]
    if target and target.strip().lower() in words:
        return words.index(target.strip().lower())
    peaks = result.alphas.reshape(len(words), -1).max(axis=1)  # (T,)
    t = int(np.argmax([p if len(w) > 2 else -1.0 for p, w in zip(peaks, words, strict=False)]))
    if target:
        missing_target(target, result.words[t])
    return t


def encoder(sentence: str) -> EncoderAttention | None:
    """all-MiniLM-L6-v2 on ``sentence``: every layer's and head's weights (L, H, T, T)."""
    text = _clean(sentence)
    return None if text is None else encode_ui(DEFAULT_MODEL, text)


def scaling_entropies(d_k: int) -> tuple[float, float]:
    """Mean entropy (bits) of softmax over SCALING_KEYS random scores q . k at width ``d_k``,
    with and without the division by sqrt(d_k) (seeded: the same numbers every time)."""
    sample = dot_sample(d_k, n=SCALING_KEYS * SCALING_QUERIES, seed=0)
    scaled = sample.scaled.reshape(SCALING_QUERIES, SCALING_KEYS)  # (Q, K)
    raw = sample.raw.reshape(SCALING_QUERIES, SCALING_KEYS)  # (Q, K)
    return float(entropy(softmax(scaled)).mean()), float(entropy(softmax(raw)).mean())


def scaling_curves() -> dict[str, np.ndarray]:
    """Mean softmax entropy over SCALING_DIMS, with and without the scaling (for the chart)."""
    pairs = np.array([scaling_entropies(d) for d in SCALING_DIMS])  # (D, 2)
    return {"scaled": pairs[:, 0], "unscaled": pairs[:, 1]}


def shuffled(sentence: str, with_pe: bool) -> PermutationResult | None:
    """One self-attention layer on ``sentence``'s words and on a seeded shuffle of them."""
    text = _clean(sentence)
    if text is None:
        return None
    tokens, cut = tokenize(text, MAX_SHUFFLE_TOKENS)
    if cut:
        show_refusal(cut)
    if len(tokens) < 2:
        return None
    with torch.inference_mode():
        return guarded_ui(lambda: permutation_demo(tokens, with_pe=with_pe, shuffle_seed=1))
