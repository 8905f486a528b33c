"""One training step of every decoder on real data, and the evaluation CLI end to end."""

from __future__ import annotations

import json

import pytest

from models.checkpoints import read_card
from models.rnn.seq2seq import ATTENTION_NAMES
from tests.requirements_env import need_data
from training import evaluate, train_seq2seq


@pytest.mark.data
@pytest.mark.parametrize("attention", ATTENTION_NAMES)
def test_one_training_step_writes_a_loadable_checkpoint(attention, tmp_path):
    data = need_data()
    out, run = tmp_path / f"seq2seq-{attention}", tmp_path / "run"
    args = [
        "--attention",
        attention,
        "--data",
        str(data),
        "--out",
        str(out),
        "--run-dir",
        str(run),
        "--train-limit",
        "64",
        "--val-limit",
        "8",
        "--max-steps",
        "1",
        "--epochs",
        "1",
        "--batch-size",
        "32",
        "--hidden",
        "32",
        "--vocab-size",
        "400",
        "--skip-test",
        "--device",
        "cpu",
    ]
    train_seq2seq.main(args)
    card = read_card(out)
    assert card.epochs_trained == 1 and card.history[0]["train_loss"] > 0
    assert (run / "state.pt").is_file() and (out / "model.safetensors").is_file()
    train_seq2seq.main([*args[:-2], "--device", "cpu", "--resume", "--epochs", "2"])
    assert read_card(out).epochs_trained == 2


@pytest.mark.data
def test_evaluate_cli_on_any_parallel_files(tmp_path, capsys):
    data = need_data()
    out = tmp_path / "seq2seq-bahdanau"
    train_seq2seq.main(
        [
            "--attention",
            "bahdanau",
            "--data",
            str(data),
            "--out",
            str(out),
            "--run-dir",
            str(tmp_path / "run"),
            "--train-limit",
            "32",
            "--val-limit",
            "4",
            "--max-steps",
            "1",
            "--epochs",
            "1",
            "--hidden",
            "16",
            "--vocab-size",
            "400",
            "--skip-test",
        ]
    )
    (tmp_path / "s.en").write_text("A dog runs.\nTwo men are playing music in the street.\n")
    (tmp_path / "r.fr").write_text(
        "Un chien court.\nDeux hommes jouent de la musique dans la rue.\n"
    )
    capsys.readouterr()
    evaluate.main(
        [
            "--model",
            str(out),
            "--src",
            str(tmp_path / "s.en"),
            "--ref",
            str(tmp_path / "r.fr"),
            "--beam",
            "2",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 2 and 0 <= report["bleu"] <= 100
    assert set(report["bleu_by_length"]) == {"1-10"}
    evaluate.main(
        ["--model", str(out), "--data", str(data), "--concat", "3", "--json", "--split", "val"]
    )
    long = json.loads(capsys.readouterr().out)
    assert long["n"] == 1014 // 3 and long["concat"] == 3
