"""Image captions: Show, Attend and Tell with soft and hard attention over a scene."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from i18n import N_, _
from serve.streamlit_private import DeltaGenerator
from ui import plotly_component
from ui.captions import (
    MODEL_LABELS,
    captions_ui,
    card_line,
    compose_ui,
    composed_scene,
    describe_ui,
    dumps,
    example_scene,
    example_ui,
    image_upload_ui,
    maps_document,
    settings_ui,
    source_ui,
    word_alt,
)
from ui.charts import plotly_chart
from ui.fit import first_screen
from ui.layout import control_row
from ui.loaders import cached_captioners
from ui.sidebar import classroom_mode
from ui.text import escape_markdown, page_intro
from viz.captions import (
    beta_figure,
    word_panels,
)
from viz.views import alpha_sum_view, caption_view

INTRO = N_(
    "A captioner in the style of *Show, Attend and Tell* (Xu et al. 2015). A frozen CNN turns the "
    "picture into a 14 × 14 grid of feature vectors $a_i$; for every word, an LSTM decoder computes "
    "weights $\\alpha_{ti}$ over the grid. **Soft** attention reads the weighted average "
    "$\\beta_t \\sum_i \\alpha_{ti} a_i$; **hard** attention draws one cell $s_t$ from $\\alpha_t$ "
    "and reads only that cell (trained with REINFORCE)."
)
UPLOAD_NOTE = N_(
    "The models were trained only on emoji scenes, so they know only the scene vocabulary "
    "(56 objects; to the left of, above, below): any other picture is described with it."
)
PENALTY_TEXT = N_(
    "The doubly stochastic penalty $\\lambda \\sum_i (1 - \\sum_t \\alpha_{ti})^2$ nudges every cell "
    "to receive, summed over the words, about one unit of attention. The gate "
    "$\\beta_t = \\sigma(f_\\beta(h_{t-1}))$ scales the context: small β means the word comes more "
    "from the language model than from the image."
)
CROSSFADE = N_(
    "While it plays, each word's map crossfades into the next one's (the circles fade out and "
    "in). The pictures in between are only motion; at each word the map is exactly the model's."
)

PICTURE_PX = 260
# the page's title takes two lines at a projector's 1280 px in classroom mode (one in Chinese)
TITLE_WRAP_PX = 60

page_intro(_("Image captions: where the model looks while it speaks"), _(INTRO))


@dataclass(frozen=True)
class Areas:
    """Where each part of the page goes, in the order it is shown."""

    source: DeltaGenerator  # where the image comes from
    scene: DeltaGenerator  # the example slider, the uploader
    settings: DeltaGenerator  # beam size and hard-attention samples
    objects: DeltaGenerator  # a composer's sliders, the full width
    picture: DeltaGenerator  # the scene as the encoder sees it
    players: DeltaGenerator  # one word at a time, soft and hard side by side
    captions: DeltaGenerator
    strips: DeltaGenerator  # a picture per word, wrapped into rows


def areas() -> Areas:
    """In classroom mode the players come first, fitted under one row of controls (a projector's
    first screen shows the model looking as it speaks); else the controls beside the picture, the
    word strips, the captions with the settings, then the players."""
    if classroom_mode():
        row = control_row([5, 3])
        objects, players, captions, picture, strips = (st.container() for _i in range(5))
        return Areas(*row.columns, row.more, objects, picture, players, captions, strips)
    controls, picture = st.columns([3, 2], gap="large")
    objects, strips, captions, players = (st.container() for _i in range(4))
    captions.subheader(_("Captions"))
    settings = captions.container()
    return Areas(controls, controls, settings, objects, picture, players, captions, strips)


where = areas()
with where.source:
    source = source_ui()
truth = None
with where.scene:
    if source == "example":
        scene = example_scene(example_ui())
        image, truth = scene.image, " ".join(scene.caption)
    elif source == "compose":
        scene = composed_scene(compose_ui(where.objects))
        image, truth = scene.image, " ".join(scene.caption)
    else:
        st.info(_(UPLOAD_NOTE))
        image, problem = image_upload_ui()
        if problem:
            st.error(problem)
with where.settings:
    settings = settings_ui()  # drawn in every case, so that its values are never dropped
if image is None:
    st.stop()
models = cached_captioners()

st.session_state.setdefault("cap_seed", 0)
with st.spinner(_("Captioning…")):
    described = {
        name: describe_ui(name, image, settings, st.session_state["cap_seed"]) for name in models
    }
results = {name: result for name, result in described.items() if result is not None}

where.picture.image(
    image,
    width=PICTURE_PX,
    caption=_("The scene (224 × 224, as the encoder sees it)"),
    alt=_("The scene the models caption"),
)
with where.captions:
    captions_ui(truth, results)
if not results:
    st.stop()

with where.strips:
    st.subheader(_("Attention per word"))
    for name, result in results.items():
        st.markdown(f"**{_(MODEL_LABELS[name])}**")
        st.image(
            word_panels(image, result.alphas, result.words),
            caption=[escape_markdown(w) for w in result.words],
            alt=[word_alt(w, a) for w, a in zip(result.words, result.alphas, strict=True)],
        )
        line = card_line(name)
        if line:
            st.caption(line)

with where.players:
    if not classroom_mode():
        st.subheader(_("One word at a time"))
    left, right = st.columns(2)
    for column, (name, result) in zip((left, right), results.items(), strict=False):
        with column:
            chart = caption_view(image, result, title=_(MODEL_LABELS[name]))
            plotly_chart(
                chart,
                key=f"cap_player_{name}",
                fit=first_screen(0, above=TITLE_WRAP_PX),
            )
            if result.attention == "hard":
                if st.button(_("Re-sample"), key="cap_resample", icon=":material/casino:"):
                    st.session_state["cap_seed"] += 1
                    st.rerun()
    st.caption(
        _(
            "Move the word slider or press play. On the right, the circles mark the cells that "
            "hard attention sampled for that word, over {n} samples (size = how often)."
        ).format(n=settings.samples)
    )
    if plotly_component.wanted():  # the browser plays it smoothly (viz.captions.player_play)
        st.caption(_(CROSSFADE))

st.subheader(_("Where the attention went in total, and the gate β"))
st.markdown(_(PENALTY_TEXT))
sums, gates = st.columns(2)
with sums:
    for name, result in results.items():
        title = _("Σ_t α: {model}").format(model=_(MODEL_LABELS[name]))
        plotly_chart(alpha_sum_view(result, title=title), key=f"cap_sum_{name}")
with gates:
    series = {_(MODEL_LABELS[n]): (r.words, r.betas) for n, r in results.items()}
    plotly_chart(beta_figure(series, title=_("β per word")), key="cap_beta")

st.download_button(
    _("Download the attention maps (JSON)"),
    dumps(maps_document(source, results)),
    file_name="attention-maps.json",
    mime="application/json",
    icon=":material/download:",
    on_click="ignore",
    key="cap_download",
)
