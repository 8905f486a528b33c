"""Sinusoidal positional encoding (Vaswani et al. 2017, "Attention Is All You Need", section 3.5).

``PE(pos, 2i) = sin(pos / 10000^(2i / d_model))`` and ``PE(pos, 2i + 1) = cos(pos / 10000^(2i / d_model))``.
For an odd ``d_model`` the last column is a sine (its cosine partner does not exist).
"""

from __future__ import annotations

import torch
from torch import nn


def sinusoidal_encoding(n_positions: int, d_model: int) -> torch.Tensor:
    """The PE matrix: (n_positions, d_model), float32."""
    if n_positions < 1 or d_model < 1:
        raise ValueError(f"need n_positions >= 1 and d_model >= 1, got {n_positions}, {d_model}")
    position = torch.arange(n_positions, dtype=torch.float64).unsqueeze(1)  # (P, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(d/2),)
    angle = position / torch.pow(10000.0, two_i / d_model)  # (P, ceil(d/2))
    pe = torch.zeros(n_positions, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe.float()


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding to embeddings: (B, T, d) -> (B, T, d)."""

    def __init__(self, d_model: int, max_len: int = 512):
        super().__init__()
        self.register_buffer("pe", sinusoidal_encoding(max_len, d_model), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[1] > self.pe.shape[0]:
            raise ValueError(f"sequence of {x.shape[1]} exceeds max_len {self.pe.shape[0]}")
        return x + self.pe[: x.shape[1]]  # (B, T, d)


class LearnedPositionalEmbedding(nn.Module):
    """Adds a learned embedding per position (Gehring et al. 2017; Vaswani et al. 2017, table 3 (E))."""

    def __init__(self, d_model: int, max_len: int = 512):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[1] > self.embedding.num_embeddings:
            raise ValueError(
                f"sequence of {x.shape[1]} exceeds max_len {self.embedding.num_embeddings}"
            )
        positions = torch.arange(x.shape[1], device=x.device)
        return x + self.embedding(positions)  # (B, T, d)


def position_table(positions: nn.Module) -> torch.Tensor:
    """The vector each position adds, (max_len, d): the fixed sinusoids or the learned rows."""
    if isinstance(positions, SinusoidalPositionalEncoding):
        return positions.pe.detach().float().cpu()
    if isinstance(positions, LearnedPositionalEmbedding):
        return positions.embedding.weight.detach().float().cpu()
    raise TypeError(f"not a positional module: {type(positions).__name__}")


def position_cosine(table: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of every pair of position vectors: (P, d) -> (P, P), 1 on the diagonal
    (an all-zero vector, which no position has, would get 0 instead of NaN)."""
    unit = torch.nn.functional.normalize(table.double(), dim=-1)  # (P, d)
    return (unit @ unit.T).float()  # (P, P)
