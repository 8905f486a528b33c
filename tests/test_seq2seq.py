"""The RNN translators on tiny random weights: shapes, rows sum to 1, masks, API, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.attention import additive_score
from models.checkpoints import CheckpointError
from models.rnn.checkpoint import load_seq2seq
from models.rnn.decoding import beam_decode, greedy_decode
from models.rnn.seq2seq import ATTENTION_NAMES, Seq2Seq
from models.subword_merge import group_pieces, merge_subwords, word_text
from tests.helpers_seq2seq import tiny_checkpoint, tiny_config, tiny_tokenizers

ATTENTIVE = [a for a in ATTENTION_NAMES if a != "none"]


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tok")
    tiny_tokenizers(folder)
    return folder


@pytest.fixture(scope="module")
def translators(tmp_path_factory, tok_dir):
    from models.rnn.translator import Translator

    torch.manual_seed(0)
    root = tmp_path_factory.mktemp("ck")
    return {
        a: Translator.load(tiny_checkpoint(root / f"seq2seq-{a}", a, tok_dir))
        for a in ATTENTION_NAMES
    }


def _batch():
    src = torch.randint(4, 300, (3, 7))
    lengths = torch.tensor([7, 5, 2])
    src[1, 5:] = 0
    src[2, 2:] = 0
    return src, lengths


@pytest.mark.parametrize("attention", ATTENTIVE)
def test_teacher_forced_weights_rows_sum_to_one_and_padding_is_zero(attention):
    torch.manual_seed(0)
    model = Seq2Seq(tiny_config(attention)).eval()
    src, lengths = _batch()
    logits, weights = model(src, lengths, torch.randint(4, 300, (3, 9)))
    assert logits.shape == (3, 9, 300) and weights.shape == (3, 9, 7)
    assert torch.allclose(weights.sum(-1), torch.ones(3, 9), atol=1e-5)
    assert (weights[1, :, 5:] == 0).all() and (weights[2, :, 2:] == 0).all()


def test_none_has_no_weights():
    logits, weights = Seq2Seq(tiny_config("none"))(*_batch(), torch.randint(4, 300, (3, 4)))
    assert weights is None and logits.shape == (3, 4, 300)


def test_bahdanau_scores_equal_core_additive_score():
    torch.manual_seed(0)
    model = Seq2Seq(tiny_config("bahdanau")).eval()
    att = model.attention
    query, keys = torch.randn(2, 16), torch.randn(2, 5, 16)
    ours = att.scores(query, att.project_keys(keys))
    # v^T tanh(W s + U h + b): fold U's bias into the key side by appending a constant feature
    keys1 = torch.cat([keys, torch.ones(2, 5, 1)], -1)
    W_k = torch.cat([att.U_a.weight, att.U_a.bias[:, None]], 1)
    core = additive_score(query[:, None], keys1, att.W_a.weight, W_k, att.v_a.weight[0])[:, 0]
    assert torch.allclose(ours, core, atol=1e-5)


@pytest.mark.parametrize("attention", ["local-m", "local-p"])
def test_local_weights_zero_outside_window(attention, translators):
    result = translators[attention].translate("a black dog runs on the green grass .")
    S = len(result.source_tokens)
    assert result.raw_weights.shape == result.weights.shape == result.gaussian.shape
    for t, p in enumerate(result.p_t):
        outside = np.abs(np.arange(S) - p) > result.D
        assert (result.weights[t, outside] == 0).all() and (result.gaussian[t, outside] == 0).all()
        assert result.window[t, 0] <= p <= result.window[t, 1]
    assert np.allclose(result.weights.sum(1), 1, atol=1e-5)


def test_local_p_position_lies_in_the_sentence_and_moves():
    """The model's own p_t = (S - 1) sigmoid(v_p^T tanh(W_p h_t)) (Luong eq. 9, 0-based), random
    weights with v_p made large so that the sigmoid saturates: over every previous word, p_t
    moves across the whole sentence, reaching both ends of [0, S - 1] but never leaving it."""
    torch.manual_seed(0)
    model = Seq2Seq(tiny_config("local-p")).eval()
    with torch.no_grad():
        model.v_p.weight.mul_(1000)
    src, lengths = _batch()  # lengths 7, 5, 2
    with torch.inference_mode():
        memory, state = model.encode(src, lengths)
        p_t = torch.stack(
            [model.decode_step(torch.full((3,), y), state, memory)[0].p_t for y in range(4, 300)]
        )  # (words, B)
    last = (lengths - 1).float()
    assert ((p_t >= 0) & (p_t <= last)).all()
    assert (p_t.min(0).values < 0.05).all() and (p_t.max(0).values > last - 0.05).all()


def test_local_m_position_is_step(translators):
    result = translators["local-m"].translate("a black dog runs on the green grass .")
    S = len(result.source_tokens)
    expected = np.minimum(np.arange(len(result.target_tokens)), S - 1)
    assert np.allclose(result.p_t, expected)


def test_window_can_change_at_inference(translators):
    wide = translators["local-p"].translate("a black dog runs on the green grass .", window=6)
    assert wide.D == 6


@pytest.mark.parametrize("attention", ATTENTION_NAMES)
def test_translate_api(attention, translators):
    result = translators[attention].translate("two men are playing music .", top_k=3)
    T, S = len(result.target_tokens), len(result.source_tokens)
    assert result.source_tokens[-1] == "</s>" and 1 <= T <= 40
    assert result.queries.shape == (T, 16) and result.keys.shape == (S, 16)
    assert len(result.top_k) == T and all(len(row) == 3 for row in result.top_k)
    assert ((result.token_probs > 0) & (result.token_probs <= 1)).all()
    if attention == "none":
        assert result.weights is None
    else:
        assert result.weights.shape == (T, S)
        assert np.allclose(result.weights.sum(1), 1, atol=1e-5)


@pytest.mark.parametrize("beam", [1, 3, 10])
def test_beam_search_returns_sorted_hypotheses(beam, translators):
    result = translators["bahdanau"].translate("a woman is walking .", beam=beam)
    if beam == 1:
        assert result.hypotheses == []
        return
    scores = [h.score for h in result.hypotheses]
    assert 1 <= len(scores) <= beam and scores == sorted(scores, reverse=True)
    assert result.target_tokens == result.hypotheses[0].target_tokens
    for h in result.hypotheses:
        assert h.weights.shape == (len(h.target_tokens), len(result.source_tokens))


def test_beam_one_equals_greedy(translators):
    model = translators["luong-general"].model
    src, lengths = torch.tensor([[5, 6, 7, 8, 3]]), torch.tensor([5])
    greedy = greedy_decode(model, src, lengths)[0]
    beam = beam_decode(model, src, lengths, beam=1)[0]
    assert greedy.tokens == beam.tokens


def test_forced_decoding_follows_the_target(translators):
    tr = translators["luong-dot"]
    result = tr.force("a black dog runs .", "un chien noir court .")
    assert result.forced and result.target_tokens[-1] == "</s>"
    assert tr.tgt_tok.decode(tr.tgt_tok.encode("un chien noir court .")) == result.text
    assert result.weights.shape == (len(result.target_tokens), len(result.source_tokens))


def test_batched_greedy_equals_single(translators):
    model = translators["bahdanau"].model
    src = torch.tensor([[5, 6, 7, 8, 3], [9, 10, 3, 0, 0]])
    batched = greedy_decode(model, src, torch.tensor([5, 3]), record=False)
    single = greedy_decode(model, src[1:, :3], torch.tensor([3]), record=False)
    assert batched[1].tokens == single[0].tokens


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_text_raises_clear_error(text, translators):
    with pytest.raises(ValueError, match="empty"):
        translators["bahdanau"].translate(text)


def test_long_text_is_truncated_and_says_so(translators):
    result = translators["bahdanau"].translate("dog " * 200)
    assert result.truncated and result.n_source_pieces > 30
    assert len(result.source_tokens) == 31


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(min_size=1, max_size=60))
def test_any_unicode_translates_or_says_empty(text, translators):
    try:
        result = translators["local-p"].translate(text)
    except ValueError as exc:
        assert "empty" in str(exc)
        return
    assert np.isfinite(result.weights).all()


def test_encoder_gradients_cover_every_position(translators):
    grads = translators["none"].encoder_gradients("a black dog runs on the green grass .")
    assert grads.norms.shape == (len(grads.source_tokens),)
    assert np.isfinite(grads.norms).all() and (grads.norms[:-1] > 0).all()


def test_checkpoint_round_trip_gives_same_outputs(tmp_path, tok_dir):
    torch.manual_seed(1)
    folder = tiny_checkpoint(tmp_path / "seq2seq-luong-concat", "luong-concat", tok_dir)
    a, _, _ = load_seq2seq(folder)
    b, _, _ = load_seq2seq(folder)
    src, lengths = _batch()
    tgt = torch.randint(4, 300, (3, 5))
    assert torch.equal(a(src, lengths, tgt)[0], b(src, lengths, tgt)[0])


def test_missing_checkpoint_names_file_and_command(tmp_path, tok_dir):
    folder = tiny_checkpoint(tmp_path / "seq2seq-bahdanau", "bahdanau", tok_dir)
    (folder / "model.safetensors").unlink()
    with pytest.raises(
        CheckpointError, match=r"model\.safetensors.*train_seq2seq --attention bahdanau"
    ):
        load_seq2seq(folder)


def test_damaged_checkpoint_names_file_and_command(tmp_path, tok_dir):
    folder = tiny_checkpoint(tmp_path / "seq2seq-local-m", "local-m", tok_dir)
    (folder / "model.safetensors").write_bytes(b"\x00garbage")
    with pytest.raises(CheckpointError, match="damaged.*train_seq2seq --attention local-m"):
        load_seq2seq(folder)
    (folder / "config.json").write_text(json.dumps({"attention": "nonsense"}))
    with pytest.raises(CheckpointError, match="damaged"):
        load_seq2seq(folder)


def test_word_view_rows_sum_to_one():
    src = ["▁A", "▁black", "▁dog", "▁run", "s", ".", "</s>"]
    tgt = ["▁Un", "▁chien", "▁no", "ir", "▁court", ".", "</s>"]
    weights = np.random.default_rng(0).dirichlet(np.ones(len(src)), size=len(tgt))
    words = merge_subwords(weights, src, tgt)
    assert words.source_words == ["A", "black", "dog", "runs", ".", "</s>"]
    assert words.target_words == ["Un", "chien", "noir", "court", ".", "</s>"]
    assert np.allclose(words.weights.sum(1), 1)
    assert np.isclose(words.weights[2, 3], weights[2:4, 3:5].sum(1).mean())


def test_word_view_shape_mismatch_names_sizes():
    with pytest.raises(ValueError, match="3 target and 2 source"):
        merge_subwords(np.ones((2, 2)), ["a", "b"], ["x", "y", "z"])


def test_byte_pieces_decode_into_one_word():
    pieces = ["▁", "<0xF0>", "<0x9F>", "<0x90>", "<0xB6>", "▁dog"]
    assert [word_text(pieces, g) for g in group_pieces(pieces)] == ["🐶", "dog"]


def test_encoder_gradients_equal_the_full_jacobian(translators):
    """The one-pass trick equals torch.autograd.functional.jacobian of the forward last state."""
    tr = translators["bahdanau"]
    grads = tr.encoder_gradients("a black dog runs .")
    enc = tr.model.encoder
    ids = torch.tensor([tr.src_tok.encode("a black dog runs .") + [3]])
    x = enc.embedding(ids).detach()  # (1, S, E)

    def last_forward_state(inp):
        return enc.rnn(inp)[1][-2]  # forward direction of the bidirectional layer: (1, H)

    jac = torch.autograd.functional.jacobian(last_forward_state, x)  # (1, H, 1, S, E)
    expected = jac[0, :, 0].pow(2).sum(dim=(0, 2)).sqrt()  # (S,)
    assert np.allclose(grads.norms, expected.numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("rnn", ["gru", "lstm"])
@pytest.mark.parametrize("layers", [1, 2])
def test_inference_cell_step_equals_the_rnn_module(rnn, layers):
    """The decoder's fast single-step path (cell functions) gives nn.GRU/nn.LSTM's output."""
    torch.manual_seed(0)
    model = Seq2Seq(tiny_config("luong-dot", rnn=rnn, dec_layers=layers)).eval()
    x = torch.randn(3, 32)  # (B, E + H)
    h = torch.randn(layers, 3, 16)
    state = (h, torch.randn(layers, 3, 16)) if rnn == "lstm" else h
    with torch.inference_mode():
        out, new = model.decoder_rnn(x.unsqueeze(1), state)
        fast_out, fast_new = model._cell_step(x, state)
    assert torch.allclose(out.squeeze(1), fast_out, atol=1e-6, rtol=0)
    for a, b in zip(
        new if rnn == "lstm" else (new,), fast_new if rnn == "lstm" else (fast_new,), strict=True
    ):
        assert torch.allclose(a, b, atol=1e-6, rtol=0)


@pytest.mark.parametrize("attention", ["bahdanau", "local-p"])
def test_greedy_decode_of_a_batch_equals_one_sentence_at_a_time(translators, attention):
    """Gathering the steps after the loop keeps each sentence's own steps (padding, early </s>)."""
    from training.data import pad_batch

    tr = translators[attention]
    ids = [
        tr.src_tok.encode(t) for t in ("a dog runs", "two men play football near the river", "hi")
    ]
    src, lengths = pad_batch(ids, torch.device("cpu"))
    batch = greedy_decode(tr.model, src, lengths, max_len=12)
    for k, many in enumerate(batch):
        one_src, one_len = pad_batch([ids[k]], torch.device("cpu"))
        (one,) = greedy_decode(tr.model, one_src, one_len, max_len=12)
        assert many.tokens == one.tokens
        assert many.score == pytest.approx(one.score, abs=1e-5)
        for a, b in zip(many.steps, one.steps, strict=True):
            assert a.top_ids == b.top_ids
            assert torch.allclose(a.weights[: len(ids[k])], b.weights, atol=1e-5)
            assert float(a.weights[len(ids[k]) :].abs().sum()) == 0.0  # padding gets exactly 0
            if attention == "local-p":
                assert a.p_t == pytest.approx(b.p_t, abs=1e-4)
