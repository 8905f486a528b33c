"""The toy computations behind the model-free pages."""

from __future__ import annotations

import numpy as np
import pytest

from models.analysis.toy import (
    anatomy,
    hard_pick,
    permutation_demo,
    position_similarity,
    word_embeddings,
)

KEYS = [[2.0, 1.0], [-1.0, 1.0], [0.0, -2.0]]
VALUES = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]


@pytest.mark.parametrize("score_name", ["dot", "scaled_dot", "general", "additive"])
@pytest.mark.parametrize("temperature", [1e-6, 1.0, 1e6])
def test_anatomy_is_finite_and_normalised(score_name, temperature):
    r = anatomy([2, 1], KEYS, VALUES, score_name=score_name, temperature=temperature, W=np.eye(2))
    assert np.all(np.isfinite(r.weights)) and np.isclose(r.weights.sum(), 1.0)
    np.testing.assert_allclose(r.context, r.weights @ np.array(VALUES))


def test_anatomy_extremes():
    hot = anatomy([2, 1], KEYS, VALUES, temperature=1e6)
    np.testing.assert_allclose(hot.weights, 1 / 3, atol=1e-5)
    cold = anatomy([2, 1], KEYS, VALUES, temperature=1e-6)
    np.testing.assert_allclose(cold.weights, [1, 0, 0])
    same = anatomy([2, 1], [[1, 1]] * 3, VALUES)
    np.testing.assert_allclose(same.weights, 1 / 3)
    zero = anatomy([0, 0], [[0, 0]] * 3, VALUES, score_name="scaled_dot")
    np.testing.assert_allclose(zero.context, np.mean(VALUES, axis=0))


def test_general_with_identity_equals_dot():
    a = anatomy([2, 1], KEYS, VALUES, score_name="general", W=np.eye(2))
    b = anatomy([2, 1], KEYS, VALUES, score_name="dot")
    np.testing.assert_allclose(a.scores, b.scores)


def test_hard_pick_is_seeded_and_follows_weights():
    assert hard_pick([0.2, 0.3, 0.5], 7) == hard_pick([0.2, 0.3, 0.5], 7)
    assert hard_pick([0.0, 1.0, 0.0], 3) == 1
    picks = [hard_pick([0.1, 0.9], s) for s in range(200)]
    assert 150 < sum(picks) < 200


def test_permutation_without_pe_is_exact_and_with_pe_is_not():
    tokens = "the cat sat on the mat".split()
    plain = permutation_demo(tokens, with_pe=False, shuffle_seed=1)
    with_pe = permutation_demo(tokens, with_pe=True, shuffle_seed=1)
    assert plain.max_diff < 1e-12
    assert with_pe.max_diff > 1e-3
    assert plain.shuffled_tokens == [tokens[i] for i in plain.perm]
    np.testing.assert_allclose(plain.weights.sum(axis=1), 1.0)


def test_word_embeddings_are_fixed_per_word():
    e = word_embeddings(["猫", "cat", "猫"], 8)
    assert e.shape == (3, 8)
    assert np.allclose(e[0], e[2]) and not np.allclose(e[0], e[1])


def test_position_similarity_depends_on_distance():
    sim = position_similarity(20, 16)
    assert np.isclose(sim[3, 7], sim[10, 14]) and np.isclose(sim[0, 0], 8.0)
