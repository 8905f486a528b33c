"""The scores e before the softmax in a translation (the Alignment page's step inspector and
formulas), the context vectors, and the check of how English a text looks to a translator.

Each score is recomputed here from its paper's formula with the model's own parameters, so the
formulas the page shows are checked against the code: Bahdanau e_ij = v_a^T tanh(W_a s_{i-1} +
U_a h_j), Luong dot h_t^T h_s, general h_t^T W_a h_s, concat v_a^T tanh(W_a [h_t; h_s]).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from models.english_check import check_english
from models.tokenizer import SubwordTokenizer
from tests.helpers_seq2seq import EN, tiny_tokenizers, tiny_translator
from training.tokenizer import train_tokenizer

GLOBAL = ("bahdanau", "luong-dot", "luong-general", "luong-concat")
SENTENCE = "a black dog runs on the green grass ."


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tok")
    tiny_tokenizers(folder)
    return folder


@pytest.fixture(scope="module")
def translators(tmp_path_factory, tok_dir):
    torch.manual_seed(0)
    root = tmp_path_factory.mktemp("models")
    kinds = (*GLOBAL, "none", "local-p")
    return {k: tiny_translator(root / k, k, tok_dir) for k in kinds}


def _softmax(e: np.ndarray) -> np.ndarray:
    z = np.exp(e - e.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def _by_formula(kind: str, model, queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """(T_out, T_src) scores written out from each paper's equation, in numpy."""
    att = {n: p.detach().double().numpy() for n, p in model.attention.named_parameters()}
    q, k = queries.astype(float), keys.astype(float)
    if kind == "luong-dot":
        return q @ k.T  # h_t^T h_s
    if kind == "luong-general":
        return q @ (k @ att["W_a.weight"].T).T  # h_t^T W_a h_s
    if kind == "bahdanau":  # v_a^T tanh(W_a s_{i-1} + U_a h_j (+ the code's bias))
        hidden = (q @ att["W_a.weight"].T)[:, None] + (k @ att["U_a.weight"].T + att["U_a.bias"])
        return np.tanh(hidden) @ att["v_a.weight"][0]
    # concat: W_a [h_t; h_s] = W_1 h_t + W_2 h_s (+ the code's bias)
    w_a = np.concatenate([att["W_1.weight"], att["W_2.weight"]], axis=1)  # (A, 2H)
    pairs = np.concatenate(
        [np.repeat(q[:, None], len(k), 1), np.repeat(k[None], len(q), 0)], axis=-1
    )  # (T_out, T_src, 2H)
    return np.tanh(pairs @ w_a.T + att["W_2.bias"]) @ att["v_a.weight"][0]


@pytest.mark.parametrize("kind", GLOBAL)
def test_softmax_of_the_scores_is_the_weights(kind, translators):
    tr = translators[kind]
    for result in (
        tr.translate(SENTENCE),
        tr.translate(SENTENCE, beam=3),
        tr.force(SENTENCE, "un chien noir court ."),
    ):
        assert result.scores.shape == result.weights.shape
        assert np.allclose(_softmax(result.scores), result.weights, atol=1e-5)


@pytest.mark.parametrize("kind", GLOBAL)
def test_scores_follow_the_papers_formula(kind, translators):
    tr = translators[kind]
    result = tr.translate(SENTENCE)
    expected = _by_formula(kind, tr.model, result.queries, result.keys)
    assert np.allclose(result.scores, expected, atol=1e-4)


def test_bahdanau_scores_come_from_the_previous_state(translators):
    """s_{i-1}: the first step's query is the decoder's initial state, not the state after it."""
    tr = translators["bahdanau"]
    result = tr.translate(SENTENCE)
    source = tr._source(SENTENCE)
    with torch.inference_mode():
        __, state = tr.model.encode(source.src, source.lengths)
    assert np.allclose(result.queries[0], state.rnn[-1, 0].numpy(), atol=1e-6)


@pytest.mark.parametrize("kind", GLOBAL)
def test_context_is_the_weighted_sum_of_the_keys(kind, translators):
    result = translators[kind].translate(SENTENCE)
    t = len(result.target_tokens) - 1
    manual = sum(result.weights[t, s] * result.keys[s] for s in range(len(result.source_tokens)))
    assert result.contexts.shape == (len(result.target_tokens), result.keys.shape[1])
    assert np.allclose(result.contexts[t], manual, atol=1e-5)


def test_no_attention_has_no_scores_and_local_scores_are_before_the_window(translators):
    none = translators["none"].translate(SENTENCE)
    assert none.scores is None and none.contexts is None
    local = translators["local-p"].translate(SENTENCE)
    assert local.scores.shape == local.weights.shape
    assert np.isfinite(local.scores).all()


@pytest.fixture(scope="module")
def words_tokenizer(tmp_path_factory) -> SubwordTokenizer:
    """A tokenizer that holds the words of ``EN`` whole (the tiny ones are nearly all bytes)."""
    return train_tokenizer(EN * 20, tmp_path_factory.mktemp("words") / "src", 400)


@pytest.mark.parametrize(
    ("text", "not_latin", "unknown"),
    [
        ("A black dog runs on the green grass.", False, False),
        ("a black dog runs on the xqzv wbrtk plomf .", False, False),  # 6 of 9 known
        ("a black dog xqzv wbrtk plomf glorp", False, True),  # 3 of 7
        ("注意力机制很重要", True, True),
        ("Собака бежит по траве", True, True),
        ("A dog, 2 men… 17!", False, False),  # digits and punctuation are not words
        ("", False, False),
    ],
)
def test_english_check(text, not_latin, unknown, words_tokenizer):
    check = check_english(text, words_tokenizer)
    assert check.not_latin is not_latin
    assert check.mostly_unknown is unknown
    assert check.suspicious is (not_latin or unknown)
