"""Greedy and beam-search decoding for :class:`models.rnn.seq2seq.Seq2Seq`, recording the attention.

Beam search keeps the ``beam`` best partial translations by summed log-probability and ranks finished
ones by the length-normalised score ``log p(y | x) / |y|`` (Wu et al. 2016 use a softer penalty; plain
division is the common "length normalisation").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

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


def _record(out: StepOutput, i: int, token: int, log_probs: torch.Tensor, top_k: int) -> StepRecord:
    top = log_probs.topk(top_k)
    pick = lambda x: None if x is None else x[i].detach().float().cpu()  # noqa: E731
    return StepRecord(
        token=token,
        log_prob=float(log_probs[token]),
        top_ids=top.indices.tolist(),
        top_probs=top.values.exp().tolist(),
        weights=pick(out.weights),
        raw_weights=pick(out.raw_weights),
        gaussian=pick(out.gaussian),
        p_t=None if out.p_t is None else float(out.p_t[i]),
        query=out.query[i].detach().float().cpu(),
    )


def _stack(outs: list[StepOutput], field: str) -> torch.Tensor | None:
    """One field of every step, stacked: (T, B, ...) on the CPU, or None when the model has none."""
    first = getattr(outs[0], field)
    if first is None:
        return None
    return torch.stack([getattr(o, field) for o in outs]).detach().float().cpu()


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
    max_len = max_len or model.cfg.max_tgt_len
    memory, state = encoded or model.encode(src, lengths)
    B = src.shape[0]
    y = torch.full((B,), BOS_ID, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    outs: list[StepOutput] = []
    log_probs_t, picked_t, ys = [], [], []
    for _ in range(max_len):
        out, state = model.decode_step(y, state, memory, window)
        log_probs = torch.log_softmax(out.logits.float(), -1)  # (B, V)
        y = log_probs.argmax(-1)  # (B,)
        outs.append(out), ys.append(y)
        picked_t.append(log_probs.gather(-1, y.unsqueeze(-1)).squeeze(-1))  # (B,)
        if record:  # kept for the top-k (a corpus run skips it: T x B x V floats)
            log_probs_t.append(log_probs)
        done |= y == EOS_ID
        if bool(done.all()):
            break
    tokens = torch.stack(ys)  # (T, B)
    is_eos = (tokens == EOS_ID).long()
    alive = (is_eos.cumsum(0) - is_eos) == 0  # (T, B): no </s> before step t
    picked = torch.stack(picked_t).cpu()  # (T, B) log-probability of each chosen token
    query = _stack(outs, "query")  # (T, B, H)
    if record:
        top = torch.stack(log_probs_t).topk(top_k, dim=-1)  # (T, B, k)
        top_ids, top_probs = top.indices.tolist(), top.values.exp().tolist()
        weights, raw, gauss = (_stack(outs, f) for f in ("weights", "raw_weights", "gaussian"))
        p_t = _stack(outs, "p_t")  # (T, B) or None
    results = []
    for i, (toks, lps, live) in enumerate(
        zip(tokens.T.tolist(), picked.T.tolist(), alive.T.tolist(), strict=True)
    ):
        steps = []
        for t in range(sum(live)):
            if not record:
                steps.append(
                    StepRecord(toks[t], lps[t], [], [], None, None, None, None, query[t, i])
                )
                continue
            steps.append(StepRecord(
                token=toks[t], log_prob=lps[t], top_ids=top_ids[t][i], top_probs=top_probs[t][i],
                weights=None if weights is None else weights[t, i],
                raw_weights=None if raw is None else raw[t, i],
                gaussian=None if gauss is None else gauss[t, i],
                p_t=None if p_t is None else float(p_t[t, i]), query=query[t, i],
            ))  # fmt: skip
        results.append(Decoded(steps, sum(lps[: len(steps)]) / max(1, len(steps))))
    return results


@torch.inference_mode()
def beam_search(
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
            f"beam_search decodes one sentence at a time, got a batch of {src.shape[0]}"
        )
    if not 1 <= beam <= 10:
        raise ValueError(f"beam must be between 1 and 10, got {beam}")
    max_len = max_len or model.cfg.max_tgt_len
    memory, state = encoded or model.encode(src, lengths)
    hyps = [Decoded()]
    sums = torch.zeros(1, device=src.device)  # (K,) summed log-probs of live hypotheses
    y = torch.full((1,), BOS_ID, dtype=torch.long, device=src.device)
    finished: list[Decoded] = []
    for _ in range(max_len):
        K = len(hyps)
        mem_k = (
            memory
            if memory.values.shape[0] == K
            else memory.select(torch.zeros(K, dtype=torch.long))
        )
        out, state = model.decode_step(y, state, mem_k, window)
        log_probs = torch.log_softmax(out.logits.float(), -1)  # (K, V)
        total = (sums[:, None] + log_probs).flatten()  # (K * V,)
        best = total.topk(min(beam * 2, total.numel()))
        V = log_probs.shape[1]
        new_hyps, new_sums, rows, toks = [], [], [], []
        for value, flat in zip(best.values.tolist(), best.indices.tolist(), strict=True):
            k, tok = divmod(flat, V)
            h = Decoded(hyps[k].steps + [_record(out, k, tok, log_probs[k], top_k)])
            if tok == EOS_ID:
                h.score = value / len(h.steps)
                finished.append(h)
            else:
                new_hyps.append(h), new_sums.append(value), rows.append(k), toks.append(tok)
            if len(new_hyps) == beam:
                break
        if len(finished) >= beam or not new_hyps:
            break
        index = torch.tensor(rows, dtype=torch.long, device=src.device)
        hyps, sums, state = new_hyps, torch.tensor(new_sums, device=src.device), state.select(index)
        y = torch.tensor(toks, dtype=torch.long, device=src.device)
    for h, s in zip(hyps, sums.tolist(), strict=True):  # cut at max_len: rank them too
        if len(finished) < beam:
            h.score = s / max(1, len(h.steps))
            finished.append(h)
    return sorted(finished, key=lambda h: h.score, reverse=True)[:beam]


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
    memory, state = encoded or model.encode(src, lengths)
    y = torch.full((1,), BOS_ID, dtype=torch.long, device=src.device)
    result = Decoded()
    for tok in target:
        out, state = model.decode_step(y, state, memory, window)
        log_probs = torch.log_softmax(out.logits.float(), -1)[0]  # (V,)
        result.steps.append(_record(out, 0, tok, log_probs, top_k))
        y = torch.tensor([tok], dtype=torch.long, device=src.device)
    result.score = sum(s.log_prob for s in result.steps) / max(1, len(result.steps))
    return result
