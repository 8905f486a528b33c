"""Predict, then reveal: a step's question is posed from the model's result, computed here on the
server; until the student commits a guess the browser gets only the options (the tokens, the
image's regions, the choices), never the weights. At the reveal the guess is drawn over the
model's answer, scored in words and numbers, and explained; the student may add one line on why."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from app_pages.lessons import compute, step_view
from app_pages.lessons.answers import (
    CLICK_KINDS,
    REGIONS,
    Answer,
    Score,
    bleu_answer,
    pattern_answer,
    region_answer,
    scaling_answer,
    shuffle_answer,
    token_answer,
    window_answer,
)
from app_pages.lessons.schema import PATTERN_LABELS, PATTERNS, Question, Step
from i18n import N_, _
from ui.once import once
from ui.sidebar import classroom_mode
from ui.text import escape_markdown
from viz.lessons import SCENE_HEIGHT, SCENE_PREVIEW_CLASSROOM, guess_bars, region_figure
from viz.multi_head import head_heatmap

NOTE_CHARS = 200
CHOICE_LABELS = {
    "scaled": N_("with ÷√d_k"),
    "unscaled": N_("without ÷√d_k"),
    "same": N_("the same"),
    "moved": N_("the same map, moved with the words"),
    "changed": N_("a different map"),
    "first": N_("the first sentence"),
    "second": N_("the second sentence"),
}


@dataclass(frozen=True)
class Posed:
    """A question ready to ask: ``labels`` of its options (translated), the model's ``answer``
    (kept on the server until the reveal), ``line``: markdown shown with the question (escaped),
    ``reveal(score, key)``: the answer drawn with the guess over it, ``value_name``: what the
    answer's values are, ``preview(key)``: a figure that may be shown before the reveal, and
    ``asked``: what the question asks about in a few words (plain text: the French word, the
    caption word, the head, d_k), as the end-of-lesson tables name it. A posed question is made
    once for every session (:func:`pose`) and its charts once per guess
    (``step_view.chart_once``)."""

    labels: tuple[str, ...]
    answer: Answer
    line: str
    reveal: Callable[[Score, str], None]
    value_name: str
    preview: Callable[[str], None] | None = None
    asked: str = ""
    step: Step | None = None  # the step it was posed from: what its charts are kept by


def _bars(
    step: Step, posed_labels, answer: Answer, title: str, value_name: str, **marks
) -> Callable:
    def reveal(s: Score, key: str) -> None:
        def build():
            return guess_bars(
                posed_labels,
                answer.values,
                s.guess,
                answer.best,
                title=title,
                value_name=value_name,
                **marks,
            )

        step_view.chart_once((step, "bars", s.guess), build, key)

    return reveal


def _token(step: Step) -> Posed | None:
    level = "subword" if step.view == "stages" else "word"
    data = compute.translation(step.model, step.sentence, step.question.target, level=level)
    if data is None:
        return None
    view, row = data.view, data.row
    answer = token_answer(view.source, view.weights[row])

    line = _("French: {line}").format(line=step_view.quoted(view.target, row))
    word = _word(view.target[row])
    title = _("Where “{word}” looked ({model})").format(word=word, model=step.model)
    return Posed(
        tuple(view.source),
        answer,
        line,
        _bars(step, view.source, answer, title, _("weight")),
        _("weight"),
        asked=f"{word} →",
    )


def _word(piece: str) -> str:
    """A subword piece as a reader writes it: without SentencePiece's word-start mark."""
    return piece.replace("▁", "") or "▁"


