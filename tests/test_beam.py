"""The shared beam and greedy searches (models/beam.py) on hand-made step functions whose best
sequences are known."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import pytest
import torch

from models.beam import BeamSettings, beam_search, check_beam, greedy_search

START, END, A, B = 0, 1, 2, 3
# P[prev, next]: a first-order "language model" over <s>, </s>, a, b (no row emits <s>).
# Greedy takes "a" (0.6) and then </s> (0.4): p("a </s>") = 0.24. Beam search finds "b </s>":
# p = 0.4 * 0.9 = 0.36. Without length normalisation "b </s>" also beats every longer sequence.
P = torch.tensor(
    [
        [0.0, 0.0, 0.6, 0.4],  # after <s>
        [0.0, 1.0, 0.0, 0.0],  # after </s> (never reached)
        [0.0, 0.4, 0.3, 0.3],  # after a
        [0.0, 0.9, 0.05, 0.05],  # after b
    ]
)


@dataclass(frozen=True)
class History:
    """The tokens each row has read so far (K, t), <s> included."""

    ids: torch.Tensor

    def select(self, index: torch.Tensor) -> History:
        return History(self.ids[index])


def step(tokens: torch.Tensor, state: History) -> tuple[torch.Tensor, History]:
    """The table P: the next token depends on the last one only."""
    return P[tokens].log(), History(torch.cat([state.ids, tokens[:, None]], 1))


def _history_dist(history: tuple[int, ...]) -> torch.Tensor:
    """log p(next | whole history): fixed random numbers per history, </s> likelier as it grows."""
    seed = sum(t * 5**i for i, t in enumerate(history)) + 7 * len(history)
    logits = torch.randn(4, generator=torch.Generator().manual_seed(seed))
    logits[END] += 1.5 * len(history) - 5
    return torch.log_softmax(logits, -1)


def history_step(tokens: torch.Tensor, state: History) -> tuple[torch.Tensor, History]:
    """A step that depends on the whole history kept in the state: a wrongly reordered state
    gives wrong probabilities."""
    ids = torch.cat([state.ids, tokens[:, None]], 1)  # (K, t + 1)
    return torch.stack([_history_dist(tuple(row)) for row in ids.tolist()]), History(ids)


def _empty(k: int) -> History:
    return History(torch.zeros(k, 0, dtype=torch.long))


def _starts(k: int) -> torch.Tensor:
    return torch.full((k,), START, dtype=torch.long)


def _search(beam: int, max_len: int = 10, **kw) -> list:
    settings = BeamSettings(beam, max_len, n_best=kw.pop("n_best", beam), **kw)
    return beam_search(step, _empty(1), _starts(1), end=END, settings=settings)


def test_greedy_misses_what_beam_search_finds() -> None:
    (greedy,) = greedy_search(step, _empty(1), _starts(1), end=END, max_len=10)
    assert greedy.tokens == (A, END)
    assert [h.tokens for h in _search(beam=1)] == [(A, END)]  # beam 1 is greedy
    found = _search(beam=2)
    assert [h.tokens for h in found] == [(B, END), (A, END)]
    assert math.isclose(found[0].log_prob, math.log(0.36), rel_tol=1e-6)
    assert math.isclose(found[0].score, math.log(0.36) / 2, rel_tol=1e-6)
    assert found[0].token_log_probs == pytest.approx((math.log(0.4), math.log(0.9)))
    assert found[0].rows == (0, 1)  # "b" came from the only row, "</s>" from row 1 ("b")


@pytest.mark.parametrize("max_len", [3, 4, 5])
def test_wide_unnormalised_beam_is_exhaustive(max_len: int) -> None:
    """With room for every live prefix and no length normalisation, beam search returns the most
    probable finished sequence of all (checked by enumerating them)."""
    settings = BeamSettings(3**max_len, max_len, n_best=1, length_norm=False)
    (best,) = beam_search(history_step, _empty(1), _starts(1), end=END, settings=settings)

    def log_p(seq: tuple[int, ...]) -> float:
        return sum(float(_history_dist((START, *seq[:i]))[tok]) for i, tok in enumerate(seq))

    tokens = (START, A, B)  # every token but </s>
    finished = [
        (*prefix, END) for n in range(max_len) for prefix in itertools.product(tokens, repeat=n)
    ]
    expected = max(finished, key=log_p)
    assert best.tokens == expected
    assert math.isclose(best.log_prob, log_p(expected), rel_tol=1e-5)


def test_unnormalised_search_stops_when_nothing_can_overtake() -> None:
    """n_best=1 without length normalisation: "b </s>" (0.36) beats every live prefix by step 2."""
    (best,) = _search(beam=2, n_best=1, length_norm=False, refill=False)
    assert best.tokens == (B, END) and best.score == best.log_prob


def test_cut_at_max_len_tops_up_with_live_hypotheses() -> None:
    found = _search(beam=2, max_len=1)  # "</s>" cannot come first
    assert [h.tokens for h in found] == [(A,), (B,)]
    assert [h.score for h in found] == pytest.approx([math.log(0.6), math.log(0.4)])


def test_greedy_rows_are_independent() -> None:
    """Two rows at once: row 1 starts from "b" and ends at once, row 0 goes on."""
    found = greedy_search(step, _empty(2), torch.tensor([START, B]), end=END, max_len=5)
    assert [h.tokens for h in found] == [(A, END), (END,)]
    assert found[1].rows == (1,) and found[0].rows == (0, 0)


def test_beam_size_is_checked() -> None:
    check_beam(5, 5)
    with pytest.raises(ValueError, match="beam must be between 1 and 5, got 6"):
        check_beam(6, 5)
