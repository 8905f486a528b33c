"""training/train_encoders.py end to end on a tiny parallel corpus: a one-way encoder-decoder of
each kind, no attention, the given tokenizers reused, a checkpoint under 12 MB in the Card schema
with its measured test BLEU and the command that rebuilds it, and --resume continuing the run."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from models.checkpoints import read_card
from models.rnn.checkpoint import load_seq2seq
from tests.helpers_seq2seq import EN, FR, tiny_checkpoint, tiny_tokenizers
from training.train_encoders import main


def _corpus(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for split in ("train", "val", "test_2016_flickr"):
        for lang, lines in (("en", EN), ("fr", FR)):
            with gzip.open(folder / f"{split}.{lang}.gz", "wt", encoding="utf-8") as f:
                f.write("\n".join(lines * 2) + "\n")
    return folder


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_train_encoders_writes_a_card_and_resumes(tmp_path: Path, kind: str) -> None:
    tiny_tokenizers(tmp_path / "tok")
    source = tiny_checkpoint(tmp_path / "seq2seq-src", "bahdanau", tmp_path / "tok")
    out, run = tmp_path / f"rnn-encoder-{kind}", tmp_path / "run"
    args = ["--rnn", kind, "--width", "16", "--tokenizers", str(source), "--threads", "1"]
    args += ["--data", str(_corpus(tmp_path / "data")), "--out", str(out), "--run-dir", str(run)]
    main([*args, "--epochs", "3", "--time-budget", "1e-9", "--batch-size", "4"])  # stops after 1
    model, src_tok, _tgt = load_seq2seq(out)
    cfg = model.cfg
    assert (cfg.rnn, cfg.attention, cfg.bidirectional, cfg.hidden) == (kind, "none", False, 16)
    assert src_tok.model_file.read_bytes() == (source / "src.model").read_bytes()
    card = read_card(out)
    assert card.family == "rnn" and out.name.startswith(card.family + "-")
    command = card.commands[-1]  # reproduces the run: the epochs it trained, no time budget
    assert command.startswith("python -m training.train_encoders --rnn " + kind)
    assert command.endswith("--batch-size 4 --epochs 1") and "--time-budget" not in command
    assert {"bleu_greedy", "bleu_beam5"} <= set(card.metrics) and card.epochs_trained == 1
    assert card.parameters == sum(p.numel() for p in model.parameters())
    assert sum(f.stat().st_size for f in out.iterdir()) < 12e6
    main([*args, "--epochs", "2", "--batch-size", "4", "--resume", "--skip-test"])
    resumed = read_card(out)  # one more epoch after the saved one
    assert resumed.epochs_trained == 2 and "--resume" not in resumed.commands[-1]
