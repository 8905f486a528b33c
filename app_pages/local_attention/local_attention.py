"""Local attention: Luong local-m and local-p step by step — the predicted position p_t, the window
[p_t - D, p_t + D], the Gaussian with sigma = D/2, raw and final weights — next to global attention."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from i18n import N_, _
from models.rnn.results import Result
from models.rnn.translator import Translation, Translator
from models.sentence import Sentence
from ui import plotly_component
from ui.charts import plotly_chart
from ui.downloads import csv_and_json
from ui.errors import fragment
from ui.fit import PAGE, first_screen, side_by_side
from ui.guard import guarded_ui
from ui.layout import control_row, regions
from ui.loaders import cached_translator
from ui.sidebar import classroom_mode
from ui.text import page_intro, user_text
from ui.translation import (
    LOCAL_MODELS,
    local_steps_chart,
    model_label,
    sentence_ui,
    show_notices,
    step_slider,
    trained_window,
    unfamiliar_input_ui,
)
from ui.translation_results import decode, local_result
from ui.url_state import check_model_param, check_number_param
from viz.alignment import alignment_heatmap
from viz.views import local_window_view

GLOBAL_MODEL = "luong-general"
MAX_D = 15
ABOUT = N_(
    "Global attention lets every French token look at every English token. **Local** attention "
    "first picks a centre p_t in the source and only looks inside the window [p_t - D, p_t + D]. "
    "**local-m** simply assumes the sentences run in parallel (p_t = t, the step number); "
    "**local-p** *predicts* p_t from the decoder state: "
    "p_t = (S − 1) · sigmoid(v_p^T tanh(W_p h_t)), where S is the number of source pieces, so "
    "p_t runs from the first piece (0) to the last (S − 1). Inside the window the weights come "
    "from a softmax, and are then multiplied by a Gaussian centred at p_t with sigma = D/2, so "
    "tokens near the centre count most."
)
WIDER = N_(
    "The model was trained with **D = {trained}**; you are using D = {D}. The window is wider: "
    "more tokens enter the softmax and the Gaussian is flatter. The model never saw this window "
    "in training, so its weights (and sometimes its translation) change."
)
NARROWER = N_(
    "The model was trained with **D = {trained}**; you are using D = {D}. The window is "
    "narrower: fewer tokens enter the softmax and the Gaussian is sharper. The model never saw "
    "this window in training, so its weights (and sometimes its translation) change."
)
GLIDE = N_(
    "While it plays, the chart glides from one step to the next: the window slides along p_t. "
    "The states in between are only motion; at each step the numbers are exactly the model's."
)


@dataclass(frozen=True)
class LocalSettings:
    """The page's inputs: the sentence (the box's value, cleaned once), the local model (a LOCAL_MODELS key), the window
    half-width D in use and the D the model was trained with."""

    sentence: Sentence
    model: str
    D: int
    trained: int


def controls_ui() -> tuple[LocalSettings, Translator | None]:
    """Sentence, local model and window half-width D; returns them and the loaded model. In
    classroom mode the sentence and the model share one row, and D is in the row's settings
    popover (``ui.layout.control_row``)."""
    if classroom_mode():
        row = control_row([7, 3])
        with row.columns[0]:
            sentence = sentence_ui("loc_", english_note=True, more=row.more)
        c1, c2 = row.columns[1], row.more
    else:
        sentence = sentence_ui("loc_", english_note=True)
        c1, c2 = st.columns([2, 3])
    check_model_param("loc_model", list(LOCAL_MODELS))
    model = c1.selectbox(
        _("Local model"),
        list(LOCAL_MODELS),
        key="loc_model",
        bind="query-params",
        help=" · ".join(map(model_label, LOCAL_MODELS)),
    )
    translator = cached_translator(model)
    trained = trained_window(translator) if translator is not None else 5
    check_number_param("loc_D", 1, MAX_D)
    D = c2.slider(
        _("Window half-width D (at inference time)"),
        1,
        MAX_D,
        trained,
        key="loc_D",
        bind="query-params",
    )
    return LocalSettings(sentence, model, int(D), trained), translator


def window_note(settings: LocalSettings) -> None:
    """What D the model was trained with, and what changing it does."""
    D, trained = settings.D, settings.trained
    if D == trained:
        st.caption(
            _("The model was trained with **D = {trained}**; that is the D in use now.").format(
                trained=trained
            )
        )
        return
    text = _(WIDER) if D > trained else _(NARROWER)
    st.info(text.format(trained=trained, D=D), icon=":material/tune:")


def follow_chart_step() -> None:
    """on_trigger callback of the step chart: the step its slider or player came to rest on
    (``st.session_state["loc_steps"]["step"]``) becomes the page's step; ``step_slider`` clamps
    it to the sentence. Anything but a whole number is ignored."""
    value = (st.session_state.get("loc_steps") or {}).get("step")
    if isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer():
        st.session_state["loc_step"] = max(0, int(value))


def steps_ui(tr: Translation) -> None:
    """The step slider, the animated step figure with its play button, and the step's numbers."""
    st.subheader(_("Step by step"))
    step = step_slider(_("Target step"), "loc_step", len(tr.target_tokens))
    plotly_chart(
        local_steps_chart(tr, step=step), key="loc_steps", on_trigger={"step": follow_chart_step}
    )
    lo, hi = tr.window[step]
    st.caption(
        _(
            "Press **▶ Play** at the top of the chart to run through all {n} steps. Step {step}: "
            "p_t = {p:.2f}, window [{lo:.1f}, {hi:.1f}]. The final weights are raw x "
            "Gaussian, rescaled so the row sums to {total:.2f}: Luong et al. leave the "
            "product below 1, our models renormalise it (see the README)."
        ).format(
            n=len(tr.target_tokens),
            step=step,
            p=tr.p_t[step],
            lo=lo,
            hi=hi,
            total=tr.weights[step].sum(),
        )
    )
    if plotly_component.wanted():  # the browser plays it smoothly (viz.local_steps.local_play)
        st.caption(_(GLIDE))


