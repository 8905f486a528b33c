"""The Alignment page's "four scores" mode: Bahdanau's additive score and Luong's dot, general and
concat scores on the same sentence, all forced through one translation (the chosen model's greedy
output) so that their rows line up: the four maps side by side with their formulas, the
difference of a chosen pair and every row's entropy."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import streamlit as st

from app_pages.alignment.formulas import formula_ui
from i18n import N_, _
from models.rnn.results import AlignmentView, ScoresResult
from models.rnn.translator import Translator
from models.sentence import Sentence
from ui.charts import plotly_chart
from ui.downloads import csv_and_json
from ui.fit import PAGE_FIT, Column, Fit
from ui.loaders import cached_translator
from ui.text import user_text
from ui.translation import GLOBAL_MODELS, model_label, show_notices, unfamiliar_input_ui
from ui.translation_results import scores_result
from viz.alignment import (
    alignment_difference,
    alignment_heatmap,
    entropy_heatmap,
    weights_row_entropy,
)

PAIR_KEY = "aln_pair"
# more source tokens than this: a heatmap gets the page's whole width (two maps go one under the
# other), as it would not fit half of it at the least legible cells
WIDE_SOURCE = 24
DIFFERENCE_BESIDE = (3, 2)  # the difference's and the entropy's shares of their row
SCALE_NOTE = N_(
    "One colour scale for the four maps, from weight 0 to 1; hover over a cell for its number."
)
ENTROPY_NOTE = N_(
    "A row's entropy is low when the word looked at one source token, high when its weight was "
    "spread (log2 of the number of source tokens when flat). Mean entropy in bits: {means}."
)


def pair_id(a: str, b: str) -> str:
    """The option (and URL value) of the difference ``b`` minus ``a``: model ids, never
    translated, so a link works in every language."""
    return f"{b} − {a}"


def pairs(models: list[str]) -> dict[str, tuple[str, str]]:
    """Every unordered pair of ``models`` by its option: 'luong-dot − bahdanau' -> (a, b)."""
    return {pair_id(a, b): (a, b) for a, b in combinations(models, 2)}


def four_scores_ui(sentence: Sentence, reference: str, level: str) -> None:
    """The mode's whole section for ``sentence``: the ``reference`` model's greedy
    translation is the one all four are forced through; ``level``: 'subword' or 'word'."""
    translators: dict[str, Translator] = {}
    for model in GLOBAL_MODELS:
        translator = cached_translator(model)
        if translator is not None:
            translators[model] = translator
    if reference not in translators or len(translators) < 2:
        return
    result = scores_result(translators, reference, sentence, level=level)
    if not show_notices(result, translators[reference]):
        return
    st.caption(
        _(
            "The four models read your sentence and are forced through the same French "
            "translation (the {model} model's greedy output), so their rows line up: only the "
            "score function differs."
        ).format(model=reference)
    )
    user_text(result.translation.text, label=_("Translation:"))
    unfamiliar_input_ui(result, translators[reference])
    maps_ui(result)
    if not result.shared:
        st.info(_("These models tokenize differently, so their weights cannot be subtracted."))
        return
    difference_ui(result)


def maps_ui(result: ScoresResult) -> None:
    """The models' maps two by two on one colour scale, each with its score's formula."""
    st.caption(_(SCALE_NOTE))
    models = list(result.views)
    for row in range(0, len(models), 2):
        for column, model in zip(st.columns(2), models[row : row + 2], strict=False):
            view = result.views[model]
            with column:
                title = model_label(model)
                fig = alignment_heatmap(
                    view.weights, view.source, view.target, title=title, zmax=1.0, colorbar=False
                )
                plotly_chart(fig, key=f"aln_four_{model}")
                formula_ui(model, score_only=True)


def difference_ui(result: ScoresResult) -> None:
    """The chosen pair's difference beside every model's per-row entropy, and the downloads."""
    options = pairs(list(result.views))
    st.subheader(_("Where two scores disagree"))
    choice = st.selectbox(
        _("Difference of the pair"), list(options), key=PAIR_KEY, bind="query-params"
    )
    a, b = options[choice or next(iter(options))]
    scores = {model: tr.scores for model, tr in result.translations.items()}
    difference_section(result.views, (a, b), "aln_four", "four-scores", scores=scores)


def difference_section(
    views: Mapping[str, AlignmentView],
    pair: tuple[str, str],
    key: str,
    name: str,
    *,
    scores: Mapping[str, object] | None = None,
) -> None:
    """The difference of ``pair`` = (a, b) (b minus a, two ids of ``views``, which share their
    tokens) beside every view's per-row entropy, and both as downloads ``name``.csv/.json
    (``key``: the widgets' prefix; ``scores``: each model's scores e, in the JSON too)."""
    a, b = pair
    first, models = views[a], list(views)
    diff = views[b].weights - first.weights
    if len(first.source) <= WIDE_SOURCE:  # side by side
        places = st.columns(DIFFERENCE_BESIDE, gap="medium")
        fits = [Fit(Column(DIFFERENCE_BESIDE, i, "medium")) for i in (0, 1)]
    else:  # one under the other, the page's whole width
        places, fits = [st.container()] * 2, [PAGE_FIT] * 2
    with places[0]:
        title = _("{b} minus {a}").format(a=a, b=b)
        fig = alignment_difference(diff, first.source, first.target, title=title)
        plotly_chart(fig, key=f"{key}_diff", fit=fits[0])
    weights = {model: views[model].weights for model in models}
    with places[1]:
        fig = entropy_heatmap(weights, first.target, title=_("Entropy of each row (bits)"))
        plotly_chart(fig, key=f"{key}_entropy", fit=fits[1])
    means = ", ".join(
        f"{model} {weights_row_entropy(w).mean():.2f}" for model, w in weights.items()
    )
    st.caption(_(ENTROPY_NOTE).format(means=means))
    data = {
        "models": models,
        "source": first.source,
        "target": first.target,
        "weights": weights,
        "difference": {"pair": [a, b], "values": diff},
    } | ({"scores": dict(scores)} if scores else {})
    csv_and_json(diff, first.target, first.source, data, name, key)
