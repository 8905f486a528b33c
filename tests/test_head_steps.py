"""One head's computation step by step (:mod:`models.transformer.head_steps`): recomputed from the
model's own W^Q, W^K, W^V, its softmax equals the weights the model returned, for the project's
Transformer (tiny random weights: encoder, masked decoder and cross attention) and for the real
all-MiniLM-L6-v2; the causal mask; Concat(head_1..h) W^O is the layer's output; and the figure
(:func:`viz.head_steps.step_panels`) labels every token and writes masked cells as −∞."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from app_pages.multi_head.head_steps import head_latex, numbers_latex
from models.transformer.head_steps import (
    attention_steps,
    pretrained_head_steps,
    pretrained_shape,
    transformer_head_steps,
    transformer_shape,
)
from models.transformer.pretrained import PretrainedEncoder
from models.transformer.translator import TransformerTranslator
from tests.tiny_transformer import build_tiny_transformers
from viz.head_steps import MASKED, NUMBER_CELL_PX, Panel, step_panels

SENTENCE = "a black dog runs on the green grass ."
RESULTS = {"encoder": "encoder_self", "decoder": "decoder_self", "cross": "cross"}


@pytest.fixture(scope="module")
def translator(tmp_path_factory: pytest.TempPathFactory) -> TransformerTranslator:
    root = build_tiny_transformers(tmp_path_factory.mktemp("tiny_steps"), cards=False)
    return TransformerTranslator.load(root / "transformer-sinusoidal")


@pytest.fixture(scope="module")
def encoder() -> PretrainedEncoder:
    return PretrainedEncoder.load()


@pytest.mark.parametrize("attention", ["encoder", "decoder", "cross"])
def test_transformer_recomputation_equals_the_models_weights(translator, attention: str):
    result = translator.translate(SENTENCE)
    shape = transformer_shape(translator, attention)
    for layer in range(shape.n_layers):
        for head in range(shape.n_heads):
            steps = transformer_head_steps(translator, result, attention, layer, head)
            returned = getattr(result, RESULTS[attention])[layer, head]  # (T_q, T_k)
            np.testing.assert_allclose(steps.weights, returned, atol=1e-6)
            assert steps.gap <= 1e-6
    assert steps.causal == (attention == "decoder")
    np.testing.assert_allclose(steps.scaled, steps.scores / math.sqrt(shape.d_k), rtol=1e-6)
    np.testing.assert_allclose(steps.context, steps.weights @ steps.values, atol=1e-6)
    np.testing.assert_allclose(steps.weights.sum(-1), 1.0, atol=1e-6)
    queries = result.target_tokens if attention == "cross" else None
    if queries is not None:  # cross attention: French rows, English columns
        assert steps.weights.shape == (len(queries), len(result.source_tokens))


def test_causal_mask_hides_every_later_key(translator):
    result = translator.translate(SENTENCE)
    steps = transformer_head_steps(translator, result, "decoder", 1, 2)
    T = len(result.decoder_input_tokens)
    later = np.triu(np.ones((T, T), dtype=bool), k=1)  # key s > query t
    assert steps.keep.shape == (T, T)
    assert not steps.keep[later].any() and steps.keep[~later].all()
    assert (steps.weights[later] == 0).all()  # exactly 0, not just small
    assert np.isfinite(steps.scaled).all()  # the scores themselves are kept; the mask is apart
    enc = transformer_head_steps(translator, result, "encoder", 0, 0)
    assert enc.keep.all() and not enc.causal


def test_concatenated_heads_times_w_o_is_the_layers_output(translator):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O, with the heads recomputed here."""
    result = translator.translate(SENTENCE)
    module, outputs = translator.model.encoder[1].self_attn, []
    hook = module.register_forward_hook(lambda _m, _args, out: outputs.append(out[0]))
    try:
        with torch.inference_mode():
            translator.model.encode(torch.tensor([translator._source(SENTENCE).ids]))
    finally:
        hook.remove()
    heads = [
        transformer_head_steps(translator, result, "encoder", 1, h).context
        for h in range(translator.model.cfg.n_heads)
    ]
    concat = torch.from_numpy(np.concatenate(heads, axis=-1))  # (S, h * d_v)
    with torch.inference_mode():
        multi_head = module.out_proj(concat).numpy()  # (S, d_model)
    np.testing.assert_allclose(multi_head, outputs[0][0].numpy(), atol=1e-5)


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (2, 5), (5, 11)])
def test_minilm_recomputation_equals_the_models_weights(encoder, layer: int, head: int):
    text = "The attention mechanism matters, 注意力机制很重要."
    steps = pretrained_head_steps(encoder, text, layer, head)
    returned = encoder.attend(text).attentions[layer, head]  # (T, T)
    assert steps.weights.shape == returned.shape
    np.testing.assert_allclose(steps.weights, returned, atol=1e-5)
    np.testing.assert_allclose(steps.weights.sum(-1), 1.0, atol=1e-5)
    shape = pretrained_shape(encoder)
    assert (shape.n_layers, shape.n_heads, shape.d_model, shape.d_k) == (6, 12, 384, 32)
    assert steps.queries.shape[1] == steps.keys.shape[1] == steps.values.shape[1] == 32
    assert not steps.causal and steps.keep.all()


