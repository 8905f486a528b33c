"""Greedy, beam-search and forced decoding for :class:`models.rnn.seq2seq.Seq2Seq`, recording the
attention.

The searches themselves are the shared ones of :mod:`models.beam` (beam search ranks finished
translations by the length-normalised score ``log p(y | x) / |y|``); this module gives them the
model's decoding step and turns what each step computed into :class:`StepRecord` rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from models.beam import BeamSettings, Hypothesis, beam_search, check_beam, greedy_search
from models.limits import TRANSLATOR_BEAM
from models.rnn.seq2seq import DecoderState, Memory, Seq2Seq, StepOutput
from models.tokenizer import BOS_ID, EOS_ID


@dataclass
class StepRecord:
    """What one decoding step saw, for one sentence (numpy-free tensors, CPU). weights (S,) etc."""

    token: int
    log_prob: float
    top_ids: list[int]
    top_probs: list[float]
    weights: torch.Tensor | None
    raw_weights: torch.Tensor | None
    gaussian: torch.Tensor | None
    p_t: float | None
    query: torch.Tensor


@dataclass
class Decoded:
    """One decoded sentence: its steps in order (the last one emits </s> unless cut at max length)."""

    steps: list[StepRecord] = field(default_factory=list)
    score: float = 0.0  # length-normalised log-probability

    @property
    def tokens(self) -> list[int]:
        return [s.token for s in self.steps]


@dataclass(frozen=True)
class DecodingState:
    """The decoder state and the memory it attends to, both with one row per hypothesis."""

    decoder: DecoderState
    memory: Memory

    def select(self, index: torch.Tensor) -> DecodingState:
        return DecodingState(self.decoder.select(index), self.memory.select(index))


class RecordingStep:
    """``step(tokens (K,), state) -> (log_probs (K, V), state)`` for :mod:`models.beam`, keeping
    every step's output (and, with ``keep_log_probs``, its log-probabilities) for the records."""

    def __init__(self, model: Seq2Seq, window: int | None, keep_log_probs: bool = True) -> None:
        self.model, self.window, self.keep_log_probs = model, window, keep_log_probs
        self.outs: list[StepOutput] = []
        self.log_probs: list[torch.Tensor] = []

    def __call__(
        self, tokens: torch.Tensor, state: DecodingState
    ) -> tuple[torch.Tensor, DecodingState]:
        out, decoder = self.model.decode_step(tokens, state.decoder, state.memory, self.window)
        log_probs = torch.log_softmax(out.logits.float(), -1)  # (K, V)
        self.outs.append(out)
        if self.keep_log_probs:  # a corpus run skips it: T x B x V floats
            self.log_probs.append(log_probs)
        return log_probs, DecodingState(decoder, state.memory)

    def record(self, t: int, row: int, token: int, top_k: int) -> StepRecord:
        """Step t, batch row ``row``, which emitted ``token``."""
        out, log_probs = self.outs[t], self.log_probs[t][row]  # (V,)
        top = log_probs.topk(top_k)
        pick = lambda x: None if x is None else x[row].detach().float().cpu()  # noqa: E731
        return StepRecord(
            token=token,
            log_prob=float(log_probs[token]),
            top_ids=top.indices.tolist(),
            top_probs=top.values.exp().tolist(),
            weights=pick(out.weights),
            raw_weights=pick(out.raw_weights),
            gaussian=pick(out.gaussian),
            p_t=None if out.p_t is None else float(out.p_t[row]),
            query=out.query[row].detach().float().cpu(),
        )

    def decoded(self, h: Hypothesis, top_k: int) -> Decoded:
        """A hypothesis with the record of each of its steps."""
        steps = [
            self.record(t, row, tok, top_k)
            for t, (row, tok) in enumerate(zip(h.rows, h.tokens, strict=True))
        ]
        return Decoded(steps, h.score)


def _stack(outs: list[StepOutput], field: str) -> torch.Tensor | None:
    """One field of every step, stacked: (T, B, ...) on the CPU, or None when the model has none."""
    first = getattr(outs[0], field)
    if first is None:
        return None
    return torch.stack([getattr(o, field) for o in outs]).detach().float().cpu()


def _start(
    model: Seq2Seq, src: torch.Tensor, lengths: torch.Tensor, encoded: tuple | None
) -> DecodingState:
    memory, state = encoded or model.encode(src, lengths)
    return DecodingState(state, memory)


def _bos(n: int, device: torch.device) -> torch.Tensor:
    """n <s> tokens, the first decoder inputs."""
    return torch.full((n,), BOS_ID, dtype=torch.long, device=device)


