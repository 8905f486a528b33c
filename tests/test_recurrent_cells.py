"""The cells written out (models/rnn/cells.py) against torch's own modules, the gradient norms
(models/rnn/gradients.py) against autograd's full Jacobian, the vanishing gradient of a plain RNN
with small weights, and the Recurrent page's figure builders (every token labelled, cells of at
least 14 px)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from models.rnn.cells import cell_type_of, encoder_trace, most_varying_units, run_layers
from models.rnn.gradients import encoder_profile, jacobian_norms, last_state
from tests.helpers_seq2seq import tiny_tokenizers, tiny_translator
from viz.measure import MIN_CELL_PX
from viz.recurrent import token_lines, units_heatmap
from viz.recurrent_diagrams import DIAGRAMS

MODULES = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}


def _module(cell_type: str, **kw) -> nn.RNNBase:
    torch.manual_seed(0)
    return MODULES[cell_type](5, 7, batch_first=True, **kw).eval()


@pytest.mark.parametrize("cell_type", MODULES)
@pytest.mark.parametrize(
    "layers,bidirectional,bias", [(1, False, True), (2, True, True), (1, True, False)]
)
def test_cells_agree_with_torch(
    cell_type: str, layers: int, bidirectional: bool, bias: bool
) -> None:
    rnn = _module(cell_type, num_layers=layers, bidirectional=bidirectional, bias=bias)
    x = torch.randn(6, 5)  # (T, in)
    with torch.no_grad():
        out, h_n = rnn(x.unsqueeze(0))  # (1, T, n_dir * H)
    c_n = h_n[1] if cell_type == "lstm" else None
    h_n = h_n[0] if cell_type == "lstm" else h_n  # (layers * n_dir, 1, H)
    traces = run_layers(rnn, x)
    n_dir = 2 if bidirectional else 1
    assert len(traces) == layers and all(len(layer) == n_dir for layer in traces)
    top = np.concatenate([t.hidden for t in traces[-1]], axis=-1)  # (T, n_dir * H)
    np.testing.assert_allclose(top, out[0].numpy(), atol=1e-5)
    for k, layer in enumerate(traces):
        for d, trace in enumerate(layer):
            assert (trace.cell_type, trace.layer, trace.reverse) == (cell_type, k, bool(d))
            last = trace.hidden[0] if trace.reverse else trace.hidden[-1]  # the final state
            np.testing.assert_allclose(last, h_n[k * n_dir + d, 0].numpy(), atol=1e-5)
            if cell_type == "lstm":
                cell = trace.cell[0] if trace.reverse else trace.cell[-1]
                np.testing.assert_allclose(cell, c_n[k * n_dir + d, 0].numpy(), atol=1e-5)


def test_gru_gates_make_the_state() -> None:
    """h_t = z_t ⊙ h_{t-1} + (1 - z_t) ⊙ h~_t with the exposed gates; σ gates in (0, 1)."""
    trace = run_layers(_module("gru"), torch.randn(8, 5))[0][0]
    z, r, n, h = trace.gates["z"], trace.gates["r"], trace.gates["n"], trace.hidden
    previous = np.vstack([np.zeros((1, h.shape[1])), h[:-1]])
    np.testing.assert_allclose(h, z * previous + (1 - z) * n, atol=1e-6)
    assert ((z > 0) & (z < 1) & (r > 0) & (r < 1)).all() and (np.abs(n) <= 1).all()


def test_lstm_gates_make_the_cell() -> None:
    trace = run_layers(_module("lstm"), torch.randn(8, 5))[0][0]
    g = trace.gates
    previous = np.vstack([np.zeros((1, trace.cell.shape[1])), trace.cell[:-1]])
    np.testing.assert_allclose(trace.cell, g["f"] * previous + g["i"] * g["g"], atol=1e-6)
    np.testing.assert_allclose(trace.hidden, g["o"] * np.tanh(trace.cell), atol=1e-6)
    assert run_layers(_module("rnn"), torch.randn(3, 5))[0][0].gates == {}


def test_only_tanh_rnns_have_equations() -> None:
    with pytest.raises(ValueError, match="no cell equations"):
        cell_type_of(nn.RNN(3, 4, nonlinearity="relu"))


@pytest.mark.parametrize("cell_type", MODULES)
@pytest.mark.parametrize("batch_first,bidirectional", [(True, False), (False, True)])
def test_jacobian_norms_equal_autograd(
    cell_type: str, batch_first: bool, bidirectional: bool
) -> None:
    torch.manual_seed(1)
    rnn = MODULES[cell_type](5, 7, batch_first=batch_first, bidirectional=bidirectional).eval()
    x = torch.randn(6, 5)
    J = torch.autograd.functional.jacobian(lambda v: last_state(rnn, v), x)  # (H, T, in)
    expected = J.pow(2).sum(dim=(0, 2)).sqrt().numpy()  # (T,)
    np.testing.assert_allclose(jacobian_norms(rnn, x), expected, rtol=1e-4, atol=1e-8)


def test_plain_rnn_with_small_weights_forgets_geometrically() -> None:
    """‖∂h_T/∂x_t‖ shrinks at every step back when ‖W‖ < 1: the vanishing gradient."""
    torch.manual_seed(2)
    rnn = nn.RNN(4, 8, batch_first=True).eval()
    with torch.no_grad():
        rnn.weight_hh_l0.mul_(0.3 / torch.linalg.matrix_norm(rnn.weight_hh_l0, ord=2))
    norms = jacobian_norms(rnn, torch.randn(12, 4))
    assert (np.diff(norms) > 0).all()  # every step back is smaller
    assert norms[0] / norms[-1] < 0.3**10  # at least as fast as ‖W‖^(T-1) bounds it


def test_a_gru_that_keeps_its_state_keeps_its_gradient() -> None:
    """With the update gate near 1 (a large bias on z) the gradient hardly decays."""
    torch.manual_seed(3)
    gru = nn.GRU(4, 8, batch_first=True).eval()
    plain = nn.RNN(4, 8, batch_first=True).eval()
    with torch.no_grad():
        gru.bias_hh_l0[8:16] = 4.0  # z block: σ(≈4) ≈ 0.98
        plain.weight_hh_l0.mul_(0.3 / torch.linalg.matrix_norm(plain.weight_hh_l0, ord=2))
    x = torch.randn(12, 4)
    gru_norms, rnn_norms = jacobian_norms(gru, x), jacobian_norms(plain, x)
    assert gru_norms[0] / gru_norms[-1] > 1e3 * rnn_norms[0] / rnn_norms[-1]


def test_most_varying_units() -> None:
    hidden = np.array([[0.0, 1.0, 0.0, 5.0], [0.0, -1.0, 0.5, 5.0]])  # variances 0, 1, .0625, 0
    assert most_varying_units(hidden, 3) == [1, 2, 0]
    assert most_varying_units(hidden, 0) == [] and len(most_varying_units(hidden, 10)) == 4


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rc_tok")
    tiny_tokenizers(folder)
    return folder


@pytest.mark.parametrize("cell_type", ["gru", "lstm", "rnn"])
def test_encoder_trace_and_profile_of_a_translator(
    tmp_path: Path, tokenizers, cell_type: str
) -> None:
    translator = tiny_translator(tmp_path / "m", "bahdanau", tokenizers, rnn=cell_type)
    text = "a black dog runs ."
    trace = encoder_trace(translator, text)
    source = translator._source(text)
    with torch.no_grad():
        out, _h = translator.model.encoder.rnn(translator.model.encoder.embedding(source.src))
    assert trace.tokens == translator.src_tok.pieces(source.ids) and trace.tokens[-1] == "</s>"
    both = np.concatenate([d.hidden for d in trace.layers[0]], axis=-1)
    np.testing.assert_allclose(both, out[0].numpy(), atol=1e-5)
    profile = encoder_profile(translator, text)
    assert profile.cell_type == cell_type and profile.tokens == trace.tokens
    expected = translator.encoder_gradients(text).norms  # the forward direction's h_T
    np.testing.assert_allclose(profile.norms, expected, rtol=1e-4)
    assert profile.first_to_last == pytest.approx(profile.norms[0] / profile.norms[-1])
    ratios = profile.norms[:-1] / profile.norms[1:]
    assert profile.median_step_ratio == pytest.approx(float(np.median(ratios)))
    for compute in (encoder_trace, encoder_profile):
        with pytest.raises(ValueError, match="empty"):
            compute(translator, "\u200b \ufeff")


# ---------------------------------------------------------------- figures


def test_units_heatmap_labels_every_token_and_sizes_cells() -> None:
    tokens = [f"▁w{i}" for i in range(40)]
    fig = units_heatmap(
        np.random.default_rng(0).uniform(-1, 1, (40, 32)),
        tokens,
        list(range(100, 132)),
        title="hidden",
        axis_names=("unit", "token"),
        value_name="h_t",
        signed=True,
    )
    layout = fig.layout
    assert list(layout.xaxis.ticktext) == tokens and list(layout.xaxis.tickvals) == list(range(40))
    assert list(layout.yaxis.ticktext) == [str(u) for u in range(100, 132)]
    m = layout.margin
    assert (layout.width - m.l - m.r) / 40 >= MIN_CELL_PX
    assert (layout.height - m.t - m.b) / 32 >= MIN_CELL_PX
    assert fig.data[0].zmin == -1 and fig.data[0].zmax == 1
    with pytest.raises(ValueError):
        units_heatmap(
            np.zeros((3, 2)),
            ["a", "b"],
            [0, 1],
            title="",
            axis_names=("u", "t"),
            value_name="v",
            signed=False,
        )


def test_token_lines_log_scale_and_every_label() -> None:
    tokens = ["▁A", "▁dog", "▁A", "</s>"]  # a repeated token keeps its own position
    fig = token_lines(
        tokens,
        {"RNN": [1e-9, 1e-5, 1e-2, 1.0], "GRU": [0.5, 0.6, 0.8, 1.0]},
        title="t",
        x_title="x",
        y_title="y",
        log=True,
    )
    assert fig.layout.yaxis.type == "log"
    assert list(fig.layout.xaxis.tickvals) == [0, 1, 2, 3]
    assert list(fig.layout.xaxis.ticktext) == ["▁A", "▁dog", "▁A", "&lt;/s&gt;"]
    assert [t.name for t in fig.data] == ["RNN", "GRU"]
    assert fig.data[0].marker.symbol != fig.data[1].marker.symbol
    with pytest.raises(ValueError, match="3 values for 4 tokens"):
        token_lines(tokens, {"x": [1, 2, 3]}, title="", x_title="", y_title="")


@pytest.mark.parametrize("name", DIAGRAMS)
def test_diagrams_are_boxes_and_arrows(name: str) -> None:
    fig = DIAGRAMS[name]()
    layout = fig.layout
    assert not fig.data and layout.width and layout.height and layout.shapes
    texts = [a.text for a in layout.annotations if a.text]
    arrows = [a for a in layout.annotations if a.showarrow]
    assert texts and arrows and all(not a.text for a in arrows)
    assert layout.xaxis.visible is False and layout.yaxis.visible is False
