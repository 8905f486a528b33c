"""Alignment: an English sentence, its French translation by an RNN encoder-decoder with attention,
and where each French token looked (heatmap beside its score's formula, lines, the step inspector's
scores, weights and context, beam hypotheses, a forced reference, two scoring functions compared,
and all four scores on one translation)."""

from __future__ import annotations

import streamlit as st

from app_pages.alignment.controls import AlignmentSettings, controls_ui
from app_pages.alignment.explain import explain_ui
from app_pages.alignment.formulas import formula_ui, step_inspector_ui
from app_pages.alignment.four_scores import WIDE_SOURCE, difference_section, four_scores_ui
from i18n import N_, _, ngettext
from models.rnn.results import AlignmentView, CompareResult, Result, tokens_view
from models.rnn.translator import Translation, Translator
from models.sentence import Sentence
from ui import plotly_component
from ui.charts import plotly_chart
from ui.downloads import csv_and_json
from ui.errors import fragment
from ui.fit import PAGE, Column, first_screen
from ui.layout import regions
from ui.loaders import cached_translator
from ui.sidebar import classroom_mode
from ui.tables import table_ui
from ui.text import page_intro, user_text
from ui.translation import (
    GLOBAL_MODELS,
    model_label,
    reference_ui,
    show_notices,
    unfamiliar_input_ui,
)
from ui.translation_results import alignment_result, compare_result
from ui.url_state import check_model_param, check_number_param
from viz.alignment import alignment_heatmap, token_prob_bars
from viz.linked import AlignmentCharts

LINK_HINT = N_(
    "Hover a cell of the heatmap to see its line here, or a line or a token here to find it in "
    "the heatmap."
)
SEEDED_NOTE = N_(
    "The reference starts as the model's own translation; change it and press **Enter** to "
    "force the model through your French."
)
REF_KEY = "aln_ref"  # the reference box (ui.translation.reference_ui with prefix "aln_")
LOW_PROB = 0.1
BESIDE = (3, 2)  # classroom mode: the heatmap's and the lines' shares of the row
ABOUT = N_(
    "Type an English sentence and press **Enter**. A recurrent encoder reads it; at every step "
    "the decoder scores each source token against its own state, turns the scores into weights "
    "with a softmax, and writes the next French token from the weighted mix. The heatmap shows "
    "those weights: one row per French token, one column per English token. Adjectives that "
    'French puts *after* the noun ("a black dog" → "un chien noir") show up as a crossing in the '
    "pattern. Pieces starting with ▁ begin a word; `</s>` ends the sentence."
)


def linked_charts(view: AlignmentView, key: str) -> AlignmentCharts:
    """The heatmap and the lines of ``view`` that ``alignment_ui`` (under ``key``) shows, linked
    on hover."""
    return AlignmentCharts(view.weights, view.source, view.target, group=f"{key}-link")


def alignment_ui(view: AlignmentView, title: str, key: str, model: str) -> None:
    """The heatmap with, beside it, ``model``'s formulas and the same alignment as lines
    (under it when the sentence is long: the heatmap then takes the whole width). The heatmap
    and the lines are linked on hover, in the browser (viz.hover_link)."""
    charts = linked_charts(view, key)
    heatmap = charts.heatmap(title=title)
    beside = classroom_mode() and len(view.source) <= WIDE_SOURCE  # the lines beside the map
    fit = first_screen(len(view.target), column=Column(BESIDE, 0, "medium"))
    if beside and not fit.column.holds(heatmap.figure):
        # the cells' numbers would make it wider than its column: hover and the step inspector
        # give them
        heatmap = charts.heatmap(title=title, numbers=False)
    if beside:
        left, right = st.columns(BESIDE, gap="medium")
        with left:
            plotly_chart(heatmap, key=f"{key}_heatmap", fit=fit)
        with right:
            lines_ui(view, key)
        formula_ui(model)
        return
    if len(view.source) > WIDE_SOURCE:
        plotly_chart(heatmap, key=f"{key}_heatmap")
        left, right = st.columns([2, 3], gap="medium")
    else:
        left, right = st.columns([3, 2], gap="medium")
        with left:
            plotly_chart(heatmap, key=f"{key}_heatmap")
        left, right = right, right
    with left:
        formula_ui(model)
    with right:
        lines_ui(view, key)


