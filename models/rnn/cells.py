"""The recurrent cells written out, step by step, with torch's own weights, so that every gate
can be looked at (``nn.RNN``/``nn.GRU``/``nn.LSTM`` return only the hidden states).

Each function reads the stacked weights of one layer and direction of a trained module and runs
the equations PyTorch runs, in the page's notation (the source article's and Elman's): ``U`` acts on
the input x_t (torch's ``weight_ih_l{k}[_reverse]``, bias ``b_U`` = ``bias_ih``), ``W`` on the
previous state h_{t-1} (``weight_hh``, ``b_W`` = ``bias_hh``); gate blocks are stacked in torch's
order:

- RNN (Elman, tanh): ``h_t = tanh(W h_{t-1} + b_W + U x_t + b_U)``
- GRU (Cho et al. 2014; blocks r, z, n): ``r_t = σ(W_r h_{t-1} + U_r x_t + b_r)``,
  ``z_t = σ(W_z h_{t-1} + U_z x_t + b_z)`` (each b the sum of the two biases),
  ``h~_t = tanh(U_h x_t + b_Uh + r_t ⊙ (W_h h_{t-1} + b_Wh))``,
  ``h_t = z_t ⊙ h_{t-1} + (1 - z_t) ⊙ h~_t`` (z_t near 1 keeps the old state, as in Cho et al.'s
  eq. 7; the reset gate multiplies W_h h_{t-1}, where Cho et al. write W_h (r_t ⊙ h_{t-1}):
  PyTorch's and cuDNN's variant).
- LSTM (Hochreiter & Schmidhuber 1997, with the forget gate of Gers et al. 2000; blocks i, f, g,
  o): ``i_t, f_t, o_t = σ(W h_{t-1} + U x_t + b)``, ``c~_t = tanh(...)`` (block g),
  ``c_t = f_t ⊙ c_{t-1} + i_t ⊙ c~_t``, ``h_t = o_t ⊙ tanh(c_t)``.

The results agree with the modules to float rounding (tests/test_recurrent_cells.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from models.rnn.translator import Translator

GATES = {  # the gate blocks of each cell type, in torch's stacking order
    "rnn": (),
    "gru": ("r", "z", "n"),
    "lstm": ("i", "f", "g", "o"),
}


@dataclass(frozen=True)
class CellTrace:
    """One layer and direction of a recurrent network over one sequence, in reading order of the
    positions (a backward direction is stored by position too: ``hidden[t]`` is the state after
    reading x_t, whichever way the direction reads).

    cell_type: "rnn", "gru" or "lstm"; layer: 0-based; reverse: the backward direction of a BiRNN.
    hidden (T, H): h_t. gates: name -> (T, H) — GRU "r" (reset), "z" (update), "n" (candidate
    h~_t); LSTM "i" (input), "f" (forget), "g" (candidate c~_t), "o" (output); none for an RNN.
    cell (T, H): the LSTM cell state c_t (None for the others).
    """

    cell_type: str
    layer: int
    reverse: bool
    hidden: np.ndarray
    gates: dict[str, np.ndarray] = field(default_factory=dict)
    cell: np.ndarray | None = None


@dataclass(frozen=True)
class EncoderTrace:
    """A translator's encoder on one sentence: tokens, the T pieces it read (ending with ``</s>``);
    layers[k][d]: layer k, direction d (0 forward, 1 backward when bidirectional); truncated: the
    sentence was longer than the model reads and was cut."""

    tokens: list[str]
    layers: list[list[CellTrace]]
    truncated: bool = False


def cell_type_of(rnn: nn.RNNBase) -> str:
    """ "rnn", "gru" or "lstm" for a torch recurrent module (ValueError for anything else)."""
    if isinstance(rnn, nn.LSTM):
        return "lstm"
    if isinstance(rnn, nn.GRU):
        return "gru"
    if isinstance(rnn, nn.RNN) and rnn.nonlinearity == "tanh":
        return "rnn"
    raise ValueError(f"no cell equations for {type(rnn).__name__}")


def layer_weights(rnn: nn.RNNBase, layer: int, reverse: bool) -> tuple[torch.Tensor, ...]:
    """(U (G*H, in), W (G*H, H), b_U (G*H,), b_W (G*H,)) of one layer and direction: the input
    weights, the recurrent weights and their biases (zeros for a module built with ``bias=False``)."""
    suffix = f"_l{layer}" + ("_reverse" if reverse else "")
    U = getattr(rnn, "weight_ih" + suffix).detach()  # (G*H, in)
    W = getattr(rnn, "weight_hh" + suffix).detach()  # (G*H, H)
    if not rnn.bias:
        zeros = torch.zeros(U.shape[0], dtype=U.dtype, device=U.device)
        return U, W, zeros, zeros
    b_U = getattr(rnn, "bias_ih" + suffix).detach()  # (G*H,)
    b_W = getattr(rnn, "bias_hh" + suffix).detach()  # (G*H,)
    return U, W, b_U, b_W


def _step(cell_type: str, ux: torch.Tensor, wh: torch.Tensor, h, c) -> tuple:
    """One time step from the input part ``ux`` = U x_t + b_U and the recurrent part
    ``wh`` = W h_{t-1} + b_W, both (G*H,): -> (h_t, c_t or None, {gate: (H,)})."""
    if cell_type == "rnn":
        return torch.tanh(wh + ux), None, {}
    if cell_type == "gru":
        ur, uz, un = ux.chunk(3)  # (H,) each
        wr, wz, wn = wh.chunk(3)
        r, z = torch.sigmoid(wr + ur), torch.sigmoid(wz + uz)
        n = torch.tanh(un + r * wn)  # the candidate h~_t
        return z * h + (1 - z) * n, None, {"r": r, "z": z, "n": n}
    i, f, g, o = (wh + ux).chunk(4)  # (H,) each
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c = f * c + i * g
    return o * torch.tanh(c), c, {"i": i, "f": f, "g": g, "o": o}


@torch.no_grad()
def run_direction(
    rnn: nn.RNNBase, x: torch.Tensor, layer: int = 0, reverse: bool = False
) -> CellTrace:
    """The cell equations of one layer and direction of ``rnn`` over one sequence x (T, in),
    starting from zero states (as the encoders do)."""
    cell_type = cell_type_of(rnn)
    U, W, b_U, b_W = layer_weights(rnn, layer, reverse)
    H = rnn.hidden_size
    ux_all = x.to(U.dtype) @ U.T + b_U  # (T, G*H): the input parts of every step at once
    h = torch.zeros(H, dtype=W.dtype, device=W.device)  # (H,)
    c = torch.zeros_like(h) if cell_type == "lstm" else None
    order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    hs, cs, gates = {}, {}, {name: {} for name in GATES[cell_type]}
    for t in order:
        h, c, step_gates = _step(cell_type, ux_all[t], W @ h + b_W, h, c)
        hs[t] = h
        if c is not None:
            cs[t] = c
        for name, value in step_gates.items():
            gates[name][t] = value
    positions = range(x.shape[0])
    stack = lambda d: torch.stack([d[t] for t in positions]).float().cpu().numpy()  # noqa: E731
    return CellTrace(
        cell_type=cell_type,
        layer=layer,
        reverse=reverse,
        hidden=stack(hs),  # (T, H)
        gates={name: stack(values) for name, values in gates.items()},  # (T, H) each
        cell=stack(cs) if cs else None,
    )


def run_layers(rnn: nn.RNNBase, x: torch.Tensor) -> list[list[CellTrace]]:
    """Every layer and direction of ``rnn`` over one sequence x (T, in): ``[layer][direction]``
    (direction 0 forward, 1 backward). Layer k + 1 reads layer k's outputs, the two directions
    concatenated (eval mode: no dropout between layers)."""
    n_dir = 2 if rnn.bidirectional else 1
    layers, inputs = [], x
    for layer in range(rnn.num_layers):
        traces = [run_direction(rnn, inputs, layer, reverse=bool(d)) for d in range(n_dir)]
        layers.append(traces)
        outputs = np.concatenate([t.hidden for t in traces], axis=-1)  # (T, n_dir * H)
        inputs = torch.from_numpy(outputs).to(x.device)
    return layers


def encoder_trace(translator: Translator, text: str) -> EncoderTrace:
    """Every state and gate of ``translator``'s encoder on the English ``text``, from the
    embeddings it reads (eval mode: no dropout). ValueError when the text is empty."""
    source = translator._source(text)
    enc = translator.model.encoder
    with torch.no_grad():
        x = enc.embedding(source.src[0])  # (T, E)
    return EncoderTrace(
        tokens=translator.src_tok.pieces(source.ids),
        layers=run_layers(enc.rnn, x),
        truncated=source.truncated,
    )


def most_varying_units(hidden: np.ndarray, n: int) -> list[int]:
    """The indices of the ``n`` units whose state varies most over the positions of hidden (T, H),
    most varying first (ties: lower index first)."""
    variance = np.asarray(hidden, dtype=np.float64).var(axis=0)  # (H,)
    order = sorted(range(variance.shape[0]), key=lambda u: (-variance[u], u))
    return order[: max(0, n)]
