"""The attention core: rows sum to 1, masks give exactly 0, parity with PyTorch's own attention."""

import math

import pytest
import torch

from models import attention as A
from models.transformer.positional import sinusoidal_encoding

torch.manual_seed(0)


def _qkv(b=2, tq=3, tk=5, d=4):
    return torch.randn(b, tq, d), torch.randn(b, tk, d), torch.randn(b, tk, d)


@pytest.mark.parametrize("kind", A.SCORE_NAMES)
def test_rows_sum_to_one(kind):
    q, k, v = _qkv()
    params = dict(
        W=torch.randn(4, 4), W_q=torch.randn(6, 4), W_k=torch.randn(6, 4), v=torch.randn(6)
    )
    weights = A.masked_softmax(A.score(q, k, kind, **params))
    context = A.weighted_sum(weights, v)
    assert weights.shape == (2, 3, 5) and context.shape == (2, 3, 4)
    assert torch.allclose(weights.sum(-1), torch.ones(2, 3))
    assert torch.allclose(context, weights @ v)


def test_score_formulas():
    q, k = torch.randn(1, 4), torch.randn(3, 4)
    W = torch.randn(4, 4)
    assert torch.allclose(A.dot_score(q, k), (q * k).sum(-1)[None])
    assert torch.allclose(A.scaled_dot_score(q, k), (q * k).sum(-1)[None] / 2)
    assert torch.allclose(A.general_score(q, k, W)[0], torch.stack([q[0] @ W @ kk for kk in k]))
    W_q, W_k, v = torch.randn(5, 4), torch.randn(5, 4), torch.randn(5)
    expected = torch.stack([v @ torch.tanh(W_q @ q[0] + W_k @ kk) for kk in k])
    assert torch.allclose(A.additive_score(q, k, W_q, W_k, v)[0], expected, atol=1e-6)


def test_mask_gives_exact_zero():
    scores = torch.randn(2, 3, 6)
    mask = torch.tensor([True, True, False, True, False, False])
    weights = A.masked_softmax(scores, mask)
    assert (weights[..., ~mask] == 0).all()
    assert torch.allclose(weights.sum(-1), torch.ones(2, 3))


def test_all_masked_row_raises():
    with pytest.raises(ValueError, match="masked"):
        A.masked_softmax(torch.randn(2, 3), torch.tensor([[True, False, False], [False] * 3]))


@pytest.mark.parametrize("temperature", [1e-6, 1e6])
def test_extreme_temperature_is_finite(temperature):
    weights = A.masked_softmax(torch.tensor([[1.0, 2.0, 3.0]]), temperature=temperature)
    assert torch.isfinite(weights).all() and torch.allclose(weights.sum(-1), torch.ones(1))
    if temperature < 1:
        assert weights[0, 2] == 1.0
    else:
        assert torch.allclose(weights, torch.full((1, 3), 1 / 3))


@pytest.mark.parametrize("temperature", [0.0, -1.0, math.inf, math.nan])
def test_bad_temperature_raises(temperature):
    with pytest.raises(ValueError, match="temperature"):
        A.masked_softmax(torch.zeros(3), temperature=temperature)


def test_shape_mismatch_names_sizes():
    with pytest.raises(ValueError, match="3.*4"):
        A.dot_score(torch.randn(2, 3), torch.randn(5, 4))


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_matches_pytorch(causal):
    q, k, v = torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 8)
    context, weights = A.scaled_dot_product_attention(q, k, v, causal=causal)
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert torch.allclose(context, expected, atol=1e-5)
    if causal:
        assert (weights.triu(1) == 0).all()


def test_scaled_dot_with_padding_mask_matches_pytorch():
    q, k, v = torch.randn(2, 4, 8), torch.randn(2, 6, 8), torch.randn(2, 6, 8)
    keep = torch.tensor([[True] * 6, [True] * 3 + [False] * 3])[:, None, :]  # (B, 1, T_k)
    context, weights = A.scaled_dot_product_attention(q, k, v, mask=keep)
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    assert torch.allclose(context, expected, atol=1e-5)
    assert (weights[1, :, 3:] == 0).all()


