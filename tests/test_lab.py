"""The training lab's pure parts: the toy tasks and their true alignments, the training loop on a
tiny configuration, the plain "rnn" cell of the shared Seq2Seq, the lab's figures and its link
check."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from app_pages.lab.controls import run_summary, url_notices
from models.lab.tasks import (
    MONTHS,
    TASKS,
    date_example,
    eval_examples,
    probe_example,
    sample,
    sequence_example,
)
from models.lab.train import (
    LabConfig,
    build_lab_model,
    lab_learning_rate,
    make_batch,
    snapshot_steps,
    train_run,
    train_step,
)
from models.rnn.seq2seq import Seq2Seq, Seq2SeqConfig
from models.tokenizer import BOS_ID, EOS_ID
from ui.downloads import _jsonable
from viz.lab import (
    Curves,
    length_accuracy_chart,
    log_ticks,
    probe_play,
    probe_player,
    training_curves,
)

TINY = LabConfig(max_len=5, hidden=32, steps=12, batch=8)


def _rows_ok(alignment: np.ndarray) -> None:
    sums = alignment.sum(-1)
    assert np.all((np.abs(sums - 1) < 1e-9) | (sums == 0))
    assert alignment[-1, -1] == 1.0  # </s> reads </s>


@pytest.mark.parametrize("n", [1, 2, 7])
def test_reverse_is_the_anti_diagonal(n: int) -> None:
    source = list("abcdefg")[:n]
    ex = sequence_example("reverse", source)
    assert ex.target == source[::-1]
    assert ex.alignment.shape == (n + 1, n + 1)
    _rows_ok(ex.alignment)
    for i in range(n):
        assert ex.alignment[i, n - 1 - i] == 1.0
        assert ex.source[int(ex.alignment[i].argmax())] == ex.target[i]


def test_copy_is_the_diagonal() -> None:
    ex = sequence_example("copy", list("hello"))
    assert ex.target == list("hello")
    np.testing.assert_array_equal(ex.alignment, np.eye(6))


def test_sort_spreads_over_duplicates() -> None:
    ex = sequence_example("sort", list("3131"))
    assert ex.target == list("1133")
    _rows_ok(ex.alignment)
    np.testing.assert_allclose(ex.alignment[0, :4], [0, 0.5, 0, 0.5])  # either "1"
    np.testing.assert_allclose(ex.alignment[2, :4], [0.5, 0, 0.5, 0])  # either "3"


def test_unknown_sequence_task_is_refused() -> None:
    with pytest.raises(ValueError, match="not a sequence task"):
        sequence_example("date", list("abc"))


def test_dates_are_iso_and_aligned() -> None:
    rng = random.Random(3)
    for _ in range(300):
        ex = date_example(rng)
        text, target = "".join(ex.source), "".join(ex.target)
        year, month, day = (int(x) for x in target.split("-"))
        assert len(target) == 10 and str(year) in text
        _rows_ok(ex.alignment)
        assert ex.alignment.shape == (11, len(ex.source) + 1)
        assert not ex.alignment[4].any() and not ex.alignment[7].any()  # the dashes
        for i in range(4):  # each year digit reads its own character
            assert ex.source[int(ex.alignment[i].argmax())] == ex.target[i]
        read = {ex.source[j] for j in np.nonzero(ex.alignment[5])[0]}
        assert read <= set(MONTHS[month - 1]) or read <= set("0123456789")
        day_chars = [ex.source[j] for j in np.nonzero(ex.alignment[8] + ex.alignment[9])[0]]
        assert int("".join(day_chars)) == day


def test_date_formats_vary() -> None:
    rng = random.Random(0)
    texts = ["".join(date_example(rng).source) for _ in range(200)]
    assert any(t[0].isalpha() for t in texts) and any(t[:4].isdigit() for t in texts)
    assert any("/" in t for t in texts) and any(" of " in t for t in texts)
    assert any("," in t for t in texts)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_sample_respects_the_length(task: str) -> None:
    rng = random.Random(1)
    for _ in range(50):
        assert len(sample(task, rng, 12).source) <= 12
    assert [len(e.source) for e in eval_examples(task, 12, 2)] == [
        len(e.source) for e in eval_examples(task, 12, 2)
    ]
    assert probe_example(task, 12).source == probe_example(task, 12).source


def test_eval_set_covers_every_length_and_dates_need_room() -> None:
    lengths = [len(e.source) for e in eval_examples("reverse", 6, 3)]
    assert sorted(set(lengths)) == [1, 2, 3, 4, 5, 6] and len(lengths) == 18
    with pytest.raises(ValueError, match="at least"):
        sample("date", random.Random(0), 5)


def test_ids_round_trip() -> None:
    task = TASKS["date"]
    ex = date_example(random.Random(5))
    assert task.source_ids(ex.source)[-1] == EOS_ID
    ids = task.target_ids(ex.target)
    assert task.target_tokens(ids + [7, 8]) == ex.target


def test_batch_shapes_and_shift() -> None:
    examples = [sequence_example("reverse", list("abc")), sequence_example("reverse", list("a"))]
    batch = make_batch("reverse", examples)
    assert batch.src.shape == (2, 4) and batch.lengths.tolist() == [4, 2]
    assert batch.tgt_in[:, 0].tolist() == [BOS_ID, BOS_ID]
    assert torch.equal(batch.tgt_in[0, 1:], batch.tgt_out[0, :-1])
    assert batch.alignment.shape == (2, 4, 4) and batch.source_lengths == (3, 1)


def test_config_is_bounded() -> None:
    for bad in (
        {"layers": 3},
        {"max_len": 31},
        {"cell": "tcn"},
        {"attention": "local-m"},
        {"task": "date", "max_len": 5},
        {"steps": 9},
        {"hidden": 48},
    ):
        with pytest.raises(ValueError, match="out of range"):
            LabConfig(**bad)
    assert LabConfig().twin().attention == "none"
    assert LabConfig(attention="none").twin().attention == "bahdanau"
    assert lab_learning_rate(TINY, 0) == pytest.approx(TINY.lr)
    assert lab_learning_rate(TINY, TINY.steps) == pytest.approx(TINY.lr / 10)


def test_training_loop_on_a_tiny_config() -> None:
    seen = []
    run = train_run(TINY, 0, on_snapshot=seen.append)
    assert run.completed and len(run.snapshots) == len(snapshot_steps(TINY.steps)) == len(seen)
    assert [s.step for s in run.snapshots] == sorted(snapshot_steps(TINY.steps))
    last, probe = run.snapshots[-1], run.probe
    assert last.probe_weights.shape == (len(probe.target) + 1, len(probe.source) + 1)
    np.testing.assert_allclose(last.probe_weights.sum(-1), 1, atol=1e-5)
    assert 0 <= last.agreement <= 1 and 0 <= last.accuracy <= 1 and last.seconds > 0
    assert [n for n, _ in last.by_length] == [1, 2, 3, 4, 5]
    again = train_run(TINY, 0)
    assert [s.loss for s in again.snapshots[1:]] == [s.loss for s in run.snapshots[1:]]


def test_no_attention_has_no_weights_and_stop_is_honoured() -> None:
    calls = []
    run = train_run(TINY.twin(), 1, should_stop=lambda: len(calls.append(1) or calls) > 3)
    assert not run.completed and run.snapshots[-1].step < TINY.steps
    assert all(s.probe_weights is None and s.agreement is None for s in run.snapshots)


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize("attention", ["bahdanau", "luong-dot", "luong-concat", "local-p"])
def test_every_cell_and_attention_trains(cell: str, attention: str) -> None:
    config = LabConfig(
        task="sort",
        cell=cell,
        layers=2,
        attention=attention,
        max_len=4,
        hidden=32,
        steps=10,
        batch=4,
    )
    model = build_lab_model(config, 0)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    batch = make_batch("sort", [sample("sort", random.Random(i), 4) for i in range(4)])
    assert np.isfinite(train_step(model, optimizer, batch, config.lr))


def test_plain_rnn_cell_step_matches_the_module() -> None:
    cfg = Seq2SeqConfig(
        attention="luong-general",
        src_vocab=9,
        tgt_vocab=9,
        rnn="rnn",
        emb_dim=8,
        hidden=8,
        enc_hidden=8,
        dec_layers=2,
        dropout=0.0,
    )
    torch.manual_seed(0)
    model = Seq2Seq(cfg)
    assert isinstance(model.decoder_rnn, torch.nn.RNN)
    src, lengths, tgt_in = torch.tensor([[4, 5, 6, 3]]), torch.tensor([4]), torch.tensor([[2, 7]])
    model.train()
    trained, _ = model(src, lengths, tgt_in)
    model.eval()
    with torch.no_grad():
        stepped, _ = model(src, lengths, tgt_in)
    torch.testing.assert_close(trained.detach(), stepped, atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="'rnn'"):
        Seq2SeqConfig(rnn="elman")


def test_training_curves_figure() -> None:
    with_attn = Curves(
        "GRU + bahdanau", "bahdanau", [0, 5], [float("nan"), 1.0], [0, 0.5], [0.1, 0.7]
    )
    without = Curves("GRU, no attention", "none", [0, 5], [float("nan"), 2.0], [0, 0.1])
    fig = training_curves([with_attn, without], step=5)
    names = [(t.name, t.yaxis) for t in fig.data]
    assert names.count(("GRU + bahdanau", "y3")) == 1 and ("GRU, no attention", "y3") not in names
    assert fig.data[0].y == (None, 1.0)  # the untrained loss is left out
    assert [s.x0 for s in fig.layout.shapes] == [5, 5, 5]
    assert fig.layout.yaxis.type == "log"
    with pytest.raises(ValueError, match="1 accuracy values for 2 steps"):
        training_curves([Curves("x", "none", [0, 1], [1, 1], [0.5])])


def test_length_accuracy_chart() -> None:
    fig = length_accuracy_chart(
        [("a", "bahdanau", [(1, 1.0), (2, 0.5)]), ("b", "none", [(1, 0.2)])]
    )
    assert [t.name for t in fig.data] == ["a", "b"]
    assert list(fig.data[0].x) == [1, 2] and list(fig.data[0].y) == [1.0, 0.5]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        length_accuracy_chart([("a", "none", [(1, 2.0)])])


def test_probe_player_has_a_frame_per_snapshot() -> None:
    rng = np.random.default_rng(0)
    weights = [rng.dirichlet(np.ones(3), size=2) for _ in range(4)]  # (T_out, T_src) = (2, 3)
    steps, titles = [0, 10, 20, 30], [f"step {s}" for s in (0, 10, 20, 30)]
    fig = probe_player(weights, steps, list("abc"), list("xy"), titles=titles, index=2)
    assert np.allclose(fig.data[0].z, weights[2]) and fig.layout.title.text == "step 20"
    assert [f.name for f in fig.frames] == ["0", "1", "2", "3"]
    assert all(np.allclose(f.data[0].z, w) for f, w in zip(fig.frames, weights, strict=True))
    assert [f.layout.title.text for f in fig.frames] == titles
    assert fig.data[0].zmax == 1.0  # one colour scale for every step
    slider = fig.layout.sliders[0]
    assert slider.active == 2 and [s.label for s in slider.steps] == ["0", "10", "20", "30"]
    assert [list(s.args[0]) for s in slider.steps] == [["0"], ["1"], ["2"], ["3"]]
    assert fig.layout.updatemenus[0].buttons[0].method == "animate"
    assert probe_play()["seconds_per_frame"] > 0
    with pytest.raises(ValueError, match="4 weight maps, 3 steps"):
        probe_player(weights, steps[:3], list("abc"), list("xy"), titles=titles, index=0)
    with pytest.raises(ValueError, match="snapshot 4 of 4"):
        probe_player(weights, steps, list("abc"), list("xy"), titles=titles, index=4)


def test_url_notices() -> None:
    good = {
        "lab_task": "date",
        "lab_len": "30",
        "lab_bi": "false",
        "lab_hidden": "128",
        "lab_attn": "local-p",
        "lab_cell": "RNN",
        "lab_layers": "2",
        "other": "x",
    }
    assert url_notices(good) == []
    bad = url_notices({"lab_len": "99", "lab_cell": "tcn", "lab_seed": "-1", "lab_steps": "abc"})
    assert (
        len(bad) == 1
        and "cannot be used" in bad[0]
        and all(k in bad[0] for k in ("lab_len", "lab_cell", "lab_seed", "lab_steps"))
    )


def test_log_ticks_are_powers_of_ten_or_one_two_five() -> None:
    assert log_ticks([3.3, 0.002, float("nan")]) == [0.01, 0.1, 1.0]
    assert log_ticks([0.5, 0.05]) == [0.05, 0.1, 0.2, 0.5]
    assert log_ticks([3.2, 2.9]) == [] and log_ticks([]) == []  # plotly picks its own


def test_the_download_is_strict_json() -> None:
    run = train_run(LabConfig(max_len=4, hidden=32, steps=10, batch=4), 0)
    data = json.loads(json.dumps(run_summary(run), default=_jsonable, allow_nan=False))
    assert data["snapshots"][0]["loss"] is None and len(data["snapshots"]) == len(run.snapshots)
    assert len(data["probe"]["true_alignment"]) == len(run.probe.target) + 1
