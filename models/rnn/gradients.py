"""The vanishing gradient, measured: how much the last state h_T of a recurrent encoder depends on
each input x_t (Bengio et al. 1994; Pascanu et al. 2013).

By the chain rule, for a plain RNN ``h_k = tanh(W x_k + U h_{k-1} + b)``::

    ∂h_T/∂x_t = (∏_{k=t+1}^{T} ∂h_k/∂h_{k-1}) ∂h_t/∂x_t,   ∂h_k/∂h_{k-1} = diag(1 - h_k²) U

so the earlier the input, the more one-step Jacobians are multiplied; when their norms are below 1
the product shrinks exponentially with the distance T - t. The LSTM's cell state
``c_t = f_t ⊙ c_{t-1} + i_t ⊙ c~_t`` and the GRU's interpolation ``h_t = z_t ⊙ h_{t-1} + ...``
add a path whose one-step factor is a gate (f_t, z_t), close to 1 when the network keeps its state.

:func:`jacobian_norms` measures ‖∂h_T/∂x_t‖_F exactly with autograd (one backward pass).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from models.rnn.cells import cell_type_of
from models.rnn.translator import Translator


@dataclass(frozen=True)
class GradientProfile:
    """One encoder on one sentence. cell_type: "rnn", "gru" or "lstm"; tokens: the T source pieces;
    norms (T,): ‖∂h_T/∂x_t‖_F for each position t."""

    cell_type: str
    tokens: list[str]
    norms: np.ndarray

    @property
    def first_to_last(self) -> float:
        """‖∂h_T/∂x_1‖ / ‖∂h_T/∂x_T‖: below 1 when the first word reaches h_T less than the last."""
        return float(self.norms[0] / max(float(self.norms[-1]), 1e-30))

    @property
    def median_step_ratio(self) -> float:
        """The median over t of ‖∂h_T/∂x_t‖ / ‖∂h_T/∂x_{t+1}‖: below 1 when each step further back
        shrinks the gradient (1 for a single position)."""
        norms = np.maximum(np.asarray(self.norms, dtype=float), 1e-30)
        return float(np.median(norms[:-1] / norms[1:])) if norms.size > 1 else 1.0


def _batched(rnn: nn.RNNBase, x: torch.Tensor) -> torch.Tensor:
    """One sequence x (T, in) as a batch of one in the module's layout."""
    return x.unsqueeze(0) if rnn.batch_first else x.unsqueeze(1)


def last_state(rnn: nn.RNNBase, x: torch.Tensor) -> torch.Tensor:
    """h_T of the forward direction of the top layer for one sequence x (T, in): (H,)."""
    _, h_n = rnn(_batched(rnn, x))
    h_n = h_n[0] if isinstance(h_n, tuple) else h_n  # (layers * n_dir, 1, H)
    n_dir = 2 if rnn.bidirectional else 1
    return h_n[-n_dir, 0]  # (H,)


def jacobian_norms(rnn: nn.RNNBase, x: torch.Tensor) -> np.ndarray:
    """‖∂h_T/∂x_t‖_F for t = 1 .. T (h_T: the forward direction of the top layer), x (T, in).

    One backward pass: the sentence is copied H times and copy i back-propagates h_T[i] only, so
    x's gradient holds the H rows of the Jacobian."""
    H = rnn.hidden_size
    with torch.enable_grad():
        xs = x.detach().unsqueeze(0).repeat(H, 1, 1).requires_grad_(True)  # (H, T, in)
        batch = xs if rnn.batch_first else xs.transpose(0, 1)  # the module's layout
        _, h_n = rnn(batch)
        h_n = h_n[0] if isinstance(h_n, tuple) else h_n  # (layers * n_dir, H, H)
        h_T = h_n[-(2 if rnn.bidirectional else 1)]  # (H copies, H units)
        h_T.diagonal().sum().backward()  # copy i carries ∂h_T[i]/∂x
    return xs.grad.pow(2).sum(dim=(0, 2)).sqrt().cpu().numpy()  # (T,)


def encoder_profile(translator: Translator, text: str) -> GradientProfile:
    """The profile of ``translator``'s encoder on the English ``text``, read as the encoder reads
    it (its pieces, then ``</s>``; eval mode: no dropout). ValueError when the text is empty."""
    source = translator._source(text)
    enc = translator.model.encoder
    x = enc.embedding(source.src[0]).detach()  # (T, E)
    return GradientProfile(
        cell_type=cell_type_of(enc.rnn),
        tokens=translator.src_tok.pieces(source.ids),
        norms=jacobian_norms(enc.rnn, x),
    )
