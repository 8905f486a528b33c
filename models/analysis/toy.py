"""Toy computations behind the model-free pages: the three stages of attention on 2-D vectors
(Luong et al. 2015, eq. 8; Bahdanau et al. 2015, eq. 6; Vaswani et al. 2017, eq. 1) and the
self-attention permutation check with and without sinusoidal positional encoding (Vaswani et al.
2017, section 3.5). Pure PyTorch and numpy; float64 so that "exact up to rounding" means ~1e-16.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import torch

from i18n import _
from models.attention import masked_softmax, scaled_dot_product_attention, score, weighted_sum
from models.transformer.positional import sinusoidal_encoding

# The additive score's fixed parameters in the 2-D toy: v^T tanh(W_q q + W_k k), d_a = 2.
ADDITIVE_W_Q = ((1.0, 0.0), (0.0, 1.0))
ADDITIVE_W_K = ((1.0, 0.0), (0.0, 1.0))
ADDITIVE_V = (1.0, 1.0)


@dataclass(frozen=True)
class AnatomyResult:
    """One query attending over n key/value items.

    scores: (n,) before the softmax; weights: (n,) after it, summing to 1;
    context: (2,) = sum_s weights[s] * values[s].
    """

    scores: np.ndarray
    weights: np.ndarray
    context: np.ndarray


def anatomy(
    query: object,
    keys: object,
    values: object,
    *,
    score_name: str = "dot",
    temperature: float = 1.0,
    W: object | None = None,
) -> AnatomyResult:
    """Run the three stages for query (d,), keys (n, d), values (n, d_v)."""
    q = torch.as_tensor(np.asarray(query, dtype=float)).reshape(1, -1)  # (1, d)
    k = torch.as_tensor(np.asarray(keys, dtype=float))  # (n, d)
    v = torch.as_tensor(np.asarray(values, dtype=float))  # (n, d_v)
    params = {}
    if score_name == "general":
        params["W"] = torch.as_tensor(np.asarray(W, dtype=float))  # (d, d)
    if score_name == "additive":
        params = {
            "W_q": torch.tensor(ADDITIVE_W_Q, dtype=torch.float64),
            "W_k": torch.tensor(ADDITIVE_W_K, dtype=torch.float64),
            "v": torch.tensor(ADDITIVE_V, dtype=torch.float64),
        }
    scores = score(q, k, score_name, **params)  # (1, n)
    weights = masked_softmax(scores, temperature=temperature)  # (1, n)
    context = weighted_sum(weights, v)  # (1, d_v)
    return AnatomyResult(scores[0].numpy(), weights[0].numpy(), context[0].numpy())


def hard_pick(weights: object, seed: int) -> int:
    """Sample one item index from the weights (n,) with a seeded generator (hard attention)."""
    p = np.asarray(weights, dtype=float)
    p = p / p.sum()
    return int(np.random.default_rng(seed).choice(p.size, p=p))


@dataclass(frozen=True)
class PermutationResult:
    """Self-attention on a sentence and on a shuffled copy of it.

    perm: (T,) shuffled_tokens[i] = tokens[perm[i]]; weights: (T, T) for the original order;
    shuffled_weights: (T, T) for the shuffled order; unpermuted: shuffled_weights put back into
    the original order; max_diff: max |unpermuted - weights| (0 up to rounding without PE).
    """

    tokens: list[str]
    shuffled_tokens: list[str]
    perm: np.ndarray
    weights: np.ndarray
    shuffled_weights: np.ndarray
    unpermuted: np.ndarray
    max_diff: float


def word_embeddings(tokens: list[str], d_model: int) -> torch.Tensor:
    """A random but fixed vector per word (seeded by the word's SHA-256): (T, d_model)."""
    rows = []
    for token in tokens:
        seed = int.from_bytes(hashlib.sha256(token.encode("utf-8")).digest()[:8], "little")
        gen = torch.Generator().manual_seed(seed)
        rows.append(torch.randn(d_model, generator=gen, dtype=torch.float64))
    return torch.stack(rows)  # (T, d_model)


def _self_attention_weights(x: torch.Tensor, seed: int = 0) -> torch.Tensor:
    """One self-attention layer with fixed random projections: x (T, d) -> weights (T, T)."""
    d = x.shape[-1]
    gen = torch.Generator().manual_seed(seed)
    W_q = torch.randn(d, d, generator=gen, dtype=torch.float64) / d**0.5
    W_k = torch.randn(d, d, generator=gen, dtype=torch.float64) / d**0.5
    __, weights = scaled_dot_product_attention(x @ W_q, x @ W_k, x)  # (T, T)
    return weights


def permutation_demo(
    tokens: list[str], *, with_pe: bool, shuffle_seed: int = 0, d_model: int = 32
) -> PermutationResult:
    """Self-attention weights for ``tokens`` and a seeded shuffle of them, with or without PE."""
    if not tokens:
        raise ValueError(_("need at least one token"))
    T = len(tokens)
    perm = np.random.default_rng(shuffle_seed).permutation(T)  # (T,)
    emb = word_embeddings(tokens, d_model)  # (T, d)
    pe = sinusoidal_encoding(T, d_model).double() if with_pe else torch.zeros(T, d_model)
    weights = _self_attention_weights(emb + pe)  # (T, T)
    shuffled = _self_attention_weights(emb[torch.as_tensor(perm)] + pe)  # (T, T)
    inv = np.argsort(perm)  # position of original token i in the shuffled order
    unpermuted = shuffled.numpy()[np.ix_(inv, inv)]  # (T, T) in the original order
    diff = float(np.abs(unpermuted - weights.numpy()).max())
    shuffled_tokens = [tokens[i] for i in perm]
    return PermutationResult(
        tokens, shuffled_tokens, perm, weights.numpy(), shuffled.numpy(), unpermuted, diff
    )


def position_similarity(n_positions: int, d_model: int) -> np.ndarray:
    """PE · PE^T: (n_positions, n_positions); entry (i, j) depends only on i - j (for even d)."""
    pe = sinusoidal_encoding(n_positions, d_model).double()  # (P, d)
    return (pe @ pe.T).numpy()  # (P, P)
