"""Aggregations over heads and layers, attention rollout, special-token shares and hiding."""

from __future__ import annotations

import numpy as np
import pytest

from models.analysis.aggregate import (
    GROUPS,
    group_share,
    head_max,
    head_mean,
    hide_keys,
    is_punctuation,
    rollout,
    token_groups,
)


def _random_attention(L: int = 3, H: int = 4, T: int = 5, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(L, H, T, T))
    e = np.exp(scores)
    return e / e.sum(-1, keepdims=True)


def test_mean_and_max_over_heads() -> None:
    att = _random_attention()
    np.testing.assert_allclose(head_mean(att).sum(-1), 1.0)
    assert head_max(att).shape == (3, 5, 5)
    assert np.all(head_max(att) >= head_mean(att) - 1e-12)


def test_rollout_by_hand_for_two_layers() -> None:
    att = _random_attention(L=2)
    eye = np.eye(5)
    a1 = 0.5 * att[0].mean(0) + 0.5 * eye
    a2 = 0.5 * att[1].mean(0) + 0.5 * eye
    a1, a2 = a1 / a1.sum(-1, keepdims=True), a2 / a2.sum(-1, keepdims=True)
    out = rollout(att)
    np.testing.assert_allclose(out[0], a1)
    np.testing.assert_allclose(out[1], a2 @ a1)
    np.testing.assert_allclose(out.sum(-1), 1.0)


def test_rollout_of_identity_attention_is_identity() -> None:
    att = np.broadcast_to(np.eye(4), (3, 2, 4, 4))
    np.testing.assert_allclose(rollout(att)[-1], np.eye(4))


def test_rollout_without_residual_is_the_plain_product() -> None:
    att = _random_attention(L=2)
    out = rollout(att, residual=0.0)
    np.testing.assert_allclose(out[1], att[1].mean(0) @ att[0].mean(0))


def test_rollout_rejects_cross_attention() -> None:
    with pytest.raises(ValueError, match="self-attention"):
        rollout(np.ones((1, 1, 2, 3)) / 3)


def test_groups_and_shares() -> None:
    tokens = ["[CLS]", "the", "dog", ",", "##s", "[SEP]"]
    groups = token_groups(tokens, [True, False, False, False, False, True])
    start, end, punct, first = (groups[g].tolist() for g in GROUPS)
    assert start == [True, False, False, False, False, False]
    assert end == [False, False, False, False, False, True]
    assert punct == [False, False, False, True, False, False]
    assert first == [True] + [False] * 5
    assert token_groups(["<s>", "un", "</s>"])[GROUPS[1]].tolist() == [False, False, True]
    att = np.zeros((1, 2, 6, 6))
    att[0, 0, :, 0] = 1.0  # head 1: everything on [CLS]
    att[0, 1, :, 3] = 1.0  # head 2: everything on the comma
    np.testing.assert_allclose(group_share(att, groups[GROUPS[0]]), [[1.0, 0.0]])
    np.testing.assert_allclose(group_share(att, groups[GROUPS[2]]), [[0.0, 1.0]])


def test_punctuation_pieces() -> None:
    assert is_punctuation("\u2581.") and is_punctuation("##!") and is_punctuation("«")
    assert not is_punctuation("dog") and not is_punctuation("\u2581") and not is_punctuation("a.")


def test_hide_keys_renormalises() -> None:
    att = _random_attention()
    hidden = np.array([True, False, False, True, False])
    out = hide_keys(att, hidden)
    assert out.shape == (3, 4, 5, 3)
    np.testing.assert_allclose(out.sum(-1), 1.0)
    np.testing.assert_allclose(out[0, 0, 0], att[0, 0, 0, ~hidden] / att[0, 0, 0, ~hidden].sum())


def test_hide_keys_all_on_hidden_gives_zero_row() -> None:
    att = np.array([[1.0, 0.0], [0.5, 0.5]])
    out = hide_keys(att, np.array([True, False]))
    np.testing.assert_allclose(out, [[0.0], [1.0]])
