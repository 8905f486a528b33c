"""Why attention: the same sentence through an encoder-decoder without attention (one fixed context
vector) and with Bahdanau attention; BLEU against sentence length for all seven models (after
Bahdanau et al. 2015, Fig. 2); and the vanishing gradient that makes one vector a poor memory."""

from __future__ import annotations

import streamlit as st

from app_pages.why_attention.example import (
    cleared_note,
    example_pairs,
    first_example,
    refresh_reference,
    remember_reference,
    rule_text,
)
from i18n import N_, _
from models.checkpoints import Card, rebuild_command
from models.rnn.results import WhyResult
from models.sentence import Sentence
from ui.charts import plotly_chart
from ui.downloads import download_json
from ui.errors import fragment
from ui.fit import PAGE, first_screen
from ui.loaders import cached_translator, model_cards
from ui.tables import table_ui
from ui.text import page_intro, user_text
from ui.translation import (
    ALL_MODELS,
    reference_ui,
    sentence_ui,
    show_notices,
    unfamiliar_input_ui,
)
from ui.translation_results import gradients_result, why_result
from viz.bottleneck import BUCKET_ORDER, MIN_SENTENCES, bleu_by_length_chart, gradient_norm_plot

SIDE_BY_SIDE = {
    "none": N_("Without attention (`none`)"),
    "bahdanau": N_("With attention (`bahdanau`)"),
}
ABOUT = N_(
    "A plain encoder-decoder reads the whole English sentence into a single vector **c** and then "
    "writes the French from that vector alone. Whatever the sentence's length, c has the same "
    "size: the fifth word and the fiftieth must share it. With attention, the decoder keeps all of "
    "the encoder's states and, for each word it writes, takes a fresh weighted mix of them, so "
    "nothing has to survive a trip through one fixed-size bottleneck. The chart first: BLEU against "
    "sentence length for every model; then a sentence of your own (the longer, the clearer)."
)
EXPLANATION = N_(
    "**What the chart shows.** Each colour is one model, measured on the Multi30k test set grouped "
    "by the length of the English sentence (solid lines). Multi30k sentences are short, so the "
    "long groups come from *joined* test pairs: two or three consecutive sentences glued into one "
    "source and one reference (dotted lines). Joined pairs are harder at any length (two "
    "unrelated scenes in one sentence), so compare how steeply each line falls rather than single "
    "points. The model without attention (black) loses the most as sentences grow: its single "
    "vector runs out of room. The attention models fall less, because every output step can look "
    "straight back at the words it needs. This is the picture of Bahdanau et al. (2015), Figure "
    "2, reproduced with our own small models."
)
GRADIENT_TEXT = N_(
    "**Why one vector forgets.** A recurrent encoder updates its state token by token. How much "
    "the last state h_T still depends on the j-th input is the size of the gradient ∂h_T/∂x_j, a "
    "product of one Jacobian per step in between. When those factors are below 1 the product "
    "shrinks geometrically: early words barely move h_T (the *vanishing gradient*). The plot shows "
    "this norm for each position of your sentence, on a log scale, for the trained encoders."
)
ENCODERS_HELP = N_(
    "One backward pass per encoder: the sentence is copied once per hidden unit of h_T and each "
    "copy carries one unit's gradient."
)


def translations_ui(result: WhyResult, reference: str) -> None:
    """The two translations side by side, with sentence BLEU when a reference is given."""
    outputs, bleu = result.translations, result.bleu
    for col, (model, title) in zip(st.columns(2), SIDE_BY_SIDE.items(), strict=True):
        with col:
            st.markdown(f"**{_(title)}**")
            if model not in outputs:
                continue
            user_text(outputs[model].text)
            if model in bleu:
                st.metric(_("Sentence BLEU vs your reference"), f"{bleu[model]:.1f}")
    if not reference:
        st.caption(_("Give a French reference above to score both translations (sentence BLEU)."))


def side_by_side_ui() -> Sentence:
    """Sentence, reference and the two models' translations; returns the sentence (the box's
    value, cleaned once)."""
    st.header(_("Your sentence, without and with attention"))
    first = first_example()
    pairs = example_pairs()
    cleared = refresh_reference(first)
    sentence = sentence_ui("why_", default=first.source, examples=list(pairs), english_note=True)
    reference = reference_ui(
        "why_", label=_("French reference (optional, for BLEU)"), default=first.reference
    )
    remember_reference()
    if cleared:
        cleared_note()
    translators = {}
    for col, model in zip(st.columns(2), SIDE_BY_SIDE, strict=True):
        with col:
            translators[model] = cached_translator(model)
    result = why_result(translators, sentence, reference=reference)
    ready = next((t for t in translators.values() if t), None)
    if show_notices(result, ready):
        translations_ui(result, reference.text)
        if ready is not None:
            unfamiliar_input_ui(result, ready)
    rule = rule_text(first)
    if rule:
        st.caption(rule)
    return sentence


