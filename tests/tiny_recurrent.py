"""Tiny random-weight checkpoints for the Recurrent networks page: ``seq2seq-bahdanau`` (its
bidirectional GRU encoder) and the three encoders ``rnn-encoder-{rnn,lstm,gru}``, all sharing one
pair of tokenizers as the shipped ones do, with made-up cards."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import torch

from models.checkpoints import Card, save_translator, write_card
from models.rnn.seq2seq import Seq2Seq, Seq2SeqConfig
from tests.tiny_seq2seq import build_tiny_checkpoints

ENCODER_CELLS = ("rnn", "lstm", "gru")


def fake_encoder_card(cell_type: str) -> Card:
    return Card(
        name=f"rnn-encoder-{cell_type}",
        family="rnn",
        description="tiny random weights",
        data={},
        commands=(f"python -m training.train_encoders --rnn {cell_type}",),
        evaluate_commands=(),
        wall_time_s=1.0,
        metrics={"bleu_greedy": 12.5, "bleu_beam5": 13.0},
        parameters=1234,
        epochs_trained=3,
    )


def build_tiny_recurrent(root: Path, cell_types: tuple[str, ...] = ENCODER_CELLS) -> Path:
    """``seq2seq-bahdanau`` and ``rnn-encoder-<cell_type>`` for ``cell_types`` under ``root``; ``root``."""
    build_tiny_checkpoints(root, attentions=("bahdanau",))
    bahdanau = root / "seq2seq-bahdanau"
    vocab = json.loads((bahdanau / "config.json").read_text())
    for i, cell_type in enumerate(cell_types):
        torch.manual_seed(10 + i)
        cfg = Seq2SeqConfig.of_width(
            16,
            attention="none",
            rnn=cell_type,
            bidirectional=False,
            attn_dim=16,
            src_vocab=vocab["src_vocab"],
            tgt_vocab=vocab["tgt_vocab"],
            max_tgt_len=12,
        )
        folder = root / f"rnn-encoder-{cell_type}"
        save_translator(Seq2Seq(cfg), folder)
        for name in ("src.model", "tgt.model"):
            shutil.copy(bahdanau / name, folder / name)
        write_card(folder, fake_encoder_card(cell_type))
    return root
