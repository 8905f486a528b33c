"""The Alignment page's controls: the sentence (the box's typed, cleaned value), the mode, the attention model, the beam width and
the view level (:class:`AlignmentSettings`). In classroom mode the sentence and the model share
one row, and the rest is in the row's settings popover (``ui.layout.control_row``)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from i18n import N_, _
from models.limits import TRANSLATOR_BEAM
from models.sentence import Sentence
from serve.streamlit_private import DeltaGenerator
from ui.choices import segmented_ui
from ui.layout import control_row
from ui.sidebar import classroom_mode
from ui.translation import GLOBAL_MODELS, sentence_ui
from ui.url_state import check_model_param, check_number_param

# id (in the URL) -> label (translated where shown)
MODES = {
    "translate": N_("translate"),
    "reference": N_("reference"),
    "compare": N_("compare"),
    "four": N_("four scores"),
}
LEVELS = {"subword": N_("subword"), "word": N_("word")}
MODEL_HELP = N_(
    "bahdanau: additive score from the previous state; luong-*: dot, general (x W) or "
    "concat score from the current state."
)
LEVEL_HELP = N_(
    "word merges the subword pieces: a source word sums its pieces' weights, a target "
    "word averages its pieces' rows."
)
MODE_HELP = N_(
    "translate: the model's own translation; reference: forced through your French "
    "sentence; compare: two scoring functions on the same pair; four scores: Bahdanau, dot, "
    "general and concat on one translation."
)


@dataclass(frozen=True)
class AlignmentSettings:
    """The page's inputs: the sentence (``ui.translation.sentence_ui``'s value, cleaned once),
    the model (a GLOBAL_MODELS key), the beam width (1 = greedy), the view level (LEVELS) and
    the mode (MODES)."""

    sentence: Sentence
    model: str
    beam: int
    level: str
    mode: str


def controls_ui() -> AlignmentSettings:
    """Sentence, mode (a row of its own, so that its four choices are never cut), model,
    decoding and view level; returns them. In classroom mode the sentence and the model share
    one row, and the rest is in the row's settings popover (``ui.layout.control_row``)."""
    if classroom_mode():
        row = control_row([7, 3])
        with row.columns[0]:
            sentence = sentence_ui("aln_", with_ref=True, english_note=True, more=row.more)
        model = model_ui(row.columns[1])
        with row.more:
            mode = segmented_ui(st, _("Mode"), MODES, key="aln_mode", help=_(MODE_HELP))
            beam = beam_ui(st)
            level = segmented_ui(st, _("View"), LEVELS, key="aln_view", help=_(LEVEL_HELP))
        return AlignmentSettings(sentence, model, beam, level, mode)
    sentence = sentence_ui("aln_", with_ref=True, english_note=True)
    mode = segmented_ui(st, _("Mode"), MODES, key="aln_mode", help=_(MODE_HELP))
    c1, c2, c3 = st.columns([3, 3, 2])
    model = model_ui(c1)
    beam = beam_ui(c2)
    level = segmented_ui(c3, _("View"), LEVELS, key="aln_view", help=_(LEVEL_HELP))
    return AlignmentSettings(sentence, model, beam, level, mode)


def model_ui(where: DeltaGenerator) -> str:
    """The attention model (a GLOBAL_MODELS key, kept in the URL)."""
    check_model_param("aln_model", list(GLOBAL_MODELS))
    return where.selectbox(
        _("Attention model"),
        list(GLOBAL_MODELS),
        key="aln_model",
        bind="query-params",
        help=_(MODEL_HELP),
    )


def beam_ui(where: DeltaGenerator) -> int:
    """The beam width (1: greedy decoding; kept in the URL)."""
    check_number_param("aln_beam", 1, TRANSLATOR_BEAM)
    label = _("Beam width (1 = greedy)")
    return int(where.slider(label, 1, TRANSLATOR_BEAM, 1, key="aln_beam", bind="query-params"))