def _window(step: Step) -> Posed | None:
    data = compute.translation("local-p", step.sentence, step.question.target, level="subword")
    if data is None:
        return None
    tr, row = data.translation, data.row
    answer = window_answer(tr.source_tokens, tr.weights[row], float(tr.p_t[row]))
    labels = tuple(f"{i}: {_word(t)}" for i, t in enumerate(tr.source_tokens))
    lo, hi = (float(v) for v in tr.window[row])

    line = _("French: {line}").format(line=step_view.quoted(tr.target_tokens, row))
    word = _word(tr.target_tokens[row])
    title = _("local-p for “{word}”: p_t = {p:.1f}, window [{lo:.0f}, {hi:.0f}]").format(
        word=word, p=answer.centre, lo=lo, hi=hi
    )
    reveal = _bars(step, labels, answer, title, _("weight"), window=(lo, hi), centre=answer.centre)
    asked = f"{word} →"
    return Posed(labels, answer, line, reveal, _("weight"), asked=asked)


def _region(step: Step) -> Posed | None:
    found = compute.caption(step.scene)
    if found is None:
        return None
    image, result = found
    t = compute.caption_word(result, step.question.target)
    names = step_view.region_names()
    answer = region_answer(result.alphas[t], names)

    line = _("Caption: {line}").format(line=step_view.quoted(list(result.words), t))

    def preview(key: str) -> None:
        # on a projector the options and the button under the scene stay on the first screen
        height = SCENE_PREVIEW_CLASSROOM if classroom_mode() else SCENE_HEIGHT

        def build():
            title = _("The scene, in nine parts")
            return region_figure(image, names, REGIONS, title=title, height=height)

        step_view.chart_once((step, "scene"), build, f"{key}_scene")

    def reveal(s: Score, key: str) -> None:
        def build():
            title = _("Soft attention while it says “{word}”").format(word=result.words[t])
            return region_figure(
                image,
                names,
                REGIONS,
                title=title,
                light=result.alphas[t],
                masses=answer.values,
                guess=s.guess,
                best=answer.best,
            )

        step_view.chart_once((step, "region", s.guess), build, key)

    asked = _("“{word}” in the image").format(word=result.words[t])
    return Posed(names, answer, line, reveal, _("attention mass"), preview, asked)


def _pattern(step: Step) -> Posed | None:
    found = compute.encoder(step.sentence)
    if found is None:
        return None
    q = step.question
    weights = found.attentions[q.layer - 1, q.head - 1]  # (T, T)
    labels = tuple(_(PATTERN_LABELS[p]) for p in PATTERNS)
    answer = pattern_answer(weights, PATTERNS)

    pieces = " ".join(escape_markdown(t) for t in found.tokens)
    line = _("Pieces the encoder reads: {line}").format(line=pieces)

    def reveal(s: Score, key: str) -> None:
        def build():
            title = _("Layer {layer}, head {head}").format(layer=q.layer, head=q.head)
            return head_heatmap(weights, found.tokens, found.tokens, title=title)

        step_view.chart_once((step, "pattern"), build, key)
        shares = ", ".join(
            f"{label}: {v:.2f}" for label, v in zip(labels, answer.values, strict=True)
        )
        st.caption(_("How much of each pattern (mean weight): {shares}").format(shares=shares))

    asked = _("Layer {layer}, head {head}").format(layer=q.layer, head=q.head)
    return Posed(labels, answer, line, reveal, _("share"), asked=asked)


def _choice_labels(answer: Answer) -> tuple[str, ...]:
    return tuple(_(CHOICE_LABELS[o]) for o in answer.options)


def _scaling(step: Step) -> Posed:
    d_k = step.question.d_k
    answer = scaling_answer(*compute.scaling_entropies(d_k))

    line = _("d_k = **{d}**, {k} keys per query.").format(d=d_k, k=compute.SCALING_KEYS)

    def reveal(s: Score, key: str) -> None:
        def build():
            return guess_bars(
                (_("with ÷√d_k"), _("without ÷√d_k")),
                answer.values[:2],
                min(s.guess, 1),
                int(answer.values[1] > answer.values[0]),
                title=_("Mean entropy at d_k = {d}").format(d=d_k),
                value_name=_("entropy (bits)"),
            )

        step_view.chart_once((step, "scaling", min(s.guess, 1)), build, key)

    asked = f"d_k = {d_k}"  # a symbol: not translated
    return Posed(_choice_labels(answer), answer, line, reveal, _("entropy (bits)"), asked=asked)


