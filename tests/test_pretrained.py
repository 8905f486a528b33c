"""The pretrained encoder adapter: parity with transformers' own attentions, an independent
re-computation of layer 1 with our scaled dot-product attention, truncation at 512, clear errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from models.attention import scaled_dot_product_attention
from models.limits import ENCODER_PIECES
from models.transformer.pretrained import PretrainedEncoder, PretrainedModelError

SENTENCE = "The cat sat on the mat, and the dog didn't."


@pytest.fixture(scope="module")
def encoder() -> PretrainedEncoder:
    try:
        return PretrainedEncoder.load()
    except PretrainedModelError as exc:  # the package is in requirements.txt: only a broken setup
        pytest.fail(str(exc))


def test_layout_and_rows(encoder: PretrainedEncoder) -> None:
    result = encoder.attend(SENTENCE)
    T = len(result.tokens)
    assert result.attentions.shape == (6, 12, T, T)
    assert result.tokens[0] == "[CLS]" and result.tokens[-1] == "[SEP]"
    assert result.special.tolist() == [True] + [False] * (T - 2) + [True]
    np.testing.assert_allclose(result.attentions.sum(-1), 1.0, atol=1e-5)
    assert not result.truncated and result.n_pieces == T


def test_parity_with_transformers(encoder: PretrainedEncoder) -> None:
    """The adapter returns exactly the tensors transformers gives for the same input."""
    result = encoder.attend(SENTENCE)
    inputs = encoder.tokenizer(SENTENCE, return_tensors="pt")
    with torch.inference_mode():
        out = encoder.model(**inputs, output_attentions=True)
    theirs = torch.stack(out.attentions)[:, 0].numpy()
    np.testing.assert_array_equal(result.attentions, theirs)


def test_layer_one_recomputed_with_our_attention(encoder: PretrainedEncoder) -> None:
    """Layer 1's weights equal softmax(Q K^T / sqrt(d_k)) from the model's own projections,
    computed by models.attention.scaled_dot_product_attention."""
    inputs = encoder.tokenizer(SENTENCE, return_tensors="pt")
    with torch.inference_mode():
        out = encoder.model(**inputs, output_attentions=True, output_hidden_states=True)
        attn = encoder.model.encoder.layer[0].attention.self
        x = out.hidden_states[0]  # (1, T, 384), the embeddings
        split = lambda y: y.view(1, x.shape[1], 12, 32).transpose(1, 2)  # noqa: E731
        q, k = split(attn.query(x)), split(attn.key(x))
        _, ours = scaled_dot_product_attention(q, k, k)
    torch.testing.assert_close(ours[0], out.attentions[0][0], atol=1e-5, rtol=1e-4)


def test_truncation_at_512(encoder: PretrainedEncoder) -> None:
    result = encoder.attend("word " * 700)
    assert result.truncated and result.n_pieces == 702
    assert len(result.tokens) == ENCODER_PIECES and result.tokens[-1] == "[SEP]"
    assert result.attentions.shape == (6, 12, ENCODER_PIECES, ENCODER_PIECES)


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_text(encoder: PretrainedEncoder, text: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        encoder.attend(text)


def test_odd_unicode(encoder: PretrainedEncoder) -> None:
    result = encoder.attend("naïve café 🐶 \u202e漢字 \x00 ok")
    assert result.attentions.shape[2] == len(result.tokens)


def test_unknown_model_name_is_a_clear_error() -> None:
    with pytest.raises(PretrainedModelError, match="offers these encoders: all-MiniLM-L6-v2"):
        PretrainedEncoder.load("no-such-org/no-such-model-xyz")


def test_folder_without_config(tmp_path, monkeypatch) -> None:
    (tmp_path / "no-config").mkdir()
    monkeypatch.setenv("ATLAS_ENCODERS_DIR", str(tmp_path))
    with pytest.raises(PretrainedModelError, match="offers these encoders"):  # not offered
        PretrainedEncoder.load("no-config")
