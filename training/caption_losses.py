"""The training objectives of Show, Attend and Tell (Xu et al. 2015) for
:mod:`training.train_captions`.

- eq. 14    soft attention: ``-log P(y|x) + lambda sum_i (1 - sum_t alpha_ti)^2`` (doubly
            stochastic attention).
- eq. 10-12 hard attention: REINFORCE with reward ``log p(y | s, a)``, a moving-average baseline
            and an entropy bonus; with probability 0.5 per image, s is replaced by its expectation.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from models.captioning.decoding import forced_pass
from models.captioning.model import ShowAttendTell


def caption_nll(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """-log p(y | a) per caption (B,): summed over the non-pad target words."""
    nll = nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (B, T)
    return (nll * (targets != 0)).sum(1)


def doubly_stochastic_penalty(alphas: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """sum_i (1 - sum_t alpha_ti)^2 per caption (B,) over the real steps (eq. 14)."""
    mask = (targets != 0).float().unsqueeze(-1)  # (B, T, 1)
    total = (alphas * mask).sum(1)  # (B, L)
    return ((1.0 - total) ** 2).sum(1)


def soft_loss(model: ShowAttendTell, features, inputs, targets, penalty: float) -> torch.Tensor:
    """Mean over the batch of -log P(y|x) + lambda * the doubly stochastic penalty (eq. 14)."""
    fp = forced_pass(model, features, inputs)
    return (
        caption_nll(fp.logits, targets) + penalty * doubly_stochastic_penalty(fp.alphas, targets)
    ).mean()


@dataclass
class Baseline:
    """The moving average b_k = decay b_{k-1} + (1 - decay) log p(y | s_k, a) (section 4.1)."""

    value: float = 0.0
    decay: float = 0.9
    started: bool = False

    def update(self, reward: float) -> None:
        self.value = (
            reward if not self.started else self.decay * self.value + (1 - self.decay) * reward
        )
        self.started = True


def hard_loss(
    model: ShowAttendTell,
    features,
    inputs,
    targets,
    baseline: Baseline,
    reinforce: float = 1.0,
    entropy: float = 0.01,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """The hard-attention objective (eq. 12): -[log p(y|s,a) + lambda_r (log p(y|s,a) - b)
    log p(s|a) + lambda_e H[s]]; with probability 0.5 per image s is replaced by its expectation."""
    B = features.shape[0]
    sampled = torch.rand(B, generator=generator) < 0.5  # (B,)
    fp = forced_pass(model, features, inputs, sampled.to(features.device), generator)
    nll = caption_nll(fp.logits, targets)  # (B,)
    mask = (targets != 0).float()  # (B, T)
    reward = -nll.detach()  # log p(y | s, a)
    advantage = (reward - baseline.value) * sampled.to(reward.device)  # (B,)
    log_p_s = (fp.log_p_locations * mask).sum(1)  # (B,)
    ent = (fp.entropy * mask).sum(1)  # (B,)
    if bool(sampled.any()):
        baseline.update(float(reward[sampled.to(reward.device)].mean()))
    return (nll - reinforce * advantage * log_p_s - entropy * ent).mean()