@torch.inference_mode()
def greedy_decode(
    model: Seq2Seq,
    src: torch.Tensor,
    lengths: torch.Tensor,
    *,
    max_len: int | None = None,
    top_k: int = 5,
    record: bool = True,
    window: int | None = None,
    encoded: tuple[Memory, DecoderState] | None = None,
) -> list[Decoded]:
    """Batched greedy decoding: src (B, S), lengths (B,) -> one :class:`Decoded` per sentence.

    The loop only decodes; what each step saw is gathered afterwards in a few stacked tensor
    operations (one top-k for all steps), which keeps the per-step Python cost low.
    """
    step = RecordingStep(model, window, keep_log_probs=record)
    found = greedy_search(
        step,
        _start(model, src, lengths, encoded),
        _bos(src.shape[0], src.device),
        end=EOS_ID,
        max_len=max_len or model.cfg.max_tgt_len,
    )
    return _greedy_records(step, found, top_k, record)


def _greedy_records(
    step: RecordingStep, found: list[Hypothesis], top_k: int, record: bool
) -> list[Decoded]:
    """Every sentence's records from the steps stacked once (all sentences at once)."""
    stacked, decoded = _Stacked.of(step, top_k, record), []
    for i, h in enumerate(found):
        pairs = enumerate(zip(h.tokens, h.token_log_probs, strict=True))
        decoded.append(Decoded([stacked.record(t, i, tok, lp) for t, (tok, lp) in pairs], h.score))
    return decoded


@dataclass(frozen=True)
class _Stacked:
    """What every step of a batched decoding computed, stacked: (T, B, ...) on the CPU. Without
    ``record`` only the queries (the top-k lists are empty and the weights None)."""

    query: torch.Tensor
    top_ids: list | None = None
    top_probs: list | None = None
    weights: torch.Tensor | None = None
    raw_weights: torch.Tensor | None = None
    gaussian: torch.Tensor | None = None
    p_t: torch.Tensor | None = None

    @classmethod
    def of(cls, step: RecordingStep, top_k: int, record: bool) -> _Stacked:
        query = _stack(step.outs, "query")  # (T, B, H)
        if not record:
            return cls(query)
        top = torch.stack(step.log_probs).topk(top_k, dim=-1)  # (T, B, k)
        fields = ("weights", "raw_weights", "gaussian", "p_t")
        return cls(
            query,
            top.indices.tolist(),
            top.values.exp().tolist(),
            *(_stack(step.outs, f) for f in fields),
        )

    def record(self, t: int, i: int, token: int, log_prob: float) -> StepRecord:
        """Step t of sentence i, which emitted ``token``."""
        at = lambda x: None if x is None else x[t, i]  # noqa: E731
        return StepRecord(
            token=token,
            log_prob=log_prob,
            top_ids=[] if self.top_ids is None else self.top_ids[t][i],
            top_probs=[] if self.top_probs is None else self.top_probs[t][i],
            weights=at(self.weights),
            raw_weights=at(self.raw_weights),
            gaussian=at(self.gaussian),
            p_t=None if self.p_t is None else float(self.p_t[t, i]),
            query=self.query[t, i],
        )


@torch.inference_mode()
def beam_decode(
    model: Seq2Seq,
    src: torch.Tensor,
    lengths: torch.Tensor,
    *,
    beam: int = 5,
    max_len: int | None = None,
    top_k: int = 5,
    window: int | None = None,
    encoded: tuple[Memory, DecoderState] | None = None,
) -> list[Decoded]:
    """Beam search for ONE sentence (src (1, S)); returns up to ``beam`` finished hypotheses, best first."""
    if src.shape[0] != 1:
        raise ValueError(
            f"beam search decodes one sentence at a time, got a batch of {src.shape[0]}"
        )
    check_beam(beam, TRANSLATOR_BEAM)
    step = RecordingStep(model, window)
    settings = BeamSettings(beam, max_len or model.cfg.max_tgt_len, n_best=beam)
    found = beam_search(
        step,
        _start(model, src, lengths, encoded),
        _bos(1, src.device),
        end=EOS_ID,
        settings=settings,
    )
    return [step.decoded(h, top_k) for h in found]


@torch.inference_mode()
def forced_decode(
    model: Seq2Seq,
    src: torch.Tensor,
    lengths: torch.Tensor,
    target: list[int],
    *,
    top_k: int = 5,
    window: int | None = None,
    encoded: tuple[Memory, DecoderState] | None = None,
) -> Decoded:
    """Force the decoder through ``target`` (ids, ending with </s>) for ONE sentence; records each step."""
    step, state = RecordingStep(model, window), _start(model, src, lengths, encoded)
    tokens = _bos(1, src.device)
    for token in target:
        _, state = step(tokens, state)
        tokens = torch.tensor([token], dtype=torch.long, device=src.device)
    steps = [step.record(t, 0, token, top_k) for t, token in enumerate(target)]
    return Decoded(steps, sum(s.log_prob for s in steps) / max(1, len(steps)))
