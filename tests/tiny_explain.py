"""Tiny random-weight checkpoints for the tests of the "Does attention explain?" section.

The tiny models of :mod:`tests.tiny_seq2seq` write one "word" of twelve pieces (random weights
never emit a word start), so a page shows a single French word to choose. Here the Bahdanau
model's output bias favours the word start ``▁ch``, so its translation has a word at every step.
"""

from __future__ import annotations

from pathlib import Path

import torch

from models.checkpoints import save_translator
from models.rnn.translator import Translator
from tests.tiny_seq2seq import ATTENTIONS, build_tiny_checkpoints

WORD_PIECE = "▁ch"


def several_word_checkpoints(root: Path, attentions: tuple[str, ...] = ATTENTIONS) -> Path:
    """:func:`build_tiny_checkpoints` under ``root``, the Bahdanau one (which must be among
    ``attentions``) writing a word at every step; returns ``root``."""
    build_tiny_checkpoints(root, attentions=attentions)
    folder = root / "seq2seq-bahdanau"
    tr = Translator.load(folder)
    with torch.no_grad():
        tr.model.generator.bias.zero_()
        tr.model.generator.bias[tr.tgt_tok.sp.piece_to_id(WORD_PIECE)] = 6.0
    save_translator(tr.model, folder)
    return root
