"""The Show-Attend-Tell decoder's loops (Xu et al. 2015): the teacher-forced pass that training
uses (with hard attention's sampled locations, section 4.1), beam search through the shared
:mod:`models.beam`, forced decoding of given words, and seeded location samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from models.attention import weighted_sum
from models.beam import BeamSettings, beam_search, check_beam
from models.captioning.model import END, SPECIALS, START, Memory, ShowAttendTell, StepOutput, Vocab
from models.limits import CAPTIONER_BEAM

State = tuple[torch.Tensor, torch.Tensor]  # the LSTM's (h, c), (B, H) each


@dataclass(frozen=True)
class ForcedPass:
    """A teacher-forced pass over a batch: logits (B, T, V), alphas (B, T, L), betas (B, T),
    log_p_locations (B, T) = log alpha at the sampled location (0 where the expectation was used),
    entropy (B, T) of each alpha distribution."""

    logits: torch.Tensor
    alphas: torch.Tensor
    betas: torch.Tensor
    log_p_locations: torch.Tensor
    entropy: torch.Tensor


def forced_pass(
    model: ShowAttendTell,
    features: torch.Tensor,
    inputs: torch.Tensor,
    sampled: torch.Tensor | None = None,
    generator: torch.Generator | None = None,
) -> ForcedPass:
    """Teacher forcing on ``inputs`` (B, T) (<start> w_1 ... w_{T-1}); ``sampled`` (B,) bool marks the
    images that use a sampled location (hard attention); the others use the expectation (soft)."""
    memory, state = model.memory(features)
    logits, alphas, betas, logps, ents = [], [], [], [], []
    for t in range(inputs.shape[1]):
        alpha = model.attend(memory, state[0])  # (B, L)
        location = None
        if sampled is not None:
            location = torch.multinomial(alpha.detach(), 1, generator=generator).squeeze(-1)
            logps.append(torch.log(alpha.gather(1, location[:, None]).squeeze(1) + 1e-12) * sampled)
        out = _forced_step(model, inputs[:, t], state, memory, alpha, location, sampled)
        state = out.state
        logits.append(out.logits)
        alphas.append(alpha)
        betas.append(out.beta)
        ents.append(-(alpha * torch.log(alpha + 1e-12)).sum(-1))  # (B,)
    zeros = torch.zeros_like(inputs, dtype=torch.float)
    return ForcedPass(
        torch.stack(logits, 1),
        torch.stack(alphas, 1),
        torch.stack(betas, 1),
        torch.stack(logps, 1) if logps else zeros,
        torch.stack(ents, 1),
    )


def _forced_step(
    model: ShowAttendTell,
    words: torch.Tensor,
    state: State,
    memory: Memory,
    alpha: torch.Tensor,
    location: torch.Tensor | None,
    sampled: torch.Tensor | None,
) -> StepOutput:
    """One teacher-forced step with given alphas: soft context, or per image a sampled a_{s_t}."""
    beta = model.gate(state[0])  # (B,)
    ctx = weighted_sum(alpha.unsqueeze(1), memory.annotations).squeeze(1)  # (B, A)
    if location is not None and sampled is not None:
        ctx = torch.where(sampled[:, None], memory.at(location), ctx)  # (B, A)
    logits, state = model.emit(words, state, beta.unsqueeze(-1) * ctx)
    return StepOutput(logits, alpha, beta, state, alpha.argmax(-1))


def _repeat(memory: Memory, k: int) -> Memory:
    """The first image's memory, k times along the batch (a view, no copy)."""
    return Memory(memory.annotations[:1].expand(k, -1, -1), memory.keys[:1].expand(k, -1, -1))


def expand(memory: Memory, state: State, k: int) -> tuple[Memory, State]:
    """Repeat a single image's memory and state k times along the batch."""
    return _repeat(memory, k), (
        state[0].expand(k, -1).contiguous(),
        state[1].expand(k, -1).contiguous(),
    )


@dataclass(frozen=True)
class BeamState:
    """One image's memory repeated for each of the K hypotheses, and their LSTM states."""

    memory: Memory
    state: State

    def select(self, index: torch.Tensor) -> BeamState:
        state = (self.state[0][index], self.state[1][index])
        return BeamState(_repeat(self.memory, len(index)), state)


@torch.inference_mode()
def beam_caption(
    model: ShowAttendTell, features: torch.Tensor, vocab: Vocab, beam: int = 1
) -> list[str]:
    """The most probable caption under beam search (beam 1 = greedy); features (1, L, D).

    Hypotheses are ranked by log-probability (no length normalisation) and the search stops once
    the best finished caption beats every live one; <pad>, <start> and <unk> are never emitted.
    """
    check_beam(beam, CAPTIONER_BEAM)
    end = vocab.stoi[END]
    specials = torch.arange(len(SPECIALS), device=features.device)

    def step(words: torch.Tensor, st: BeamState) -> tuple[torch.Tensor, BeamState]:
        out = model.step(words, st.state, st.memory, model.default_mode())
        logp = torch.log_softmax(out.logits, -1)  # (K, V)
        logp[:, : len(SPECIALS)] = torch.where(
            specials == end, logp[:, : len(SPECIALS)], -torch.inf
        )
        return logp, BeamState(st.memory, out.state)

    settings = BeamSettings(beam, model.cfg.max_len, n_best=1, length_norm=False, refill=False)
    first = torch.full((1,), vocab.stoi[START], dtype=torch.long, device=features.device)
    state = BeamState(*expand(*model.memory(features), 1))
    found = beam_search(step, state, first, end=end, settings=settings)
    return vocab.decode(list(found[0].tokens))


@torch.inference_mode()
def force(
    model: ShowAttendTell, features: torch.Tensor, vocab: Vocab, words: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Forced decoding of ``words``: (alphas (T, L), betas (T,), word log-probs (T,), log p(<end>))."""
    memory, state = model.memory(features)  # (1, L, A)
    ids = vocab.encode(words) + [vocab.stoi[END]]
    prev = torch.tensor([vocab.stoi[START]], device=features.device)
    alphas, betas, logps = [], [], []
    for target in ids:
        out = model.step(prev, state, memory, model.default_mode())
        logps.append(float(torch.log_softmax(out.logits, -1)[0, target]))
        alphas.append(out.alphas[0])
        betas.append(out.beta[0])
        state, prev = out.state, torch.tensor([target], device=features.device)
    a = torch.stack(alphas[:-1]).cpu().numpy() if words else np.zeros((0, features.shape[1]))
    b = torch.stack(betas[:-1]).cpu().numpy() if words else np.zeros(0)
    return a, b, np.array(logps[:-1]), logps[-1]


@torch.inference_mode()
def sample_locations(
    model: ShowAttendTell, features: torch.Tensor, vocab: Vocab, words: list[str], n: int, seed: int
) -> np.ndarray:
    """(n, T) locations sampled from alpha_t, s_t ~ Multinoulli(alpha_t), along ``words`` (section 4.1)."""
    if n <= 0 or not words:
        return np.zeros((0, len(words)), dtype=np.int64)
    generator = torch.Generator(device=features.device).manual_seed(seed)
    memory, state = expand(*model.memory(features), n)
    prev = torch.full((n,), vocab.stoi[START], dtype=torch.long, device=features.device)
    locations = []
    for word_id in vocab.encode(words):
        out = model.step(prev, state, memory, "sample", generator)
        locations.append(out.location)
        state, prev = out.state, torch.full_like(prev, word_id)
    return torch.stack(locations, 1).cpu().numpy()  # (n, T)