def _overall_rows(cards: dict[str, Card]) -> list[dict]:
    """One table row per model: overall BLEU on the test set and on the joined long sets, written
    with two decimals as the cards keep them ("—" where a card has no such number)."""
    columns = (
        _("model"),
        _("test BLEU (greedy)"),
        _("test BLEU (beam 5)"),
        _("2 sentences joined"),
        _("3 sentences joined"),
    )
    rows = []
    for model, card in cards.items():
        long_sets = card.long_sets
        scores = (
            card.metrics.get("bleu_greedy"),
            card.metrics.get("bleu_beam5"),
            (long_sets.get("concat2") or {}).get("bleu"),
            (long_sets.get("concat3") or {}).get("bleu"),
        )
        values = (model, *("—" if v is None else f"{float(v):.2f}" for v in scores))
        rows.append(dict(zip(columns, values, strict=True)))
    return rows


def bleu_by_length_ui() -> None:
    """BLEU against source length for every model with a card; the missing ones and their commands."""
    st.header(_("BLEU against sentence length"))
    cards = model_cards()
    missing = [k for k in ALL_MODELS if k not in cards]
    if cards:
        fig = bleu_by_length_chart(
            {k: c.to_dict() for k, c in cards.items()},
            title=_("BLEU by source sentence length (test set)"),
        )
        plotly_chart(fig, key="why_bleu_length", fit=first_screen(0))
        st.markdown(_(EXPLANATION))
        table_ui(_overall_rows(cards))
        download_json(
            {
                k: {"bleu_by_length": c.bleu_by_length, "long_sets": c.long_sets}
                for k, c in cards.items()
            },
            "bleu-by-length.json",
            key="why_bleu_json",
        )
        st.caption(
            _(
                "Length buckets: {buckets} words; buckets with fewer than {n} sentences are "
                "left out."
            ).format(buckets=", ".join(BUCKET_ORDER), n=MIN_SENTENCES)
        )
    else:
        st.info(_("No model has a card yet, so there is no chart to draw."))
    if missing:
        st.warning(
            _(
                "Not measured yet (no `card.json`): {models}. Each card is written when its "
                "training finishes."
            ).format(models=", ".join(missing))
        )
        st.code("\n".join(rebuild_command(f"seq2seq-{k}") for k in missing), language="bash")


def encoder_gradients_ui(sentence: Sentence) -> None:
    """The chosen encoders' gradient norms over the positions of the user's sentence."""
    st.header(_("The vanishing gradient"))
    st.markdown(_(GRADIENT_TEXT))
    models = st.multiselect(
        _("Encoders"),
        list(SIDE_BY_SIDE),
        default=["none"],
        key="why_encoders",
        help=_(ENCODERS_HELP),
    )
    curves: dict[tuple[str, ...], dict] = {}  # one chart per tokenization
    for model in models:
        translator = cached_translator(model, quiet=True)
        if translator is None:
            st.info(_("The `{model}` encoder is not trained yet.").format(model=model))
            continue
        result = gradients_result(translator, sentence)
        if result.error or result.sentence.hint:
            st.info(result.error or result.sentence.hint)
            return
        grads = result.gradients
        curves.setdefault(tuple(grads.source_tokens), {})[model] = grads.norms
    for i, (tokens, norms) in enumerate(curves.items()):
        fig = PAGE.across_or_turned(
            lambda across, n=norms, t=tokens: gradient_norm_plot(
                n, list(t), title=_("||∂h_T / ∂x_j|| by position"), across=across
            )
        )
        plotly_chart(fig, key=f"why_gradients_{i}")
        model, first = next(iter(norms.items()))
        st.caption(
            _(
                "`{model}` encoder: the norm is {first:.2e} at the first piece and {last:.2e} "
                "at the last ({n} pieces)."
            ).format(model=model, first=first[0], last=first[-1], n=len(tokens))
        )


@fragment
def body() -> None:
    """Everything that depends on the sentence; a fragment, so Enter reruns only this part."""
    sentence = side_by_side_ui()
    encoder_gradients_ui(sentence)


def main() -> None:
    """The page: the evidence (BLEU against length) first, so that it is on a projector's first
    screen; then the user's sentence through both models, and the vanishing gradient."""
    page_intro(_("Why attention"), _(ABOUT))
    bleu_by_length_ui()
    body()


main()