def test_refusals(encoder, translator):
    with pytest.raises(ValueError, match="nothing to attend to"):
        attention_steps(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3), torch.zeros(2, 2) > 0)
    with pytest.raises(ValueError, match="empty"):
        pretrained_head_steps(encoder, "   ", 0, 0)
    with pytest.raises(ValueError, match="outside"):
        pretrained_head_steps(encoder, "a dog", 6, 0)
    result = translator.translate(SENTENCE)
    with pytest.raises(ValueError, match="unknown attention"):
        transformer_head_steps(translator, result, "sideways", 0, 0)


def test_equations_carry_the_models_numbers(translator):
    shape = transformer_shape(translator)  # tiny: d_model 16, 4 heads
    numbers = " ".join(numbers_latex(shape))
    assert "h = 4" in numbers and "= 16" in numbers and "= 4" in numbers
    assert r"\mathbb{R}^{16 \times 4}" in numbers
    assert r"\sqrt{4}" in head_latex("encoder", 2, shape) and "head}_{3}" in head_latex(
        "encoder", 2, shape
    )
    assert "+ M" in head_latex("decoder", 0, shape)
    assert "(Y W_{1}^Q)(H W_{1}^K)" in head_latex("cross", 0, shape)


def test_step_panels_label_every_token_and_write_masked_cells():
    tokens = ["<s>", "▁Un", "▁chien", "▁Un"]
    z = np.tril(np.ones((4, 4)))
    z[z == 0] = np.nan
    panels = [
        Panel("scores", z, tokens, tokens, "query", "key", "Q·Kᵀ", diverging=True),
        Panel("weights", np.eye(4), tokens, tokens, "query", "key", "weight"),
    ]
    fig = step_panels(panels, title="layer 1, head 1<br>rows: queries")
    first = fig.data[0]
    assert list(fig.layout.xaxis.tickvals) == list(first.x) and len(first.x) == 4
    assert first.x[3] == "▁Un\u200b"  # a repeat made distinct
    assert first.text[0][3] == MASKED and first.text[1][0] == "1.00"
    assert "query: %{y}" in first.hovertemplate and "Q·Kᵀ: %{text}" in first.hovertemplate
    assert fig.layout.width >= 4 * NUMBER_CELL_PX[0]
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["scores", "weights", "layer 1, head 1<br>rows: queries"]
    assert fig.layout.yaxis.domain[0] > fig.layout.yaxis2.domain[1]  # first panel on top
    wide = step_panels(
        [Panel("w", np.zeros((2, 40)), ["a", "b"], list(map(str, range(40))), "q", "k", "v")]
    )
    assert wide.data[0].text is None and len(wide.layout.xaxis.tickvals) == 40
    assert wide.layout.width >= 40 * 14
    # cells without numbers get a colour bar of their own, beside their panel (V and
    # the output had none); cells with numbers need none
    assert all(t.showscale is False for t in fig.data)
    bar = wide.data[0].colorbar
    assert wide.data[0].showscale and bar.title.text == "v" and wide.layout.margin.r >= 100
    assert np.isclose(bar.y, sum(wide.layout.yaxis.domain) / 2)
    two = step_panels(
        [
            Panel(n, np.ones((2, 20)), ["a", "b"], list("abcdefghijklmnopqrst"), "q", "k", n)
            for n in ("V", "out")
        ]
    )
    bars = [(t.colorbar.y, t.colorbar.len) for t in two.data]
    domains = [two.layout.yaxis.domain, two.layout.yaxis2.domain]
    assert [b[0] for b in bars] == [sum(d) / 2 for d in domains]  # each bar beside its panel
    assert [b[1] for b in bars] == [d[1] - d[0] for d in domains]
    with pytest.raises(ValueError, match="3 labels for 4"):
        step_panels([Panel("bad", np.eye(4), tokens[:3], tokens, "q", "k", "v")])
