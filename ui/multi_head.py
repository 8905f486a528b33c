"""Streamlit glue for the Multi-head attention page: cached loaders and runs of the Transformer
translators and the pretrained encoder, and the pure ``*_view`` functions that turn a result into
what the page draws (weights in the BertViz layout plus token labels and groups).

Loaders return models in eval mode, shared by every session (never mutated); runs are cached per
(model, text) as shared, read-only results. Checkpoints are read from ``$ATLAS_CHECKPOINTS``
(default: ``checkpoints/``), like the translation pages.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import streamlit as st
import torch

from models.analysis.aggregate import GROUPS, hide_keys, token_groups
from models.rnn.checkpoint import CHECKPOINT_ROOT, CheckpointError
from models.rnn.translator import Translation
from models.transformer.checkpoint import transformer_rebuild_command
from models.transformer.pretrained import (
    DEFAULT_MODEL,
    EncoderAttention,
    PretrainedEncoder,
    PretrainedModelError,
)
from models.transformer.translator import TransformerAttention, TransformerTranslator
from ui.downloads import matrix_csv
from ui.runtime import freeze_long_lived
from ui.sidebar import current_device
from ui.text import escape_markdown

CHECKPOINTS_ENV = "ATLAS_CHECKPOINTS"  # the same variable as the translation pages
POSITIONALS = ("sinusoidal", "learned")
KINDS = {
    "encoder": "encoder self-attention",
    "decoder": "decoder self-attention (masked)",
    "cross": "cross attention (decoder → encoder)",
}
MAX_CHARS = 5000


# ------------------------------------------------------------------ loaders


def transformer_folder(positional: str) -> Path:
    """``$ATLAS_CHECKPOINTS/transformer-<positional>`` (default root: ``checkpoints/``)."""
    root = Path(os.environ.get(CHECKPOINTS_ENV) or CHECKPOINT_ROOT)
    return root / f"transformer-{positional}"


def _stamp(folder: Path) -> float:
    """Modification time of the weights (0 when absent): a new file means a fresh load."""
    try:
        return (folder / "model.safetensors").stat().st_mtime
    except OSError:
        return 0.0


@st.cache_resource(show_spinner="Loading the Transformer…", max_entries=8)
def _cached_transformer(folder: str, device: str, stamp: float) -> TransformerTranslator:
    """One translator per (folder, device, weights version), in eval mode, shared by sessions."""
    model = TransformerTranslator.load(Path(folder), device)
    freeze_long_lived(again=True)  # cached for the life of the process
    return model


def load_transformer_ui(positional: str) -> TransformerTranslator | None:
    """The Transformer with ``positional`` encoding, or None after a box naming the command."""
    folder = transformer_folder(positional)
    try:
        return _cached_transformer(str(folder), current_device(), _stamp(folder))
    except CheckpointError as exc:
        st.error(
            f"The **transformer-{positional}** model is not available yet, so this view is off; "
            f"the pretrained encoder still works.\n\n{escape_markdown(str(exc))}",
            icon=":material/model_training:",
        )
        st.code(transformer_rebuild_command(f"transformer-{positional}"), language="bash")
        return None


@st.cache_resource(show_spinner="Loading the pretrained encoder…", max_entries=4)
def _cached_pretrained(name: str, device: str) -> PretrainedEncoder:
    """One encoder per (name, device), eval mode, shared by sessions (errors are not cached)."""
    encoder = PretrainedEncoder.load(name, device)
    freeze_long_lived(again=True)  # transformers imports its modules lazily, on load
    return encoder


def load_pretrained_ui(name: str) -> PretrainedEncoder | None:
    """The pretrained encoder ``name`` (default all-MiniLM-L6-v2), or None after an error box."""
    try:
        return _cached_pretrained(name.strip() or DEFAULT_MODEL, current_device())
    except PretrainedModelError as exc:
        st.error(escape_markdown(str(exc)), icon=":material/error:")
        return None


# ------------------------------------------------------------------ cached runs


@st.cache_resource(max_entries=16, show_spinner=False)
def run_transformer(
    folder: str, device: str, stamp: float, text: str, beam: int
) -> TransformerAttention:
    """Translate ``text`` (shared, read-only result)."""
    with torch.inference_mode():
        return _cached_transformer(folder, device, stamp).translate(text, beam=beam)


@st.cache_resource(max_entries=16, show_spinner=False)
def run_pretrained(name: str, device: str, text: str) -> EncoderAttention:
    """Every attention of the encoder on ``text`` (shared, read-only result)."""
    with torch.inference_mode():
        return _cached_pretrained(name, device).attend(text)


def translate_ui(positional: str, text: str, beam: int) -> TransformerAttention | None:
    """Run the loaded Transformer on ``text`` with a spinner; None when the model is missing."""
    if load_transformer_ui(positional) is None:
        return None
    folder = transformer_folder(positional)
    with st.spinner("Translating…"):
        return run_transformer(str(folder), current_device(), _stamp(folder), text, beam)


def encode_ui(name: str, text: str) -> EncoderAttention | None:
    """Run the pretrained encoder on ``text`` with a spinner; None when it cannot be loaded."""
    encoder = load_pretrained_ui(name)
    if encoder is None:
        return None
    with st.spinner("Running the encoder…"):
        return run_pretrained(name.strip() or DEFAULT_MODEL, current_device(), text)


# ------------------------------------------------------------------ views (pure)


@dataclass(frozen=True)
class HeadsView:
    """What the page draws for one attention kind.

    weights: (L, H, T_q, T_k), rows sum to 1 (or 0 for a row whose keys were all hidden).
    query_tokens (T_q) / key_tokens (T_k): the axis labels.
    key_groups: GROUPS name -> (T_k,) bool mask (special, punctuation, first token).
    self_attention: queries and keys are the same tokens (rollout applies).
    hidden: the groups removed from the keys (and, for self-attention, the queries).
    """

    kind: str
    weights: np.ndarray
    query_tokens: list[str]
    key_tokens: list[str]
    key_groups: dict[str, np.ndarray]
    self_attention: bool
    notices: list[str] = field(default_factory=list)
    hidden: tuple[str, ...] = ()


def transformer_view(result: TransformerAttention, kind: str) -> HeadsView:
    """The encoder self, decoder self or cross attention of one translation."""
    src, dec_in, tgt = result.source_tokens, result.decoder_input_tokens, result.target_tokens
    weights, queries, keys = {
        "encoder": (result.encoder_self, src, src),
        "decoder": (result.decoder_self, dec_in, dec_in),
        "cross": (result.cross, tgt, src),
    }[kind]
    notices = []
    if result.truncated:
        notices.append(
            f"The sentence has {result.n_source_pieces} pieces; the model reads at most "
            f"{len(src) - 1}, so the rest was cut."
        )
    return HeadsView(KINDS[kind], weights, list(queries), list(keys), token_groups(keys),
                     self_attention=kind != "cross", notices=notices)  # fmt: skip


def pretrained_view(result: EncoderAttention) -> HeadsView:
    """The self-attention of a pretrained encoder."""
    notices = []
    if result.truncated:
        notices.append(
            f"The text has {result.n_pieces} word pieces; the encoder reads at most "
            f"{result.max_pieces}, so it was cut to the first {result.max_pieces}."
        )
    return HeadsView(f"{result.model} self-attention", result.attentions, list(result.tokens),
                     list(result.tokens), token_groups(result.tokens, result.special),
                     self_attention=True, notices=notices)  # fmt: skip


def hide_groups(view: HeadsView, groups: list[str]) -> HeadsView:
    """Remove the keys in ``groups`` (and those query rows, for self-attention) and re-normalise
    every row over the remaining keys. Returns ``view`` itself when nothing is hidden."""
    if not groups:
        return view
    unknown = set(groups) - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown token groups {sorted(unknown)}; choose from {GROUPS}")
    hidden = np.zeros(len(view.key_tokens), dtype=bool)
    for name in groups:
        hidden |= view.key_groups[name]
    if hidden.all():
        raise ValueError("every token belongs to a hidden group: nothing would be left")
    weights = hide_keys(view.weights, hidden).astype(np.float32)  # (L, H, T_q, K)
    queries = view.query_tokens
    if view.self_attention:
        weights, queries = (
            weights[:, :, ~hidden],
            [t for t, h in zip(queries, hidden, strict=True) if not h],
        )
    keys = [t for t, h in zip(view.key_tokens, hidden, strict=True) if not h]
    groups_left = {name: mask[~hidden] for name, mask in view.key_groups.items()}
    return replace(view, weights=weights, query_tokens=queries, key_tokens=keys,
                   key_groups=groups_left, hidden=tuple(groups))  # fmt: skip


def bahdanau_alignment(text: str, target: str) -> Translation | None:
    """The RNN Bahdanau model forced through ``target`` (the Transformer's translation), so both
    alignments share their French tokens; None when that checkpoint is not there."""
    from ui.translation import load_translator  # noqa: PLC0415 - only the cross view needs it

    translator = load_translator("bahdanau", quiet=True)
    if translator is None or not target.strip():
        return None
    return translator.force(text, target)


# ------------------------------------------------------------------ downloads


def download_matrix_csv(
    matrix: np.ndarray, rows: list[str], cols: list[str], filename: str, key: str
) -> None:
    """A CSV download of one labelled matrix, built only when clicked (512 x 512 stays cheap)."""
    st.download_button(
        "Download CSV", lambda: matrix_csv(matrix, rows, cols), file_name=filename,
        mime="text/csv", key=key, icon=":material/download:", on_click="ignore",
    )  # fmt: skip


def download_view_json(view: HeadsView, layer: int, filename: str, key: str) -> None:
    """A JSON download of the chosen layer's heads (H, T_q, T_k) with the tokens, built on click."""
    import json  # noqa: PLC0415

    def build() -> str:
        data = {"kind": view.kind, "layer": layer + 1, "query_tokens": view.query_tokens,
                "key_tokens": view.key_tokens, "hidden_groups": list(view.hidden),
                "weights": np.round(view.weights[layer], 5).tolist()}  # fmt: skip
        return json.dumps(data, ensure_ascii=False)

    st.download_button(
        "Download JSON (this layer, all heads)", build, file_name=filename,
        mime="application/json", key=key, icon=":material/download:", on_click="ignore",
    )  # fmt: skip
