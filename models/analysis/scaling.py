"""Why scaled dot-product attention divides by sqrt(d_k) (Vaswani et al. 2017, section 3.2.1).

For q, k with independent unit-variance components, ``q . k`` is a sum of d_k products of
variance 1, so its variance is d_k: the scores grow with the width, the softmax of unscaled
scores saturates to one-hot, and its Jacobian ``diag(p) - p p^T`` (the gradient that reaches
the scores) vanishes. Dividing by sqrt(d_k) brings the variance back to 1. The same check on a
trained Transformer: :func:`encoder_scores` recomputes its encoder's ``Q K^T`` from its own
projections, so the softmax can be taken with the scale as trained or without it.

Everything is float64 NumPy (the Transformer's scores are converted after the pass).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from models.transformer.model import Transformer

DIMS = (4, 8, 16, 32, 64, 128, 256, 512)  # the d_k the page offers
N_SAMPLES = 2000
N_KEYS = 10  # T: the keys one random query is scored against
N_SEEDS = 500  # the saturation curves are averaged over this many random draws


@dataclass(frozen=True)
class DotSample:
    """``n`` dot products of random q, k in R^d_k with N(0, 1) components.

    raw: (n,) q . k; scaled: (n,) q . k / sqrt(d_k); their measured variances.
    """

    d_k: int
    raw: np.ndarray
    scaled: np.ndarray
    raw_var: float
    scaled_var: float


def dot_sample(d_k: int, n: int = N_SAMPLES, seed: int = 0) -> DotSample:
    """``n`` unscaled and scaled dot products at width ``d_k`` (seeded, float64)."""
    if d_k < 1 or n < 2:
        raise ValueError(f"need d_k >= 1 and n >= 2, got d_k={d_k}, n={n}")
    rng = np.random.default_rng([seed, d_k])
    q = rng.standard_normal((n, d_k))  # (n, d_k)
    k = rng.standard_normal((n, d_k))  # (n, d_k)
    raw = np.einsum("nd,nd->n", q, k)  # (n,)
    scaled = raw / math.sqrt(d_k)
    return DotSample(d_k, raw, scaled, float(raw.var()), float(scaled.var()))


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis (shifted by the max, so large scores do not overflow)."""
    z = np.asarray(scores, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def entropy(p: np.ndarray) -> np.ndarray:
    """Entropy in bits of each distribution along the last axis (0 log 0 = 0)."""
    p = np.asarray(p, dtype=np.float64)
    logs = np.log2(np.where(p > 0, p, 1.0))
    return -(p * logs).sum(axis=-1)


def jacobian_norm(p: np.ndarray) -> np.ndarray:
    """Frobenius norm of the softmax Jacobian ``diag(p) - p p^T`` for each distribution along
    the last axis: p (..., T) -> (...)."""
    p = np.asarray(p, dtype=np.float64)
    jac = -p[..., :, None] * p[..., None, :]  # (..., T, T)
    idx = np.arange(p.shape[-1])
    jac[..., idx, idx] += p
    return np.sqrt((jac**2).sum(axis=(-2, -1)))


@dataclass(frozen=True)
class Saturation:
    """One random query against ``n_keys`` random keys, for each d_k, averaged over seeds.

    Each array is (len(dims),); ``raw_*`` from softmax(q K^T), ``scaled_*`` from
    softmax(q K^T / sqrt(d_k)). max_weight: the largest weight; entropy: bits;
    grad_norm: ||diag(p) - p p^T||_F.
    """

    dims: tuple[int, ...]
    raw_max_weight: np.ndarray
    scaled_max_weight: np.ndarray
    raw_entropy: np.ndarray
    scaled_entropy: np.ndarray
    raw_grad_norm: np.ndarray
    scaled_grad_norm: np.ndarray


def saturation(
    dims: Sequence[int] = DIMS, n_keys: int = N_KEYS, n_seeds: int = N_SEEDS, seed: int = 0
) -> Saturation:
    """Max weight, entropy and gradient norm of the unscaled and scaled softmax per d_k."""
    stats: dict[str, list[float]] = {}
    for d_k in dims:
        rng = np.random.default_rng([seed, d_k, n_keys])
        q = rng.standard_normal((n_seeds, 1, d_k))  # (S, 1, d_k)
        k = rng.standard_normal((n_seeds, n_keys, d_k))  # (S, T, d_k)
        raw = (q @ k.transpose(0, 2, 1))[:, 0]  # (S, T)
        for name, scores in (("raw", raw), ("scaled", raw / math.sqrt(d_k))):
            p = softmax(scores)  # (S, T)
            stats.setdefault(f"{name}_max_weight", []).append(float(p.max(-1).mean()))
            stats.setdefault(f"{name}_entropy", []).append(float(entropy(p).mean()))
            stats.setdefault(f"{name}_grad_norm", []).append(float(jacobian_norm(p).mean()))
    return Saturation(tuple(dims), **{k: np.asarray(v) for k, v in stats.items()})


@dataclass(frozen=True)
class EncoderScores:
    """A Transformer encoder's self-attention on one sentence.

    scores: (L, H, S, S) the raw ``Q K^T`` of each layer and head (before / sqrt(d_k));
    weights: (L, H, S, S) the attention the model itself computed; d_k: the head width.
    """

    scores: np.ndarray
    weights: np.ndarray
    d_k: int


@torch.inference_mode()
def encoder_scores(model: Transformer, src: torch.Tensor) -> EncoderScores:
    """Run ``model.encode`` on ``src`` (1, S) and recompute each self-attention's ``Q K^T`` from
    the inputs its heads received (forward pre-hooks; the model's outputs are unchanged)."""
    if src.ndim != 2 or src.shape[0] != 1:
        raise ValueError(f"src must be (1, S), got {tuple(src.shape)}")
    inputs: list[tuple[torch.Tensor, torch.Tensor]] = []
    hooks = [
        layer.self_attn.register_forward_pre_hook(
            lambda _module, args: inputs.append((args[0], args[1]))
        )
        for layer in model.encoder
    ]
    try:
        enc = model.encode(src)
    finally:
        for hook in hooks:
            hook.remove()
    scores = []
    for layer, (query, key) in zip(model.encoder, inputs, strict=True):
        attn = layer.self_attn
        q, k = attn._split(query, 0), attn._split(key, 1)  # (1, H, S, d_k)
        scores.append((q @ k.transpose(-2, -1))[0])  # (H, S, S)
    weights = enc.weights[:, 0].double().cpu().numpy()  # (L, H, S, S)
    raw = torch.stack(scores).double().cpu().numpy()  # (L, H, S, S)
    return EncoderScores(raw, weights, model.encoder[0].self_attn.d_k)


def row_entropy(scores: np.ndarray, d_k: int, *, scaled: bool) -> np.ndarray:
    """Mean entropy (bits) of the rows of softmax(scores [/ sqrt(d_k)]): (L, H, S, S) -> (L, H)."""
    z = scores / math.sqrt(d_k) if scaled else scores
    return entropy(softmax(z)).mean(axis=-1)