def heatmaps_ui(result: Result, settings: LocalSettings, global_model: Translator | None) -> None:
    """The full local heatmap with p_t as a path, next to the global model's heatmap (the global
    model is forced through the local translation only after the local heatmap is on its way)."""
    tr = result.translation
    fig = local_window_view(tr, model=settings.model).figure
    # side by side where a map fits half the row, else one under the other
    halves = side_by_side([fig, fig])
    left, right = st.columns(2) if halves else (st.container(), st.container())
    fit = first_screen(len(tr.target_tokens), column=halves[0] if halves else PAGE)
    with left:
        plotly_chart(fig, key="loc_heatmap", fit=fit)
    with right:
        if global_model is None:
            st.info(
                _("The global model ({model}) is not available for comparison.").format(
                    model=GLOBAL_MODEL
                )
            )
            return
        if not tr.text.strip():
            st.info(_("The local model produced an empty translation: nothing to compare."))
            return
        glob = guarded_ui(lambda: decode(global_model, result.sentence, reference=tr.text))
        if glob is None:
            return
        fig = alignment_heatmap(
            glob.weights,
            glob.source_tokens,
            glob.target_tokens,
            # "same translation" is the caption's: in the title it made the map wider than its
            # half of the row at its least width (1280x720 classroom, 1280x800)
            title=_("{model} (global)").format(model=GLOBAL_MODEL),
        )
        plotly_chart(fig, key="loc_global", fit=fit)
        st.caption(
            _(
                "The global model is forced through the local model's translation, so "
                "the two heatmaps have the same rows."
            )
        )


def result_downloads_ui(result: Result, settings: LocalSettings) -> None:
    """The local weights as CSV and the whole step-by-step result as JSON."""
    tr = result.translation
    data = {
        "model": settings.model,
        "D": tr.D,
        "trained_D": settings.trained,
        "source": result.sentence.text,
        "translation": tr.text,
        "source_tokens": tr.source_tokens,
        "target_tokens": tr.target_tokens,
        "p_t": tr.p_t,
        "window": tr.window,
        "gaussian": tr.gaussian,
        "raw_weights": tr.raw_weights,
        "weights": tr.weights,
    }
    csv_and_json(tr.weights, tr.target_tokens, tr.source_tokens, data, "local-attention", "loc")


@fragment
def body() -> None:
    """Inputs and results; a fragment, so pressing Enter reruns only this part of the page."""
    settings, translator = controls_ui()
    if translator is None:
        return
    charts, notes = regions()  # in classroom mode the notes follow the charts
    with notes:
        window_note(settings)
    global_model = cached_translator(GLOBAL_MODEL, quiet=True)
    result = local_result(translator, settings.sentence, window=settings.D)
    if not show_notices(result, translator):
        return
    with notes:
        user_text(result.translation.text, label=_("Translation:"))
        unfamiliar_input_ui(result, translator)
    with charts:  # the whole sentence first, then step by step
        heatmaps_ui(result, settings, global_model)
    steps_ui(result.translation)
    result_downloads_ui(result, settings)


page_intro(_("Local attention"), _(ABOUT))
body()
