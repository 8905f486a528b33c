"""RNN translator checkpoints (``checkpoints/seq2seq-<attention>/``), saved by
:func:`models.checkpoints.save_translator` like every translator."""

from __future__ import annotations

from pathlib import Path

import torch

from models.checkpoints import load_translator
from models.rnn.seq2seq import Seq2Seq, Seq2SeqConfig
from models.tokenizer import SubwordTokenizer


def load_seq2seq(
    name_or_folder: str | Path, device: str | torch.device = "cpu"
) -> tuple[Seq2Seq, SubwordTokenizer, SubwordTokenizer]:
    """(model in eval mode, source tokenizer, target tokenizer); raises CheckpointError."""
    return load_translator(name_or_folder, lambda c: Seq2Seq(Seq2SeqConfig(**c)), device)
