"""The Multi-head attention page's controls: the model (our Transformer, with its checkpoint,
attention and beam, or a pretrained encoder by name) and the sentence; in classroom mode the
sentence and the model in one row, the rest in its settings popover (``ui.layout.control_row``)."""

from __future__ import annotations

import streamlit as st

from app_pages.multi_head.settings import ModelSettings
from i18n import N_, _
from models.limits import ENCODER_CHARS, MULTI_HEAD_BEAM
from models.transformer.pretrained import offered_encoders
from ui.choices import choice_ui, segmented_ui
from ui.layout import ControlRow, control_row
from ui.multi_head import ATTENTION_CHOICES, POSITIONAL_LABELS, POSITIONALS
from ui.sidebar import classroom_mode
from ui.text import TextBox, read_text, show_text_notices
from ui.url_state import check_choice_param, check_model_param, check_number_param

SOURCES = {
    "transformer": N_("Our Transformer (EN → FR)"),
    "pretrained": N_("Pretrained encoder (MiniLM)"),
}
MODEL_HELP = N_(
    "Our Transformer was trained here to translate English to French. The pretrained "
    "encoder is all-MiniLM-L6-v2, a real BERT-style model; it reads Chinese too."
)
ATTENTION_HELP = N_(
    "encoder: the encoder's self-attention over the English pieces · decoder: the "
    "decoder's masked self-attention over the French written so far · cross: cross "
    "attention from each French piece to the English ones (decoder → encoder)"
)
DEFAULT_TEXT = "A black dog is running on the green grass."
SENTENCE_BOX = TextBox(ENCODER_CHARS, N_("The sentence is empty: type something and press Enter."))


def controls_ui() -> tuple[ModelSettings, str]:
    """The model's settings and the cleaned sentence ('' when there is nothing to run)."""
    if not classroom_mode():
        return model_ui(), encoder_sentence_ui()
    row = control_row([6, 4])
    settings = model_ui(row)
    with row.columns[0]:
        return settings, encoder_sentence_ui()


def model_ui(row: ControlRow | None = None) -> ModelSettings:
    """Model family, and for it the checkpoint and attention or the encoder's name. In
    classroom mode's ``row`` the family is in the row, the rest in its settings popover."""
    check_model_param("mh_model", list(SOURCES))
    if row is not None:  # a list, not two long buttons: the row's column is narrow
        picked = choice_ui(row.columns[1].selectbox, _("Model"), SOURCES, key="mh_model")
        with row.more:
            return _model_details(picked or next(iter(SOURCES)), (st, st, st))
    source = segmented_ui(st, _("Model"), SOURCES, key="mh_model", help=_(MODEL_HELP))
    columns = st.columns([2, 4, 2]) if source == "transformer" else (st, st, st)
    return _model_details(source, tuple(columns))


def _model_details(source: str, columns: tuple) -> ModelSettings:
    """The checkpoint, attention and beam (``columns``: where each goes), or the encoder."""
    if source == "transformer":
        c1, c2, c3 = columns
        check_model_param("mh_pos", POSITIONALS)
        positional = (
            choice_ui(c1.selectbox, _("Positional encoding"), POSITIONAL_LABELS, key="mh_pos")
            or POSITIONALS[0]
        )
        attention = segmented_ui(
            c2, _("Attention"), ATTENTION_CHOICES, key="mh_kind", help=_(ATTENTION_HELP)
        )
        check_number_param("mh_beam", 1, MULTI_HEAD_BEAM)
        beam = c3.slider(
            _("Beam (1 = greedy)"), 1, MULTI_HEAD_BEAM, 1, key="mh_beam", bind="query-params"
        )
        return ModelSettings(source, positional, attention, int(beam))
    return ModelSettings(source, hf_name=encoder_ui())


def encoder_ui() -> str:
    """The pretrained encoder, picked by name among those the server offers (never a path: a
    link naming anything else gets the default and a note listing what is offered)."""
    offered = offered_encoders()
    check_choice_param(
        "mh_hf",
        offered,
        _(
            "This link asks for an encoder this server does not "
            "offer, so the page uses {default}. Offered: {offered}."
        ).format(default=offered[0], offered=", ".join(offered)),
    )
    return st.selectbox(
        _("Pretrained encoder"),
        offered,
        key="mh_hf",
        bind="query-params",
        help=_(
            "all-MiniLM-L6-v2 ships in a pip package; whoever runs the server can offer more "
            "(one folder each in ATLAS_ENCODERS_DIR)."
        ),
    )


def encoder_sentence_ui() -> str:
    """The sentence box (Enter runs it; kept in the URL); returns the cleaned text."""
    raw = st.text_input(
        _("Sentence"),
        value=DEFAULT_TEXT,
        key="mh_text",
        bind="query-params",
        placeholder=_("Type a sentence and press Enter"),
        help=SENTENCE_BOX.help(),
    )
    sentence = read_text(SENTENCE_BOX, raw)
    return sentence.text if show_text_notices(sentence) else ""  # '' after the empty-box warning
