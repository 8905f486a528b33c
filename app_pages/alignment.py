"""Alignment: an English sentence, its French translation by an RNN encoder-decoder with attention,
and where each French token looked (heatmap, lines, step inspector, beam hypotheses, a forced
reference, two scoring functions compared)."""

from __future__ import annotations

import html
from dataclasses import dataclass

import streamlit as st

from models.rnn.translator import Translation, Translator
from ui.charts import plotly_chart
from ui.downloads import csv_and_json
from ui.loaders import load_translator
from ui.text import user_text
from ui.translation import GLOBAL_MODELS, reference_ui, sentence_ui, show_notices, step_slider
from ui.translation_compute import (
    AlignmentView,
    CompareResult,
    Result,
    compute_alignment,
    compute_compare,
    tokens_view,
)
from viz import diff_heatmap
from viz.alignment import (
    alignment_heatmap,
    alignment_lines,
    entropy_bars,
    row_entropy,
    step_figure,
    token_prob_bars,
)

MODES = ["translate", "reference", "compare"]
LEVELS = ["subword", "word"]
MODEL_HELP = (
    "bahdanau: additive score from the previous state; luong-*: dot, general (x W) or "
    "concat score from the current state."
)
LEVEL_HELP = (
    "word merges the subword pieces: a source word sums its pieces' weights, a target "
    "word averages its pieces' rows."
)
MODE_HELP = (
    "translate: the model's own translation; reference: forced through your French "
    "sentence; compare: two scoring functions on the same pair."
)
LOW_PROB = 0.1
ABOUT = """
Type an English sentence and press **Enter**. A recurrent encoder reads it; at every step the
decoder scores each source token against its own state, turns the scores into weights with a
softmax, and writes the next French token from the weighted mix. The heatmap shows those weights:
one row per French token, one column per English token. Adjectives that French puts *after* the
noun ("a black dog" → "un chien noir") show up as a crossing in the pattern. Pieces starting
with ▁ begin a word; `</s>` ends the sentence.
"""


@dataclass(frozen=True)
class AlignmentSettings:
    """The page's inputs: the raw sentence, the model (a GLOBAL_MODELS key), the beam width
    (1 = greedy), the view level (LEVELS) and the mode (MODES)."""

    raw: str
    kind: str
    beam: int
    level: str
    mode: str


def controls_ui() -> AlignmentSettings:
    """Sentence, model, decoding, view level and mode; returns them."""
    raw = sentence_ui("aln_", with_ref=True)
    c1, c2, c3, c4 = st.columns([3, 2, 2, 3])
    kind = c1.selectbox("Attention model", list(GLOBAL_MODELS), key="aln_model",
                        bind="query-params", help=MODEL_HELP)  # fmt: skip
    beam = c2.slider("Beam width (1 = greedy)", 1, 10, 1, key="aln_beam", bind="query-params")
    level = c3.segmented_control("View", LEVELS, default="subword", key="aln_view",
                                 bind="query-params", required=True, help=LEVEL_HELP)  # fmt: skip
    mode = c4.segmented_control("Mode", MODES, default="translate", key="aln_mode",
                                bind="query-params", required=True, help=MODE_HELP)  # fmt: skip
    return AlignmentSettings(raw, kind, int(beam), level or "subword", mode or "translate")


def alignment_ui(view: AlignmentView, title: str, key: str) -> None:
    """The heatmap and, beside it, the same alignment as lines with a threshold slider."""
    left, right = st.columns([3, 2], gap="medium")
    with left:
        plotly_chart(alignment_heatmap(view.weights, view.source, view.target, title=title),
                     key=f"{key}_heatmap")  # fmt: skip
    with right:
        threshold = st.slider("Hide lines below weight", 0.0, 1.0, 0.1, 0.05,
                              key="aln_threshold", bind="query-params")  # fmt: skip
        lines = alignment_lines(view.weights, view.source, view.target, threshold=threshold,
                                title="The same weights as lines")  # fmt: skip
        plotly_chart(lines, key=f"{key}_lines")


def step_inspector_ui(tr: Translation) -> None:
    """One target step: its weight row as bars and the top-k candidates for that step."""
    st.subheader("Step inspector")
    step = step_slider("Target step (subword pieces)", "aln_step", len(tr.target_tokens))
    token = html.escape(tr.target_tokens[step])
    fig = step_figure(tr.weights[step], tr.source_tokens, tr.top_k[step],
                      title=f"Step {step}: where “{token}” looked, and what came next")  # fmt: skip
    plotly_chart(fig, key="aln_step_fig")
    st.caption(f"The emitted token had probability {tr.token_probs[step]:.3f}.")


def hypotheses_ui(tr: Translation, level: str) -> None:
    """Beam search's hypotheses with their scores; one of them can show its own alignment."""
    st.subheader("Beam hypotheses")
    rows = [{"rank": i + 1, "score (log p / length)": round(h.score, 4), "translation": h.text}
            for i, h in enumerate(tr.hypotheses)]  # fmt: skip
    st.dataframe(rows, hide_index=True, width="stretch")
    pick = st.selectbox("Show the alignment of hypothesis", range(1, len(tr.hypotheses) + 1),
                        key="aln_hyp", bind="query-params")  # fmt: skip
    hyp = tr.hypotheses[int(pick or 1) - 1]
    if hyp.weights is not None:
        view = tokens_view(tr.source_tokens, hyp.target_tokens, hyp.weights, level)
        plotly_chart(alignment_heatmap(view.weights, view.source, view.target,
                                       title=f"Hypothesis {pick}"), key="aln_hyp_heatmap")  # fmt: skip


