"""The attention core: score functions, masked softmax, context vectors, local windows, multi-head.

Attention as soft addressing in three stages (the seeds' framing):

1. scores ``e = score(query, key)`` for every key,
2. weights ``a = softmax(e / temperature)`` over the keys (masked keys get exactly 0),
3. context ``c = sum_s a_s * value_s``.

Score functions (Luong et al. 2015, "Effective Approaches to Attention-based NMT", eq. 8;
Bahdanau et al. 2015, "Neural Machine Translation by Jointly Learning to Align and Translate",
eq. 6 / appendix A.1.2; Vaswani et al. 2017, "Attention Is All You Need", eq. 1):

- dot:        ``h_t . h_s``
- scaled dot: ``q . k / sqrt(d_k)``
- general:    ``h_t^T W_a h_s``
- additive:   ``v_a^T tanh(W_q q + W_k k)`` (Bahdanau's ``v^T tanh(W s_{i-1} + U h_j)``; Luong's
  concat ``v_a^T tanh(W_a [h_t; h_s])`` is the same thing with ``W_a = [W_q, W_k]``)

Local attention (Luong et al. 2015, section 3.2, eqs. 9-10): a window centre ``p_t`` (the local-p
model predicts ``p_t = (S - 1) * sigmoid(v_p^T tanh(W_p h_t))``, the paper's ``S * sigmoid(...)``
with 0-based positions, so that p_t stays on a real token; see :mod:`models.rnn.seq2seq`) and the
weights multiplied by ``exp(-(s - p_t)^2 / (2 sigma^2))`` with ``sigma = D / 2``; keys outside
``[p_t - D, p_t + D]`` get exactly 0.

Score functions return *scores*; attention functions return ``(context, weights)``.
Shapes: query ``(..., T_q, d_q)``, keys ``(..., T_k, d_k)``, values ``(..., T_k, d_v)``.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from i18n import _

SCORE_NAMES = ("dot", "scaled_dot", "general", "additive")


def dot_score(query: Tensor, keys: Tensor) -> Tensor:
    """``h_t . h_s``: query (..., T_q, d), keys (..., T_k, d) -> scores (..., T_q, T_k)."""
    _check_last_dims(query, keys)
    return query @ keys.transpose(-1, -2)  # (..., T_q, T_k)


def scaled_dot_score(query: Tensor, keys: Tensor) -> Tensor:
    """``q . k / sqrt(d_k)`` (Vaswani et al. 2017, eq. 1): (..., T_q, d), (..., T_k, d) -> (..., T_q, T_k)."""
    return dot_score(query, keys) / math.sqrt(keys.shape[-1])


def general_score(query: Tensor, keys: Tensor, W: Tensor) -> Tensor:
    """``h_t^T W_a h_s`` (Luong eq. 8): query (..., T_q, d_q), keys (..., T_k, d_k), W (d_q, d_k)."""
    if W.shape != (query.shape[-1], keys.shape[-1]):
        raise ValueError(
            f"W has shape {tuple(W.shape)} but query dim is {query.shape[-1]} "
            f"and key dim is {keys.shape[-1]}"
        )
    return (query @ W) @ keys.transpose(-1, -2)  # (..., T_q, T_k)


def additive_score(
    query: Tensor,
    keys: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    v: Tensor,
) -> Tensor:
    """``v^T tanh(W_q q + W_k k)`` (Bahdanau eq. 6 / Luong concat).

    query (..., T_q, d_q), keys (..., T_k, d_k), W_q (d_a, d_q), W_k (d_a, d_k), v (d_a,)
    -> scores (..., T_q, T_k).
    """
    if W_q.shape[0] != W_k.shape[0] or W_q.shape[0] != v.shape[0]:
        raise ValueError(
            f"attention sizes differ: W_q has {W_q.shape[0]} rows, W_k {W_k.shape[0]}, v {v.shape[0]}"
        )
    q_proj = query @ W_q.T  # (..., T_q, d_a)
    k_proj = keys @ W_k.T  # (..., T_k, d_a)
    hidden = torch.tanh(q_proj.unsqueeze(-2) + k_proj.unsqueeze(-3))  # (..., T_q, T_k, d_a)
    return hidden @ v  # (..., T_q, T_k)


def masked_softmax(scores: Tensor, mask: Tensor | None = None, temperature: float = 1.0) -> Tensor:
    """Softmax over the last axis of ``scores / temperature``; masked keys get exactly 0.

    scores (..., T_k); mask broadcastable to scores, bool, True = keep. An all-masked row raises
    ValueError (there is nothing to attend to) instead of producing NaN.
    """
    if not temperature > 0 or not math.isfinite(temperature):
        raise ValueError(
            _("temperature must be a finite number > 0, got {temperature}").format(
                temperature=temperature
            )
        )
    scaled = scores / temperature
    if mask is not None:
        mask = mask.to(torch.bool).expand_as(scores)
        if not bool(mask.any(dim=-1).all()):
            raise ValueError(_("every key of at least one query is masked: nothing to attend to"))
        scaled = scaled.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scaled, dim=-1)  # (..., T_k)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # exact zeros, also for -inf rows of inf input
    return weights


def weighted_sum(weights: Tensor, values: Tensor) -> Tensor:
    """Context vector ``c = sum_s a_s v_s``: weights (..., T_q, T_k), values (..., T_k, d_v) -> (..., T_q, d_v)."""
    if weights.shape[-1] != values.shape[-2]:
        raise ValueError(
            f"weights cover {weights.shape[-1]} keys but there are {values.shape[-2]} values"
        )
    return weights @ values


def score(
    query: Tensor,
    keys: Tensor,
    function: str = "dot",
    *,
    W: Tensor | None = None,
    W_q: Tensor | None = None,
    W_k: Tensor | None = None,
    v: Tensor | None = None,
) -> Tensor:
    """Dispatch to one of ``SCORE_NAMES``; returns scores (..., T_q, T_k)."""
    if function == "dot":
        return dot_score(query, keys)
    if function == "scaled_dot":
        return scaled_dot_score(query, keys)
    if function == "general":
        if W is None:
            raise ValueError("the general score needs a matrix W")
        return general_score(query, keys, W)
    if function == "additive":
        if W_q is None or W_k is None or v is None:
            raise ValueError("the additive score needs W_q, W_k and v")
        return additive_score(query, keys, W_q, W_k, v)
    raise ValueError(f"unknown score function {function!r}; choose one of {SCORE_NAMES}")


def scaled_dot_product_attention(
    q: Tensor, k: Tensor, v: Tensor, *, mask: Tensor | None = None, causal: bool = False
) -> tuple[Tensor, Tensor]:
    """``softmax(q k^T / sqrt(d_k)) v`` with the weights returned (Vaswani et al. 2017, eq. 1).

    q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v); mask bool, True = keep, broadcastable to
    (..., T_q, T_k); causal keeps key s only for query t >= s. Returns (context, weights).
    """
    if causal:
        T_q, T_k = q.shape[-2], k.shape[-2]
        keep = torch.ones(T_q, T_k, dtype=torch.bool, device=q.device).tril(T_k - T_q)  # (T_q, T_k)
        mask = keep if mask is None else (mask.to(torch.bool) & keep)
    scores = scaled_dot_score(q, k)  # (..., T_q, T_k)
    if mask is not None:
        mask = torch.broadcast_to(mask.to(torch.bool), scores.shape)
    weights = masked_softmax(scores, mask)
    return weights @ v, weights


def gaussian_window(positions: Tensor, p_t: Tensor, D: int) -> tuple[Tensor, Tensor]:
    """Gaussian factor ``exp(-(s - p_t)^2 / (2 sigma^2))`` with ``sigma = D / 2`` (Luong eq. 10).

    positions (T_k,) float, p_t (...,) -> (factor (..., T_k), in_window (..., T_k) bool). The factor is
    exactly 0 outside the window ``[p_t - D, p_t + D]``.
    """
    if D < 1:
        raise ValueError(_("window half-width D must be >= 1, got {D}").format(D=D))
    sigma = D / 2.0
    distance = positions.to(p_t.dtype) - p_t.unsqueeze(-1)  # (..., T_k)
    in_window = distance.abs() <= D
    factor = torch.exp(-(distance**2) / (2 * sigma**2)) * in_window
    return factor, in_window


def local_attention(
    scores: Tensor,
    p_t: Tensor,
    D: int,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Luong local attention weights from scores, as in the paper.

    The softmax runs over the keys inside ``[p_t - D, p_t + D]`` (and ``mask``); the result is then
    multiplied by the Gaussian (Luong eq. 10), so each row of ``weights`` sums to at most 1.
    The translator (:class:`models.rnn.seq2seq.Seq2Seq`) renormalises these rows to sum to 1, so
    that its context is a weighted average of the source states, as with global attention
    (unnormalised, the Gaussian factors, below 1 away from p_t, shrink the context towards 0).
    scores (..., T_k), p_t (...,), mask (..., T_k) bool True = keep.
    Returns (weights, raw_weights, factor), all (..., T_k): raw_weights are the softmax before the
    Gaussian, factor the Gaussian itself (0 outside the window).
    """
    positions = torch.arange(scores.shape[-1], device=scores.device)
    factor, in_window = gaussian_window(positions, p_t, D)  # (..., T_k)
    keep = in_window if mask is None else (in_window & mask.to(torch.bool))
    # A window can fall wholly on padding only if p_t is far outside the sentence; keep the nearest key.
    empty = ~keep.any(dim=-1, keepdim=True)
    if bool(empty.any()):
        nearest = (positions.to(p_t.dtype) - p_t.unsqueeze(-1)).abs().argmin(dim=-1, keepdim=True)
        keep = keep | (empty & torch.zeros_like(keep).scatter(-1, nearest, True))
    raw_weights = masked_softmax(scores, keep)  # (..., T_k)
    return raw_weights * factor, raw_weights, factor