@pytest.mark.parametrize("causal", [False, True])
def test_multi_head_matches_torch_multihead(causal):
    d, h = 16, 4
    ours = A.MultiHeadAttention(d, h)
    ref = torch.nn.MultiheadAttention(d, h, batch_first=True)
    ref.in_proj_weight.data.copy_(ours.in_proj_weight.data)
    ref.in_proj_bias.data.copy_(torch.randn(3 * d))
    ours.in_proj_bias.data.copy_(ref.in_proj_bias.data)
    ref.out_proj.load_state_dict(ours.out_proj.state_dict())
    x = torch.randn(2, 5, d)
    out, weights = ours(x, x, x, causal=causal)
    attn_mask = torch.ones(5, 5, dtype=torch.bool).triu(1) if causal else None  # True = blocked
    ref_out, ref_weights = ref(
        x, x, x, attn_mask=attn_mask, need_weights=True, average_attn_weights=False
    )
    assert weights.shape == (2, h, 5, 5)
    assert torch.allclose(out, ref_out, atol=1e-5)
    assert torch.allclose(weights, ref_weights, atol=1e-6)


def test_local_window_is_zero_outside_bounds():
    scores = torch.randn(3, 20)
    p_t = torch.tensor([0.0, 7.3, 19.0])
    D = 3
    weights, raw, factor = A.local_attention(scores, p_t, D)
    positions = torch.arange(20.0)
    outside = (positions[None] - p_t[:, None]).abs() > D
    assert (weights[outside] == 0).all() and (factor[outside] == 0).all()
    inside = ~outside
    expected = torch.exp(-((positions[None] - p_t[:, None]) ** 2) / (2 * (D / 2) ** 2))
    assert torch.allclose(factor[inside], expected[inside])
    assert torch.allclose(raw.sum(-1), torch.ones(3))
    assert (weights.sum(-1) <= 1 + 1e-6).all()
    assert torch.allclose(weights, raw * factor)


@pytest.mark.parametrize("d_model", [1, 6, 7, 512])
def test_sinusoidal_encoding_matches_formula(d_model):
    pe = sinusoidal_encoding(50, d_model)
    assert pe.shape == (50, d_model)
    for pos in (0, 1, 17, 49):
        for j in range(d_model):
            i2 = j - j % 2
            angle = pos / 10000 ** (i2 / d_model)
            expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert pe[pos, j].item() == pytest.approx(expected, abs=1e-6)


def test_position_table_and_cosine():
    from models.transformer.positional import (
        LearnedPositionalEmbedding,
        SinusoidalPositionalEncoding,
        position_cosine,
        position_table,
    )

    sin = position_table(SinusoidalPositionalEncoding(8, 10))
    assert torch.equal(sin, sinusoidal_encoding(10, 8))
    learned = LearnedPositionalEmbedding(8, 10)
    assert torch.equal(position_table(learned), learned.embedding.weight.detach())
    cos = position_cosine(sin)  # (10, 10)
    assert cos.shape == (10, 10)
    assert torch.allclose(cos.diagonal(), torch.ones(10), atol=1e-6)
    assert torch.allclose(cos, cos.T, atol=1e-6)
    # sinusoids: equal norms, so the cosine depends only on the distance |i - j|
    assert torch.allclose(cos.diagonal(1), cos[0, 1].expand(9), atol=1e-5)
    a, b = torch.randn(3, 5), torch.randn(3, 5)
    expected = torch.nn.functional.cosine_similarity(a[1], a[2], dim=0)
    assert position_cosine(a)[1, 2] == pytest.approx(float(expected), abs=1e-6)
    assert position_cosine(b).shape == (3, 3)
    with pytest.raises(TypeError, match="not a positional module"):
        position_table(torch.nn.Linear(2, 2))