def lines_ui(view: AlignmentView, key: str) -> None:
    """The alignment as lines, with a threshold slider (under the lines in classroom mode, so
    that they start level with the heatmap); linked on hover with the heatmap of
    ``alignment_ui``."""
    slider, lines_at = st.container(), st.container()
    if classroom_mode():
        slider, lines_at = lines_at, slider
    check_number_param("aln_threshold", 0.0, 1.0, integer=False)
    threshold = slider.slider(
        _("Hide lines below weight"),
        0.0,
        1.0,
        0.1,
        0.05,
        key="aln_threshold",
        bind="query-params",
    )
    lines = linked_charts(view, key).lines(
        threshold=threshold, title=_("The same weights as lines")
    )
    rows = max(view.source, view.target, key=len)
    with lines_at:
        fit = first_screen(len(rows), column=Column(BESIDE, 1, "medium"))
        plotly_chart(lines, key=f"{key}_lines", fit=fit)
    if plotly_component.wanted():  # the hover link is the component's (st.plotly_chart: none)
        st.caption(_(LINK_HINT))


def hypotheses_ui(tr: Translation, level: str) -> None:
    """Beam search's hypotheses with their scores; one of them can show its own alignment."""
    st.subheader(_("Beam hypotheses"))
    rank, score, text = _("rank"), _("score (log p / length)"), _("translation")
    rows = [
        {rank: i + 1, score: round(h.score, 4), text: h.text} for i, h in enumerate(tr.hypotheses)
    ]
    table_ui(rows)
    pick = st.selectbox(
        _("Show the alignment of hypothesis"),
        range(1, len(tr.hypotheses) + 1),
        key="aln_hyp",
        bind="query-params",
    )
    hyp = tr.hypotheses[int(pick or 1) - 1]
    if hyp.weights is not None:
        view = tokens_view(tr.source_tokens, hyp.target_tokens, hyp.weights, level)
        plotly_chart(
            alignment_heatmap(
                view.weights, view.source, view.target, title=_("Hypothesis {n}").format(n=pick)
            ),
            key="aln_hyp_heatmap",
        )


def result_downloads_ui(result: Result, settings: AlignmentSettings, name: str) -> None:
    """The matrix on screen as CSV and the whole result as JSON."""
    tr, view = result.translation, result.view
    data = {
        "model": settings.model,
        "mode": settings.mode,
        "beam": settings.beam,
        "source": result.sentence.text,
        "translation": tr.text,
        "source_tokens": tr.source_tokens,
        "target_tokens": tr.target_tokens,
        "weights": tr.weights,
        "token_probs": tr.token_probs,
        "top_k": tr.top_k,
        "view": {
            "level": settings.level,
            "source": view.source,
            "target": view.target,
            "weights": view.weights,
        },
        "hypotheses": [
            {
                "text": h.text,
                "score": h.score,
                "target_tokens": h.target_tokens,
                "weights": h.weights,
            }
            for h in tr.hypotheses
        ],
    }
    csv_and_json(view.weights, view.target, view.source, data, name, f"aln_{name}")


def translate_mode_ui(translator: Translator, settings: AlignmentSettings) -> None:
    """Translate mode: translation, alignment, step inspector, hypotheses, downloads."""
    result = alignment_result(
        translator, settings.sentence, beam=settings.beam, level=settings.level
    )
    if not show_notices(result, translator):
        return
    tr = result.translation
    charts, notes = regions()
    with notes:
        user_text(tr.text, label=_("Translation:"))
        unfamiliar_input_ui(result, translator)
    with charts:
        alignment_ui(result.view, model_label(settings.model), "aln_main", settings.model)
    step_inspector_ui(tr, settings.model, settings.level)
    if tr.hypotheses:
        hypotheses_ui(tr, settings.level)
    result_downloads_ui(result, settings, "alignment")
    explain_ui(translator, result.sentence, tr)


def seed_reference(translator: Translator, sentence: Sentence) -> bool:
    """An empty reference box starts with the model's own (greedy) translation of ``sentence``, so
    that switching to reference mode shows a sensible forced alignment at once (the user edits
    it from there). A reference in the link is kept. True when the box was filled."""
    if st.session_state.get(REF_KEY) or st.query_params.get(REF_KEY):
        return False
    result = alignment_result(translator, sentence)  # cached: translate mode's own decoding
    if result.translation is None or not result.translation.text.strip():
        return False
    st.session_state[REF_KEY] = result.translation.text
    return True


