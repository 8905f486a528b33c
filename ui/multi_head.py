"""Streamlit glue for the Multi-head attention page: cached runs of the Transformer translators and
the pretrained encoder (loaded by :mod:`ui.loaders`), and the pure ``*_view`` functions that turn
a result into what the page draws (weights in the BertViz layout plus token labels and groups).

Runs are cached with ``st.cache_data`` on the weights' identity (see :mod:`serve.cache`): the
Transformer's (folder, device, weights-file stamp) and the pretrained encoder's (name, device).
Every run goes through the one guard (:func:`ui.guard.guarded_ui`): a refused input is a message.

Text in any script: a piece the pretrained encoder's vocabulary lacks (most Chinese characters,
for all-MiniLM-L6-v2) is its ``[UNK]`` token; the views label it with the text it stands for
(``[UNK:注]``, :func:`unknown_labels`) and say how many there are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import streamlit as st
import torch

from i18n import N_, _, current_language
from models.analysis.aggregate import GROUPS, hide_keys, token_groups
from models.transformer.pretrained import DEFAULT_MODEL, EncoderAttention
from models.transformer.translator import TransformerAttention
from serve.cache import MB, bounded_cache
from ui.downloads import download_text
from ui.guard import guarded_ui
from ui.loaders import cached_model, cached_transformer, load_pretrained, model_key, spinner
from ui.sidebar import current_device

POSITIONAL_LABELS = {"sinusoidal": N_("sinusoidal"), "learned": N_("learned")}  # id -> label
POSITIONALS = tuple(POSITIONAL_LABELS)
ATTENTION_TITLES = {  # id -> what the charts call it (English, also the downloaded JSON's "attention")
    "encoder": N_("encoder self-attention"),
    "decoder": N_("decoder self-attention (masked)"),
    "cross": N_("cross attention (decoder → encoder)"),
}
ATTENTION_CHOICES = {"encoder": N_("encoder"), "decoder": N_("decoder"), "cross": N_("cross")}
# summaries of a layer's heads: id (also in the URL) -> label; rollout needs self-attention
AGGREGATES = {
    "mean over heads": N_("mean over heads"),
    "max over heads": N_("max over heads"),
    "rollout up to this layer": N_("rollout up to this layer"),
}
# GROUPS name (also the id in the URL) -> its label; "[CLS] / <s>" is tokens only
GROUP_LABELS = dict(
    zip(
        GROUPS,
        ("[CLS] / <s>", N_("[SEP] / </s> / other special"), N_("punctuation"), N_("first token")),
        strict=True,
    )
)
UNKNOWN = "[UNK]"
SPAN_CHARS = 6  # an unknown piece's label shows at most this many characters of its text
SHOWN_IN = "_mh_shown_in:"  # + key: the language a multi-choice widget was last drawn in


# ------------------------------------------------------------------ cached runs


# 16 translations: 3 attentions x (L, H, T, T) float32, about 3 MB each at the 100-piece limit
@st.cache_data(max_entries=16, show_spinner=False)
def run_transformer(
    folder: str, device: str, stamp: float, text: str, beam: int
) -> TransformerAttention:
    """Translate ``text`` with the weights (folder, device, stamp); a copy per session."""
    with torch.inference_mode():
        return cached_model("transformer", folder, device, stamp).translate(text, beam=beam)


# (6, 12, T, T) float32 for MiniLM: 4.7 MB at 128 pieces, 75 MB at 512; 16 runs, 96 MB at most
# (one run at 512 pieces beside smaller ones; a larger bound lets the process's peak grow with it)
@bounded_cache(max_entries=16, max_bytes=96 * MB)
def run_pretrained(name: str, device: str, text: str) -> EncoderAttention:
    """Every attention of the encoder ``name`` on ``text``; shared read-only (serve.cache)."""
    with torch.inference_mode():
        return cached_model("pretrained", name, device, 0.0).attend(text)


def transformer_translation_ui(
    positional: str, text: str, beam: int
) -> TransformerAttention | None:
    """Run the loaded Transformer on ``text`` with a spinner; None when the model is missing or
    refused the text (with a message)."""
    if cached_transformer(positional) is None:
        return None
    key = model_key(f"transformer-{positional}")
    with st.spinner(_("Translating…")):
        return guarded_ui(lambda: run_transformer(*key, text, beam))


def encode_ui(name: str, text: str) -> EncoderAttention | None:
    """Run the pretrained encoder on ``text`` with a spinner; None when it cannot be loaded or
    refused the text (with a message)."""
    encoder = load_pretrained(name)
    if encoder is None:
        return None
    with spinner(_("Running the encoder…")):  # none inside a cached function
        model = name.strip() or DEFAULT_MODEL
        return guarded_ui(lambda: run_pretrained(model, current_device(), text))


# ------------------------------------------------------------------ views (pure)


@dataclass(frozen=True)
class HeadsView:
    """What the page draws for one attention (built during a script run, in its language).

    weights: (L, H, T_q, T_k), rows sum to 1 (or 0 for a row whose keys were all hidden).
    query_tokens (T_q) / key_tokens (T_k): the axis labels.
    key_groups: GROUPS name -> (T_k,) bool mask (special, punctuation, first token).
    self_attention: queries and keys are the same tokens (rollout applies).
    hidden: the groups removed from the keys (and, for self-attention, the queries).
    notices: what was cut; unknown_note: how many pieces are the vocabulary's [UNK] (or "").
    """

    attention: str  # English: the downloaded JSON's "attention"
    title: str  # the attention in the session's language, for the charts' titles
    weights: np.ndarray
    query_tokens: list[str]
    key_tokens: list[str]
    key_groups: dict[str, np.ndarray]
    self_attention: bool
    notices: list[str] = field(default_factory=list)
    hidden: tuple[str, ...] = ()
    unknown_note: str = ""


def transformer_view(result: TransformerAttention, attention: str) -> HeadsView:
    """The encoder self, decoder self or cross attention of one translation."""
    src, dec_in, tgt = result.source_tokens, result.decoder_input_tokens, result.target_tokens
    weights, queries, keys = {
        "encoder": (result.encoder_self, src, src),
        "decoder": (result.decoder_self, dec_in, dec_in),
        "cross": (result.cross, tgt, src),
    }[attention]
    notices = []
    if result.truncated:
        notices.append(
            _(
                "The sentence has {n} pieces; the model reads at most {limit}, so the rest was cut."
            ).format(n=result.n_source_pieces, limit=len(src) - 1)
        )
    return HeadsView(
        ATTENTION_TITLES[attention],
        _(ATTENTION_TITLES[attention]),
        weights,
        list(queries),
        list(keys),
        token_groups(keys),
        self_attention=attention != "cross",
        notices=notices,
    )


def unknown_labels(tokens: Sequence[str], spans: Sequence[str]) -> list[str]:
    """Token labels where each ``[UNK]`` piece names the text it stands for: ``[UNK:注]`` (at
    most SPAN_CHARS characters, then "…"). Tokens as they are when ``spans`` do not match."""
    if len(spans) != len(tokens):
        return list(tokens)
    labels = []
    for token, span in zip(tokens, spans, strict=True):
        text = span.strip()
        if token == UNKNOWN and text:
            text = text if len(text) <= SPAN_CHARS else text[:SPAN_CHARS] + "…"
            token = f"[UNK:{text}]"
        labels.append(token)
    return labels


def pretrained_view(result: EncoderAttention) -> HeadsView:
    """The self-attention of a pretrained encoder; unknown pieces labelled with their text."""
    notices, note = [], ""
    if result.truncated:
        notices.append(
            _(
                "The text has {n} word pieces; the encoder reads at most {limit}, so it was cut to "
                "the first {limit}."
            ).format(n=result.n_pieces, limit=result.max_pieces)
        )
    unknown = sum(token == UNKNOWN for token in result.tokens)
    if unknown:
        note = _(
            "{model} reads {n} of these {total} pieces as [UNK], its one token for anything "
            "its vocabulary lacks, so it cannot tell them apart. The charts label each with "
            "the text it stands for, as [UNK:…]."
        ).format(model=result.model, n=unknown, total=len(result.tokens))
    labels = unknown_labels(result.tokens, result.spans)
    return HeadsView(
        f"{result.model} self-attention",
        _("{model} self-attention").format(model=result.model),
        result.attentions,
        labels,
        list(labels),
        token_groups(result.tokens, result.special),
        self_attention=True,
        notices=notices,
        unknown_note=note,
    )


def hide_groups(view: HeadsView, groups: list[str]) -> HeadsView:
    """Remove the keys in ``groups`` (and those query rows, for self-attention) and re-normalise
    every row over the remaining keys. Returns ``view`` itself when nothing is hidden."""
    if not groups:
        return view
    unknown = set(groups) - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown token groups {sorted(unknown)}; choose from {GROUPS}")  # a bug
    hidden = np.zeros(len(view.key_tokens), dtype=bool)
    for name in groups:
        hidden |= view.key_groups[name]
    if hidden.all():
        raise ValueError(_("Every token belongs to a hidden group: nothing would be left."))
    weights = hide_keys(view.weights, hidden).astype(np.float32)  # (L, H, T_q, K)
    queries = view.query_tokens
    if view.self_attention:
        weights, queries = (
            weights[:, :, ~hidden],
            [t for t, h in zip(queries, hidden, strict=True) if not h],
        )
    keys = [t for t, h in zip(view.key_tokens, hidden, strict=True) if not h]
    groups_left = {name: mask[~hidden] for name, mask in view.key_groups.items()}
    return replace(
        view,
        weights=weights,
        query_tokens=queries,
        key_tokens=keys,
        key_groups=groups_left,
        hidden=tuple(groups),
    )


# ------------------------------------------------------------------ downloads


def download_view_json(view: HeadsView, layer: int, filename: str, key: str) -> None:
    """A JSON download of the chosen layer's heads (H, T_q, T_k) with the tokens, built on click."""
    import json

    def build() -> str:
        data = {
            "attention": view.attention,
            "layer": layer + 1,
            "query_tokens": view.query_tokens,
            "key_tokens": view.key_tokens,
            "hidden_groups": list(view.hidden),
            "weights": np.round(view.weights[layer], 5).tolist(),
        }
        return json.dumps(data, ensure_ascii=False)

    download_text(
        _("Download JSON (this layer, all heads)"), build, filename, "application/json", key=key
    )


