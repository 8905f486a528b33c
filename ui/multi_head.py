"""Streamlit glue for the Multi-head attention page: cached runs of the Transformer translators and
the pretrained encoder (loaded by :mod:`ui.loaders`), and the pure ``*_view`` functions that turn
a result into what the page draws (weights in the BertViz layout plus token labels and groups).

Runs are cached with ``st.cache_data`` on the weights' identity (see :mod:`ui.cache`): the
Transformer's (folder, device, weights-file stamp) and the pretrained encoder's (name, device).
Every run goes through the one guard (:func:`ui.guard.guarded_ui`): a refused input is a message.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import streamlit as st
import torch

from models.analysis.aggregate import GROUPS, hide_keys, token_groups
from models.transformer.pretrained import DEFAULT_MODEL, EncoderAttention
from models.transformer.translator import TransformerAttention
from ui.downloads import matrix_csv
from ui.guard import guarded_ui
from ui.loaders import cached_model, load_pretrained, load_transformer, model_key
from ui.sidebar import current_device

POSITIONALS = ("sinusoidal", "learned")
KINDS = {
    "encoder": "encoder self-attention",
    "decoder": "decoder self-attention (masked)",
    "cross": "cross attention (decoder → encoder)",
}
MAX_CHARS = 5000


# ------------------------------------------------------------------ cached runs


# 16 translations: 3 kinds x (L, H, T, T) float32, about 3 MB each at the 100-piece limit
@st.cache_data(max_entries=16, show_spinner=False)
def run_transformer(
    folder: str, device: str, stamp: float, text: str, beam: int
) -> TransformerAttention:
    """Translate ``text`` with the weights (folder, device, stamp); a copy per session."""
    with torch.inference_mode():
        return cached_model("transformer", folder, device, stamp).translate(text, beam=beam)


# 8 runs: (6, 12, T, T) float32 for MiniLM, up to 75 MB each at 512 pieces (600 MB at most)
@st.cache_data(max_entries=8, show_spinner=False)
def run_pretrained(name: str, device: str, text: str) -> EncoderAttention:
    """Every attention of the encoder ``name`` on ``text``; a copy per session."""
    with torch.inference_mode():
        return cached_model("pretrained", name, device, 0.0).attend(text)


def translate_ui(positional: str, text: str, beam: int) -> TransformerAttention | None:
    """Run the loaded Transformer on ``text`` with a spinner; None when the model is missing or
    refused the text (with a message)."""
    if load_transformer(positional) is None:
        return None
    key = model_key(f"transformer-{positional}")
    with st.spinner("Translating…"):
        return guarded_ui(lambda: run_transformer(*key, text, beam))


def encode_ui(name: str, text: str) -> EncoderAttention | None:
    """Run the pretrained encoder on ``text`` with a spinner; None when it cannot be loaded or
    refused the text (with a message)."""
    encoder = load_pretrained(name)
    if encoder is None:
        return None
    with st.spinner("Running the encoder…"):
        model = name.strip() or DEFAULT_MODEL
        return guarded_ui(lambda: run_pretrained(model, current_device(), text))


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
