"""Cached model loaders for every page, and the one "model missing" message.

Every trained model is loaded through :func:`cached_model`, keyed on (family, folder, device,
weights-file stamp): a retrained checkpoint gets a fresh load, and each model is shared, in eval
mode, by every session (never mutated). Checkpoints are read from ``$ATLAS_CHECKPOINTS`` (see
:mod:`models.checkpoints`), so tests can point the pages at tiny random-weight models. A missing or
damaged checkpoint shows which model and the command that rebuilds it; the path and the loader's
exception go to the server log, and the rest of the page keeps working.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import streamlit as st
import torch

from i18n import N_, _
from models.captioning.checkpoint import load_captioner
from models.captioning.image_encoder import load_encoder
from models.captioning.inference import Captioner
from models.checkpoints import WEIGHTS, Card, CheckpointError, checkpoint_folder, read_card
from models.rnn.seq2seq import ATTENTION_NAMES
from models.rnn.translator import Translator
from models.tokenizer import SubwordTokenizer
from models.transformer.pretrained import DEFAULT_MODEL, PretrainedEncoder, PretrainedModelError
from models.transformer.translator import TransformerTranslator
from serve.runtime import freeze_long_lived
from serve.streamlit_private import in_cached_function
from ui.sidebar import current_device
from ui.text import escape_markdown

log = logging.getLogger(__name__)
CAPTION_MODELS = ("caption-soft", "caption-hard")
ModelKey = tuple[str, str, float]  # (folder, device, weights-file stamp)
PRETRAINED_STILL_WORKS = N_("The pretrained encoder still works.")


def _captioner(folder: str, device: str) -> Captioner:
    """Decoder and vocabulary from ``folder`` with the shared frozen image encoder."""
    decoder, vocab = load_captioner(folder, device)
    encoder = cached_model("encoder", "efficientnet-lite0", device, 0.0)
    return Captioner(encoder, decoder, vocab, device)


# family -> (folder or model name, device) -> the model in eval mode
LOADERS: dict[str, Callable[[str, str], object]] = {
    "seq2seq": Translator.load,
    "transformer": TransformerTranslator.load,
    "caption": _captioner,
    "encoder": lambda _name, device: load_encoder(device),
    "pretrained": PretrainedEncoder.load,
}


def weights_stamp(folder: Path) -> float:
    """Modification time of the weights (0 when absent): a new file means a fresh load."""
    try:
        return (folder / WEIGHTS).stat().st_mtime
    except OSError:
        return 0.0


def model_key(name: str, device: str | None = None) -> ModelKey:
    """(folder, device, stamp) of checkpoint ``name`` on ``device`` (default: the sidebar's)."""
    folder = checkpoint_folder(name)
    return str(folder), device or current_device(), weights_stamp(folder)


class Checkpointed(Protocol):
    """A loaded translator: its tokenizers were read from its checkpoint folder."""

    src_tok: SubwordTokenizer

    @property
    def device(self) -> torch.device: ...


def weights_id(model: Checkpointed) -> ModelKey:
    """The identity of a loaded ``model``'s weights, as :func:`model_key` gives it for a
    checkpoint name: the folder its source tokenizer was read from (the checkpoint folder), the
    device it runs on, and the stamp of that folder's weights file. What a result cache is keyed on
    (:mod:`serve.cache`)."""
    folder = model.src_tok.model_file.parent
    return str(folder), str(model.device), weights_stamp(folder)


def spinner(text: str) -> contextlib.AbstractContextManager:
    """``st.spinner(text)`` for a cached call, with ``text`` in the session's language (a cache
    decorator's ``show_spinner`` text is fixed at import). Like Streamlit's own cache spinners it
    shows only after 0.5 s (a cache hit shows none) and never inside another cached function."""
    return contextlib.nullcontext() if in_cached_function.get() else st.spinner(text)


def cached_model(family: str, folder: str, device: str, stamp: float) -> object:
    """One model per (family, folder, device, weights version), in eval mode, shared by sessions.
    Raises CheckpointError (or PretrainedModelError), worded in the session's language; errors
    are not cached."""
    with spinner(_("Loading the model…")):
        return _cached_model(family, folder, device, stamp)


@st.cache_resource(show_spinner=False, max_entries=32)
def _cached_model(family: str, folder: str, device: str, stamp: float) -> object:
    """:func:`cached_model` without the spinner (the cache itself)."""
    model = LOADERS[family](folder, device)
    freeze_long_lived(again=True)  # cached for the life of the process
    return model


def missing_model_ui(error: CheckpointError, note: str = "") -> None:
    """An error box naming the missing model (and ``note``: what still works, translated), then
    the command that rebuilds it. The path and the loader's exception go to the log only."""
    log.warning("checkpoint %s unavailable: %s", error.name, error.detail or error.reason)
    off = _("The **{name}** model is not available yet, so this part of the page is off.").format(
        name=error.name
    )
    st.error(
        " ".join(part for part in (off, error.reason, note) if part),
        icon=":material/model_training:",
    )
    st.code(error.command, language="bash", wrap_lines=True)


def load_model(family: str, name: str, *, quiet: bool = False, note: str = "") -> object | None:
    """The checkpoint ``name`` of ``family`` on the sidebar's device, or None after
    :func:`missing_model_ui` (nothing shown when ``quiet``)."""
    try:
        return cached_model(family, *model_key(name))
    except CheckpointError as exc:
        if not quiet:
            missing_model_ui(exc, note)
        else:
            log.info("checkpoint %s unavailable: %s", exc.name, exc.detail or exc.reason)
        return None


def cached_translator(model: str, *, quiet: bool = False) -> Translator | None:
    """The RNN translator ``seq2seq-<model>``, or None after the missing-model box."""
    return load_model("seq2seq", f"seq2seq-{model}", quiet=quiet)


def cached_transformer(positional: str, *, quiet: bool = False) -> TransformerTranslator | None:
    """The Transformer ``transformer-<positional>``, or None after the missing-model box."""
    note = _(PRETRAINED_STILL_WORKS)
    return load_model("transformer", f"transformer-{positional}", quiet=quiet, note=note)


def cached_captioner(name: str, *, quiet: bool = False) -> Captioner | None:
    """The captioner ``name`` (caption-soft or caption-hard), or None after the missing-model box."""
    return load_model("caption", name, quiet=quiet)


def cached_captioners() -> dict[str, Captioner]:
    """The captioners that load (name -> captioner); a missing-model box for each of the others."""
    models = {name: cached_captioner(name) for name in CAPTION_MODELS}
    return {name: model for name, model in models.items() if model is not None}


def load_pretrained(name: str) -> PretrainedEncoder | None:
    """The pretrained encoder ``name`` (default all-MiniLM-L6-v2), or None after an error box."""
    try:
        return cached_model("pretrained", name.strip() or DEFAULT_MODEL, current_device(), 0.0)
    except PretrainedModelError as exc:
        st.error(escape_markdown(str(exc)), icon=":material/error:")
        return None


def card_of(name: str) -> Card | None:
    """The card of checkpoint ``name``, or None when it has none (training not finished) or a
    damaged one (logged)."""
    try:
        return read_card(name)
    except CheckpointError as exc:
        log.info("no card for %s: %s", name, exc.detail or exc.reason)
        return None


def model_cards(models: tuple[str, ...] = ATTENTION_NAMES) -> dict[str, Card]:
    """The cards of the RNN translators that have one (model -> card)."""
    cards = {model: card_of(f"seq2seq-{model}") for model in models}
    return {model: card for model, card in cards.items() if card is not None}
