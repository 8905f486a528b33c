"""Summaries of multi-head attention over heads and layers, and the weight on special tokens.

- Mean and max over heads: ``(L, H, T_q, T_k) -> (L, T_q, T_k)``. The mean keeps rows summing to 1;
  the max does not (it shows, per cell, the strongest head).
- Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", section 3):
  each layer's head-averaged weights get the residual connection as an identity,
  ``A_l = 0.5 W_l + 0.5 I``, rows are re-normalised, and the layers are multiplied from the bottom:
  ``rollout_l = A_l A_{l-1} ... A_1``. Row i of the top layer's rollout says how much of token i's
  final representation flows from each input token, if information mixes linearly.
- Special tokens (Clark et al. 2019, "What Does BERT Look At?", section 3: much of BERT's attention
  sits on [CLS], [SEP] and punctuation): the share of each head's weight on such keys, and a view
  with them removed and every row re-normalised over the remaining keys — which changes the numbers.

Pure numpy; every function takes and returns arrays in the BertViz layout.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np

START_PIECES = frozenset({"[CLS]", "<s>"})  # sequence-start markers (BERT, RoBERTa/our decoder)
END_PIECES = frozenset({"[SEP]", "</s>"})  # separators / sequence ends
SPECIAL_PIECES = START_PIECES | END_PIECES | {"[PAD]", "[MASK]", "[UNK]", "<pad>", "<unk>"}
GROUPS = ("[CLS] / <s>", "[SEP] / </s> / other special", "punctuation", "first token")


def _check(att: np.ndarray, ndim: int = 4) -> np.ndarray:
    """Float weights as they are (float32 stays float32: a 6 x 12 x 512 x 512 copy to float64 is
    150 MB and a quarter of a second), anything else as float64."""
    att = np.asarray(att)
    if att.dtype not in (np.float32, np.float64):
        att = att.astype(np.float64)
    if att.ndim != ndim:
        raise ValueError(f"weights must have {ndim} dimensions (L, H, T_q, T_k), got {att.shape}")
    return att


def head_mean(att: np.ndarray) -> np.ndarray:
    """(L, H, T_q, T_k) -> (L, T_q, T_k), the average head; rows still sum to 1."""
    return _check(att).mean(axis=1)


def head_max(att: np.ndarray) -> np.ndarray:
    """(L, H, T_q, T_k) -> (L, T_q, T_k), the strongest head per cell (rows need not sum to 1)."""
    return _check(att).max(axis=1)


def rollout(att: np.ndarray, residual: float = 0.5) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020): (L, H, T, T) self-attention -> (L, T, T), where
    entry l is ``A_l ... A_1`` with ``A_l = (1 - residual) mean_h W_l + residual I``, rows
    re-normalised. Each row of each entry sums to 1."""
    mean = head_mean(att)  # (L, T, T)
    n_layers, T, T_k = mean.shape
    if T != T_k:
        raise ValueError(f"rollout needs self-attention (T x T), got {T} x {T_k}")
    if not 0.0 <= residual <= 1.0:
        raise ValueError(f"residual must be in [0, 1], got {residual}")
    out = np.empty_like(mean)
    flow = np.eye(T)
    for layer in range(n_layers):
        a = (1.0 - residual) * mean[layer] + residual * np.eye(T)  # (T, T)
        a = a / a.sum(axis=-1, keepdims=True)
        flow = a @ flow  # (T, T)
        out[layer] = flow
    return out


def is_punctuation(token: str) -> bool:
    """True for a piece made only of punctuation once the word-piece marks (##, ▁, Ġ) are removed."""
    core = token.removeprefix("##").lstrip("\u2581\u0120")
    return bool(core) and all(unicodedata.category(c).startswith("P") for c in core)


def token_groups(
    tokens: Sequence[str], special: Sequence[bool] | None = None
) -> dict[str, np.ndarray]:
    """Boolean masks (T,) for the groups of GROUPS: start markers ([CLS], <s>); separators and
    ends ([SEP], </s>) with any other special token (the tokenizer's ``special`` flags or, if None,
    the known pieces); punctuation; the first token. Groups can overlap ([CLS] is also first)."""
    T = len(tokens)
    if special is None:
        special = [t in SPECIAL_PIECES for t in tokens]
    if len(special) != T:
        raise ValueError(f"{len(special)} special flags for {T} tokens")
    start = np.array([t in START_PIECES for t in tokens], dtype=bool)
    first = np.zeros(T, dtype=bool)
    first[:1] = True
    return {
        GROUPS[0]: start,
        GROUPS[1]: np.asarray(special, dtype=bool) & ~start,
        GROUPS[2]: np.array([is_punctuation(t) for t in tokens], dtype=bool),
        GROUPS[3]: first,
    }


def group_share(att: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(L, H, T_q, T_k) and a key mask (T_k,) -> (L, H): each head's weight on the masked keys,
    averaged over the queries (a share in [0, 1])."""
    att = _check(att)
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != (att.shape[-1],):
        raise ValueError(f"mask has shape {mask.shape} for {att.shape[-1]} keys")
    return att[..., mask].sum(axis=-1).mean(axis=-1)


def hide_keys(att: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Drop the hidden keys (T_k,) and re-normalise each row over the rest: (..., T_q, T_k) ->
    (..., T_q, K) with K the kept keys. A row whose weight was all on hidden keys becomes 0."""
    att = np.asarray(att, dtype=np.float64)
    keep = ~np.asarray(hidden, dtype=bool)
    if keep.shape != (att.shape[-1],):
        raise ValueError(f"hidden mask has shape {keep.shape} for {att.shape[-1]} keys")
    kept = att[..., keep]
    total = kept.sum(axis=-1, keepdims=True)
    return np.divide(kept, total, out=np.zeros_like(kept), where=total > 0)