class MultiHeadAttention(nn.Module):
    """Multi-head attention with per-head weights (Vaswani et al. 2017, section 3.2.2).

    ``head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)``, ``MultiHead = Concat(head_1..h) W^O``.
    Parameter layout matches ``torch.nn.MultiheadAttention`` (``in_proj_weight`` stacking Q, K, V and
    ``out_proj``), so weights can be copied across for parity tests.
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model {d_model} is not divisible by n_heads {n_heads}")
        self.d_model, self.n_heads, self.d_k = d_model, n_heads, d_model // n_heads
        self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model))
        self.in_proj_bias = nn.Parameter(torch.zeros(3 * d_model)) if bias else None
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)
        nn.init.xavier_uniform_(self.in_proj_weight)

    def _split(self, x: Tensor, i: int) -> Tensor:
        """Project with the i-th block of in_proj and split heads: (B, T, d) -> (B, h, T, d_k)."""
        d = self.d_model
        bias = None if self.in_proj_bias is None else self.in_proj_bias[i * d : (i + 1) * d]
        y = nn.functional.linear(x, self.in_proj_weight[i * d : (i + 1) * d], bias)  # (B, T, d)
        return y.view(x.shape[0], x.shape[1], self.n_heads, self.d_k).transpose(1, 2)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        mask: Tensor | None = None,
        causal: bool = False,
    ) -> tuple[Tensor, Tensor]:
        """query (B, T_q, d), key/value (B, T_k, d); mask bool True = keep, broadcastable to
        (B, h, T_q, T_k) (e.g. a key-padding mask (B, 1, 1, T_k)).
        Returns (output (B, T_q, d), weights (B, h, T_q, T_k))."""
        q, k, v = (
            self._split(query, 0),
            self._split(key, 1),
            self._split(value, 2),
        )  # (B, h, T, d_k)
        context, weights = scaled_dot_product_attention(q, k, v, mask=mask, causal=causal)
        if self.training and self.dropout.p > 0:
            context = self.dropout(weights) @ v  # attention dropout, as in the Transformer
        out = context.transpose(1, 2).reshape(query.shape[0], query.shape[1], self.d_model)
        return self.out_proj(out), weights  # (B, T_q, d), (B, h, T_q, T_k)


def _check_last_dims(query: Tensor, keys: Tensor) -> None:
    if query.shape[-1] != keys.shape[-1]:
        raise ValueError(
            f"query dim {query.shape[-1]} and key dim {keys.shape[-1]} differ; "
            "the dot score needs equal sizes (use the general or additive score)"
        )