def result_downloads_ui(result: Result, settings: AlignmentSettings, name: str) -> None:
    """The matrix on screen as CSV and the whole result as JSON."""
    tr, view = result.translation, result.view
    data = {"model": settings.kind, "mode": settings.mode, "beam": settings.beam,
            "source": result.sentence.text, "translation": tr.text,
            "source_tokens": tr.source_tokens, "target_tokens": tr.target_tokens,
            "weights": tr.weights, "token_probs": tr.token_probs, "top_k": tr.top_k,
            "view": {"level": settings.level, "source": view.source, "target": view.target,
                     "weights": view.weights},
            "hypotheses": [{"text": h.text, "score": h.score, "target_tokens": h.target_tokens,
                            "weights": h.weights} for h in tr.hypotheses]}  # fmt: skip
    csv_and_json(view.weights, view.target, view.source, data, name, f"aln_{name}")


def translate_ui(translator: Translator, settings: AlignmentSettings) -> None:
    """Translate mode: translation, alignment, step inspector, hypotheses, downloads."""
    result = compute_alignment(translator, settings.raw, beam=settings.beam, level=settings.level)
    if not show_notices(result, translator):
        return
    tr = result.translation
    user_text(tr.text, label="Translation:")
    alignment_ui(result.view, GLOBAL_MODELS[settings.kind], "aln_main")
    step_inspector_ui(tr)
    if tr.hypotheses:
        hypotheses_ui(tr, settings.level)
    result_downloads_ui(result, settings, "alignment")


def reference_mode_ui(translator: Translator, settings: AlignmentSettings) -> None:
    """Reference mode: the model forced through the user's French sentence."""
    ref = reference_ui("aln_")
    result = compute_alignment(translator, settings.raw, level=settings.level, reference=ref)
    if not show_notices(result, translator):
        return
    tr = result.translation
    st.caption("The decoder is fed your French sentence token by token (forced decoding); "
               "the weights show how the model aligns this pair.")  # fmt: skip
    alignment_ui(result.view, "Forced alignment", "aln_ref")
    fig = token_prob_bars(tr.token_probs, tr.target_tokens, low=LOW_PROB,
                          title="How likely the model found each of your tokens")  # fmt: skip
    plotly_chart(fig, key="aln_ref_probs")
    low = [t for t, p in zip(tr.target_tokens, tr.token_probs, strict=True) if p < LOW_PROB]
    st.caption(f"{len(low)} of {len(tr.target_tokens)} tokens below p = {LOW_PROB} (orange).")
    step_inspector_ui(tr)
    result_downloads_ui(result, settings, "forced-alignment")


def compare_ui(translator: Translator, settings: AlignmentSettings) -> None:
    """Compare mode: two scoring functions on the same pair, their difference and entropy."""
    others = [k for k in GLOBAL_MODELS if k != settings.kind]
    kind_b = st.selectbox("Compare with", others, key="aln_model_b", bind="query-params")
    second = load_translator(kind_b)
    if second is None:
        return
    result = compute_compare(translator, second, settings.raw, level=settings.level)
    if not show_notices(result, translator):
        return
    st.caption("Both models read your sentence and are forced through the same French "
               f"translation (the {settings.kind} model's greedy output), so their weights "
               "share rows and columns.")  # fmt: skip
    user_text(result.translation.text, label="Translation:")
    names = (GLOBAL_MODELS[settings.kind], GLOBAL_MODELS[kind_b])
    view_b = result.second_view
    cols = st.columns(2)
    for col, view, name, key in zip(cols, (result.view, view_b), names, ("a", "b"), strict=True):
        with col:
            plotly_chart(alignment_heatmap(view.weights, view.source, view.target, title=name),
                         key=f"aln_cmp_{key}")  # fmt: skip
    difference_ui(result, view_b, names)


def difference_ui(result: CompareResult, view_b: AlignmentView, names: tuple[str, str]) -> None:
    """The diverging difference heatmap, per-row entropy, and downloads of both."""
    diff, view = result.difference, result.view
    if diff is None:
        st.info("These two models tokenize differently, so their weights cannot be subtracted.")
        return
    cols = st.columns(2)
    with cols[0]:
        fig = diff_heatmap(diff, view.source, view.target, title=f"{names[1]} minus {names[0]}")
        plotly_chart(fig, key="aln_cmp_diff")
    with cols[1]:
        fig = entropy_bars({names[0]: view.weights, names[1]: view_b.weights}, view.target,
                           title="Entropy of each row: low = peaked, high = spread")  # fmt: skip
        plotly_chart(fig, key="aln_cmp_entropy")
    mean_a, mean_b = row_entropy(view.weights).mean(), row_entropy(view_b.weights).mean()
    st.caption(f"Mean entropy: {names[0]} {mean_a:.2f} bits, {names[1]} {mean_b:.2f} bits.")
    data = {"models": names, "source": view.source, "target": view.target,
            "weights_a": view.weights, "weights_b": view_b.weights, "difference": diff}  # fmt: skip
    csv_and_json(diff, view.target, view.source, data, "alignment-difference", "aln_cmp")


@st.fragment
def body() -> None:
    """Inputs and results; a fragment, so pressing Enter reruns only this part of the page."""
    settings = controls_ui()
    translator = load_translator(settings.kind)
    if translator is None:
        return
    if settings.mode == "reference":
        reference_mode_ui(translator, settings)
    elif settings.mode == "compare":
        compare_ui(translator, settings)
    else:
        translate_ui(translator, settings)


def main() -> None:
    """The page."""
    st.title("Alignment")
    st.markdown(ABOUT)
    body()


main()