def reference_mode_ui(translator: Translator, settings: AlignmentSettings) -> None:
    """Reference mode: the model forced through the user's French sentence (at first its own
    translation, :func:`seed_reference`)."""
    charts, notes = regions()
    seeded = seed_reference(translator, settings.sentence)
    with notes:
        ref = reference_ui("aln_")
        if seeded:
            st.caption(_(SEEDED_NOTE))
    result = alignment_result(translator, settings.sentence, level=settings.level, reference=ref)
    if not show_notices(result, translator):
        return
    tr = result.translation
    with notes:
        st.caption(
            _(
                "The decoder is fed your French sentence token by token (forced decoding); "
                "the weights show how the model aligns this pair."
            )
        )
        unfamiliar_input_ui(result, translator)
    with charts:
        alignment_ui(result.view, _("Forced alignment"), "aln_ref", settings.model)
    fig = token_prob_bars(
        tr.token_probs,
        tr.target_tokens,
        low=LOW_PROB,
        title=_("How likely the model found each of your tokens"),
    )
    plotly_chart(fig, key="aln_ref_probs")
    low = [t for t, p in zip(tr.target_tokens, tr.token_probs, strict=True) if p < LOW_PROB]
    n = len(tr.target_tokens)
    st.caption(
        ngettext(
            "{low} of {n} token below p = {limit} (orange, left of the dashed line).",
            "{low} of {n} tokens below p = {limit} (orange, left of the dashed line).",
            n,
        ).format(low=len(low), n=n, limit=LOW_PROB)
    )
    step_inspector_ui(tr, settings.model, settings.level)
    result_downloads_ui(result, settings, "forced-alignment")


def compare_ui(translator: Translator, settings: AlignmentSettings) -> None:
    """Compare mode: two scoring functions on the same pair, their difference and entropy."""
    others = [k for k in GLOBAL_MODELS if k != settings.model]
    charts, notes = regions()
    with notes:
        check_model_param("aln_model_b", others)
    model_b = notes.selectbox(_("Compare with"), others, key="aln_model_b", bind="query-params")
    second = cached_translator(model_b)
    if second is None:
        return
    result = compare_result(translator, second, settings.sentence, level=settings.level)
    if not show_notices(result, translator):
        return
    with notes:
        st.caption(
            _(
                "Both models read your sentence and are forced through the same French "
                "translation (the {model} model's greedy output), so their weights share rows "
                "and columns. One colour scale for both maps, from weight 0 to 1."
            ).format(model=settings.model)
        )
        user_text(result.translation.text, label=_("Translation:"))
        unfamiliar_input_ui(result, translator)
    view_b = result.second_view
    models = (settings.model, model_b)
    wide = len(result.view.source) > WIDE_SOURCE  # the two maps one under the other
    columns = [charts.container()] * 2 if wide else charts.columns(2)
    fit = first_screen(len(result.view.target), column=PAGE if wide else Column((1, 1)))
    for col, view, model, key in zip(columns, (result.view, view_b), models, "ab", strict=True):
        with col:
            title = model_label(model)
            fig = alignment_heatmap(
                view.weights, view.source, view.target, title=title, zmax=1.0, colorbar=False
            )
            plotly_chart(fig, key=f"aln_cmp_{key}", fit=fit)
            formula_ui(model, score_only=True)
    difference_ui(result, view_b, (settings.model, model_b))


def difference_ui(result: CompareResult, view_b: AlignmentView, models: tuple[str, str]) -> None:
    """The difference (second minus first) beside both rows' entropy, with downloads (``models``:
    the two GLOBAL_MODELS ids)."""
    if result.difference is None:
        st.info(_("These two models tokenize differently, so their weights cannot be subtracted."))
        return
    views = {models[0]: result.view, models[1]: view_b}
    scores = {models[0]: result.translation.scores, models[1]: result.second.scores}
    difference_section(views, models, "aln_cmp", "alignment-difference", scores=scores)


@fragment
def body() -> None:
    """Inputs and results; a fragment, so pressing Enter reruns only this part of the page."""
    settings = controls_ui()
    translator = cached_translator(settings.model)
    if translator is None:
        return
    if settings.mode == "reference":
        reference_mode_ui(translator, settings)
    elif settings.mode == "compare":
        compare_ui(translator, settings)
    elif settings.mode == "four":
        four_scores_ui(settings.sentence, settings.model, settings.level)
    else:
        translate_mode_ui(translator, settings)


page_intro(_("Alignment"), _(ABOUT))
body()