def _shuffle(step: Step) -> Posed | None:
    result = compute.shuffled(step.sentence, step.question.with_pe)
    if result is None:
        return None
    answer = shuffle_answer(result.max_diff)

    line = _("Original: {a}  \nShuffled: {b}").format(
        a=escape_markdown(" ".join(result.tokens)),
        b=escape_markdown(" ".join(result.shuffled_tokens)),
    )

    def reveal(s: Score, key: str) -> None:
        step_view.show_view(step, key)

    asked = _("shuffled, with PE") if step.question.with_pe else _("shuffled, without PE")
    return Posed(_choice_labels(answer), answer, line, reveal, "max |difference|", asked=asked)


def _bleu(step: Step) -> Posed | None:
    found = compute.bleu_pair(step.question.pair)
    if found is None:
        return None
    bleu = found[1]  # (2 models, 2 sentences)
    answer = bleu_answer(tuple(bleu[0]), tuple(bleu[1]))
    pair = step.question.pair

    line = "  \n".join(f"{i + 1}. {escape_markdown(en)}" for i, (en, _fr) in enumerate(pair))

    def reveal(s: Score, key: str) -> None:
        def build():
            return guess_bars(
                _choice_labels(answer),
                answer.values,
                s.guess,
                answer.best,
                title=_("BLEU lost without attention"),
                value_name="BLEU",
            )

        step_view.chart_once((step, "bleu", s.guess), build, f"{key}_loss")
        step_view.show_view(step, key)

    asked = _("BLEU lost: sentence 1 or 2")
    return Posed(_choice_labels(answer), answer, line, reveal, _("BLEU lost"), asked=asked)


POSERS: dict[str, Callable[[Step], Posed | None]] = {
    "token": _token,
    "window": _window,
    "region": _region,
    "pattern": _pattern,
    "scaling": _scaling,
    "shuffle": _shuffle,
    "bleu": _bleu,
}


@once
def pose(step: Step) -> Posed | None:
    """The question of ``step`` posed on the model's result, made once for every session; None
    after a message when the model is missing or refused the input."""
    posed = POSERS[step.question.kind](step)
    return None if posed is None else replace(posed, step=step)


def ask_ui(step: Step, text_col, view_col) -> Posed | None:
    """The question of ``step`` posed (its view's chart in ``view_col``) and asked: the prompt
    and the posed line under the narration in ``text_col``. None after a message when the model
    is missing or refused the input. Every question_ui (alone, the projector, a student's
    phone) starts here."""
    with view_col:
        posed = pose(step)
    if posed is None:
        return None
    with text_col:
        st.markdown(_("**Predict:** {prompt}").format(prompt=_(step.question.prompt)))
        st.markdown(posed.line)
    return posed


def verdict(question: Question, posed: Posed, s: Score) -> str:
    """The score in words and numbers (markdown; the labels are escaped)."""
    guess = escape_markdown(posed.labels[s.guess])
    best = escape_markdown(posed.labels[posed.answer.best])
    if question.kind == "window":
        return _(
            "You chose position {g}; the window centres at p_t = {p:.1f}, {d:.1f} positions away. {word}"
        ).format(
            g=s.guess,
            p=posed.answer.centre,
            d=s.distance,
            word=_("Right!") if s.correct else _("Not quite."),
        )
    if question.kind in CLICK_KINDS:
        return _(
            "You chose **{guess}**: {name} {value:.2f}, rank {rank} of {n}. The model's top choice: **{best}** ({top:.2f}). {word}"
        ).format(
            guess=guess,
            name=posed.value_name,
            value=s.value,
            rank=s.rank,
            n=len(posed.labels),
            best=best,
            top=float(np.max(posed.answer.values)),
            word=_("Right!") if s.correct else _("Not quite."),
        )
    if s.correct:
        return _("You chose **{guess}**. Right!").format(guess=guess)
    return _("You chose **{guess}**; the answer is **{best}**.").format(guess=guess, best=best)
