"""The answer to each kind of prediction question, computed from a real model's result, and the
score of a student's guess against it. Pure: numpy in, typed results out (no streamlit)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.analysis.regions import PARTS, region_masses

CLICK_KINDS = ("token", "window", "region")  # the student clicks a token or a region
REGIONS = PARTS  # the image is split into REGIONS x REGIONS parts for a ``region`` question
NEAR_WINDOW = 1.0  # a window guess within this many positions of p_t counts as right
SAME_TOLERANCE = 1e-6  # two results this close are "the same" (rounding)


@dataclass(frozen=True)
class Answer:
    """The model's answer to one question.

    options: what the student chooses from, in the order shown (tokens, regions or choice ids).
    values: (n_options,) the model's number for each option: the attention weight of a token,
        the attention mass of a region, a pattern's share, a softmax's entropy, a BLEU loss.
    best: the index of the right option. centre: p_t for a ``window`` question (else None).
    """

    options: tuple[str, ...]
    values: np.ndarray
    best: int
    centre: float | None = None


@dataclass(frozen=True)
class Score:
    """A guess against the answer: ``guess`` (an option index), ``correct``, ``value`` (the
    model's number for the guessed option), ``rank`` (1 = the model's top option; ties share a
    rank) and, for a window, ``distance`` |guess - p_t| in positions."""

    guess: int
    correct: bool
    value: float
    rank: int
    distance: float | None = None


def _clean(token: str) -> str:
    return token.replace("▁", "").strip().lower()


def word_row(target_tokens: list[str], word: str) -> int | None:
    """The row of ``word`` among the target tokens (case and ``▁`` ignored); None if absent."""
    rows = [i for i, token in enumerate(target_tokens) if _clean(token) == word.strip().lower()]
    return rows[0] if rows else None


def target_row(target_tokens: list[str], word: str | None, weights: np.ndarray) -> int:
    """The row of ``word`` among the target tokens (case and ``▁`` ignored), else the most
    peaked row that is not ``</s>`` or punctuation: the row a question asks about."""
    found = word_row(target_tokens, word) if word else None
    if found is not None:
        return found
    rows = [i for i, t in enumerate(target_tokens) if _clean(t).isalnum() and t != "</s>"] or list(
        range(len(target_tokens))
    )
    return max(rows, key=lambda i: float(np.max(weights[i])))


def token_answer(source: list[str], row: np.ndarray) -> Answer:
    """Which source token a target token attends to: row (T_src,) of the weights."""
    values = np.asarray(row, dtype=float)  # (T_src,)
    return Answer(tuple(source), values, int(np.argmax(values)))


def window_answer(source: list[str], row: np.ndarray, p_t: float) -> Answer:
    """Where local-p centres its window: the final weights row (T_src,) and p_t."""
    values = np.asarray(row, dtype=float)  # (T_src,)
    best = int(np.clip(round(p_t), 0, len(source) - 1))
    return Answer(tuple(source), values, best, centre=float(p_t))


def region_answer(alpha: np.ndarray, names: tuple[str, ...]) -> Answer:
    """Which part of the image a word's map alpha (g, g) weighs most."""
    masses = region_masses(np.asarray(alpha, dtype=float))
    return Answer(names, masses, int(np.argmax(masses)))


def pattern_shares(weights: np.ndarray) -> np.ndarray:
    """(3,) how much a head's (T, T) map looks like each pattern: the mean weight on the previous
    token (rows 1..T-1), on the diagonal, and the mean weight *not* on each row's top key
    (broad attention leaves most of it elsewhere)."""
    w = np.asarray(weights, dtype=float)  # (T, T)
    previous = float(np.mean(np.diagonal(w, offset=-1))) if len(w) > 1 else 0.0
    diagonal = float(np.mean(np.diagonal(w)))
    broad = float(np.mean(1.0 - w.max(axis=1)))
    return np.array([previous, diagonal, broad])


def pattern_answer(weights: np.ndarray, patterns: tuple[str, ...]) -> Answer:
    """Which of the three patterns (previous, diagonal, broad) a head's map shows most."""
    shares = pattern_shares(weights)
    return Answer(patterns, shares, int(np.argmax(shares)))


def scaling_answer(entropy_scaled: float, entropy_unscaled: float) -> Answer:
    """Which softmax is flatter (higher mean entropy): options (with 1/sqrt(d_k), without, the
    same); values: the two entropies and their difference."""
    diff = abs(entropy_scaled - entropy_unscaled)
    if diff < SAME_TOLERANCE:
        best = 2
    else:
        best = 0 if entropy_scaled > entropy_unscaled else 1
    values = np.array([entropy_scaled, entropy_unscaled, diff])
    return Answer(("scaled", "unscaled", "same"), values, best)


def shuffle_answer(max_diff: float) -> Answer:
    """Whether self-attention on a shuffled sentence is the same map moved with the words
    (``max_diff``: the largest difference after moving rows and columns back)."""
    same = max_diff < SAME_TOLERANCE
    return Answer(("moved", "changed"), np.array([max_diff, max_diff]), 0 if same else 1)


def bleu_answer(without: tuple[float, float], with_attention: tuple[float, float]) -> Answer:
    """Which of two sentences loses more BLEU without attention: values, the two losses
    (BLEU with attention minus BLEU without)."""
    losses = np.asarray(with_attention, dtype=float) - np.asarray(without, dtype=float)  # (2,)
    return Answer(("first", "second"), losses, int(np.argmax(losses)))


def score_answer(kind: str, answer: Answer, guess: int) -> Score:
    """Score option ``guess`` (an index into ``answer.options``) for a question of ``kind``."""
    if not 0 <= guess < len(answer.options):
        raise ValueError(f"guess {guess} outside the {len(answer.options)} options")
    value = float(answer.values[guess])
    rank = 1 + int(np.sum(answer.values > value + 1e-12)) if kind in CLICK_KINDS else 1
    if kind == "window" and answer.centre is not None:
        distance = abs(guess - answer.centre)
        return Score(guess, distance <= NEAR_WINDOW, value, rank, distance)
    return Score(guess, guess == answer.best, value, rank)