# ------------------------------------------------------------------ a multiple choice


def multi_choice_ui(
    widget: Callable[..., Any],
    label: str,
    options: Sequence[str],
    *,
    key: str,
    default: Sequence[str],
    format_func: Callable[[str], str],
    **kwargs: Any,
) -> list[str]:
    """``widget`` (``st.multiselect``, ``st.pills``) over the ids ``options``, shown through
    ``format_func`` (translated), kept in the URL by id as ``?key=a&key=b`` in every language
    (``?key=`` for none; left out when it is ``default``). A bound widget would write the shown
    labels into the URL instead (see :mod:`ui.choices`). A link's unknown ids are dropped (all of
    them: ``default``); other options (another model) start again from ``default``. Returns the
    chosen ids."""
    options, default = list(options), list(default)
    shown, last = (current_language(), tuple(options)), st.session_state.get(SHOWN_IN + key)
    if key not in st.session_state:
        asked = st.query_params.get_all(key)
        chosen = [a for a in dict.fromkeys(asked) if a in options]
        st.session_state[key] = chosen if chosen or asked == [""] else default
    elif last is not None and last[1] != shown[1]:
        st.session_state[key] = default
    elif last != shown:  # a new language: resending the value makes the browser show new labels
        st.session_state[key] = list(st.session_state[key])
    st.session_state[SHOWN_IN + key] = shown
    value = list(widget(label, options, key=key, format_func=format_func, **kwargs) or [])
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get_all(key) != (value or [""]):
        st.query_params[key] = value or ""
    return value


def group_label(name: str) -> str:
    """A GROUPS name as the page shows it, in the session's language."""
    return _(GROUP_LABELS[name])
