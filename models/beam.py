"""One beam search and one greedy search, over a ``step(tokens, state) -> (log_probs, state)`` function.

Every decoder (the RNN translators, the Transformer, the captioner) exposes one decoding step:

    step(tokens (K,), state) -> (log_probs (K, V), state)

where row k of ``tokens`` is the last token of hypothesis k and ``log_probs`` (float, log-softmax
over the vocabulary) scores its next token. The state is the decoder's own (RNN state, key/value
cache, ...) and has ``select(index) -> state``, the rows ``index`` in that order (beam search keeps,
drops and copies hypotheses).

Beam search (Sutskever et al. 2014, section 3.2; Wu et al. 2016, section 7) keeps the ``beam`` best
partial sequences by summed log-probability. A hypothesis that emits ``end`` is finished; finished
ones are ranked by their *score*: the log-probability divided by the length when
``length_norm`` (plain division, the common "length normalisation"; Wu et al. use a softer
penalty), else the log-probability itself. What a caller recorded per step (attention weights, the
top-k) is found through :attr:`Hypothesis.rows`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, Self, TypeVar

import torch

from i18n import _


class Selectable(Protocol):
    """A decoder state that can be re-indexed along its batch (hypothesis) dimension."""

    def select(self, index: torch.Tensor) -> Self: ...


S = TypeVar("S", bound=Selectable)
Step = Callable[[torch.Tensor, S], tuple[torch.Tensor, S]]


@dataclass(frozen=True)
class Hypothesis:
    """One decoded sequence.

    tokens: the ids emitted, ending with ``end`` unless cut at ``max_len``.
    token_log_probs: log p(tokens[t] | tokens[:t]), one per token.
    rows: rows[t] is the row of step t's batch that emitted tokens[t] (where to find what that
        step computed for this hypothesis).
    log_prob: log p(tokens), the sum the search ranked partial sequences by.
    score: the ranking of finished hypotheses: log_prob / len(tokens) with length normalisation,
        log_prob without.
    """

    tokens: tuple[int, ...] = ()
    token_log_probs: tuple[float, ...] = ()
    rows: tuple[int, ...] = ()
    log_prob: float = 0.0
    score: float = 0.0

    def extend(self, token: int, token_log_prob: float, row: int, log_prob: float) -> Hypothesis:
        """This hypothesis plus ``token``, emitted from ``row``; log_prob is the new sum."""
        return Hypothesis(
            self.tokens + (token,),
            self.token_log_probs + (token_log_prob,),
            self.rows + (row,),
            log_prob,
            log_prob,
        )

    def scored(self, length_norm: bool) -> Hypothesis:
        """The same hypothesis with its final ranking score."""
        score = self.log_prob / max(1, len(self.tokens)) if length_norm else self.log_prob
        return Hypothesis(self.tokens, self.token_log_probs, self.rows, self.log_prob, score)


def check_beam(beam: int, most: int) -> None:
    """ValueError unless 1 <= beam <= most."""
    if not 1 <= beam <= most:
        raise ValueError(
            _("beam must be between 1 and {most}, got {beam}").format(most=most, beam=beam)
        )


@dataclass(frozen=True)
class BeamSettings:
    """How a beam search runs and ends.

    beam: live hypotheses kept per step. max_len: tokens at most per hypothesis.
    n_best: finished hypotheses wanted; the search stops once it has them (see ``length_norm``)
        and returns up to n_best, topped up with hypotheses cut at max_len if too few finished.
    length_norm: rank finished hypotheses by log-probability per token. Without it a live
        hypothesis can only lose probability as it grows, so the search also waits until the
        n_best-th finished one beats every live one (then no live one can still overtake it).
    refill: keep ``beam`` live hypotheses, drawing on the 2 * beam best extensions (finished
        ones are set aside); False: only the ``beam`` best extensions, and those that finish take
        their slot, so the beam narrows as hypotheses end.
    """

    beam: int
    max_len: int
    n_best: int
    length_norm: bool = True
    refill: bool = True


@torch.inference_mode()
def beam_search(
    step: Step[S], state: S, tokens: torch.Tensor, *, end: int, settings: BeamSettings
) -> list[Hypothesis]:
    """Beam search for one sequence from its first input ``tokens`` (1,) (e.g. ``<s>``); up to
    ``settings.n_best`` hypotheses, best first."""
    device = tokens.device
    live, finished = [Hypothesis()], []
    sums = torch.zeros(1, device=device)  # (K,) summed log-probabilities of the live hypotheses
    for __ in range(settings.max_len):
        log_probs, state = step(tokens, state)  # (K, V)
        ended, extended = _extend(live, sums, log_probs, end, settings)
        finished += ended
        if _done(finished, extended, settings):
            break  # live keeps the previous step's hypotheses (the top-up if none finished)
        live = extended
        rows = torch.tensor([h.rows[-1] for h in live], dtype=torch.long, device=device)
        state = state.select(rows)
        sums = torch.tensor([h.log_prob for h in live], device=device)
        tokens = torch.tensor([h.tokens[-1] for h in live], dtype=torch.long, device=device)
    return _ranked(finished, live, settings)


def _extend(
    live: list[Hypothesis],
    sums: torch.Tensor,
    log_probs: torch.Tensor,
    end: int,
    settings: BeamSettings,
) -> tuple[list[Hypothesis], list[Hypothesis]]:
    """The best extensions of the live hypotheses -> (newly finished, new live), best first."""
    total = (sums[:, None] + log_probs).flatten()  # (K * V,)
    pool = 2 * settings.beam if settings.refill else settings.beam
    best = total.topk(min(pool, total.numel()))
    token_log_probs = log_probs.flatten()[best.indices].tolist()
    V = log_probs.shape[1]
    finished, new_live = [], []
    for value, flat, token_lp in zip(
        best.values.tolist(), best.indices.tolist(), token_log_probs, strict=True
    ):
        k, token = divmod(flat, V)
        h = live[k].extend(token, token_lp, k, value)
        if token == end:
            finished.append(h.scored(settings.length_norm))
        else:
            new_live.append(h)
        if len(new_live) == settings.beam:
            break
    return finished, new_live


def _done(finished: list[Hypothesis], live: list[Hypothesis], settings: BeamSettings) -> bool:
    """Nothing left to extend, or n_best finished and (without length normalisation) unbeatable."""
    if not live:
        return True
    if len(finished) < settings.n_best:
        return False
    if settings.length_norm:
        return True
    nth = sorted((h.score for h in finished), reverse=True)[settings.n_best - 1]
    return nth >= live[0].log_prob


def _ranked(
    finished: list[Hypothesis], live: list[Hypothesis], settings: BeamSettings
) -> list[Hypothesis]:
    """Finished hypotheses, topped up with live (cut) ones to n_best, best score first."""
    found = list(finished)
    for h in live:
        if len(found) >= settings.n_best:
            break
        found.append(h.scored(settings.length_norm))
    return sorted(found, key=lambda h: h.score, reverse=True)[: settings.n_best]


@torch.inference_mode()
def greedy_search(
    step: Step[S], state: S, tokens: torch.Tensor, *, end: int, max_len: int
) -> list[Hypothesis]:
    """Greedy decoding of B sequences at once from their first input ``tokens`` (B,) (the state
    has B rows); one length-normalised :class:`Hypothesis` per row, ending at its first ``end``
    (rows[t] = that row).

    Beam search with beam 1 finds the same tokens for one sequence; this loop batches and skips
    the bookkeeping (finished rows keep decoding until all are done; their extra steps are dropped).
    """
    done = torch.zeros_like(tokens, dtype=torch.bool)
    chosen, picked = [], []
    for __ in range(max_len):
        log_probs, state = step(tokens, state)  # (B, V)
        tokens = log_probs.argmax(-1)  # (B,)
        chosen.append(tokens)
        picked.append(log_probs.gather(-1, tokens.unsqueeze(-1)).squeeze(-1))  # (B,)
        done |= tokens == end
        if bool(done.all()):
            break
    ids = torch.stack(chosen)  # (T, B)
    is_end = (ids == end).long()
    lengths = ((is_end.cumsum(0) - is_end) == 0).sum(0)  # (B,) up to and including the first end
    return [
        _row(row, lps, n, i)
        for i, (row, lps, n) in enumerate(
            zip(ids.T.tolist(), torch.stack(picked).T.tolist(), lengths.tolist(), strict=True)
        )
    ]


def _row(tokens: list[int], log_probs: list[float], n: int, i: int) -> Hypothesis:
    total = sum(log_probs[:n])
    return Hypothesis(tuple(tokens[:n]), tuple(log_probs[:n]), (i,) * n, total, total / max(1, n))
