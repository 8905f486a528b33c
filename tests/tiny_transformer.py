"""Tiny random-weight Transformer translators for fast tests (no training data needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import torch

from models.checkpoints import Card, save_translator, write_card
from models.transformer.model import Transformer, TransformerConfig
from tests.helpers_seq2seq import tiny_tokenizers


def tiny_transformer_config(positional: str = "sinusoidal", **kw) -> TransformerConfig:
    """2 + 2 layers, d_model 16, 4 heads: milliseconds per sentence."""
    base = dict(
        positional=positional,
        src_vocab=300,
        tgt_vocab=300,
        d_model=16,
        n_heads=4,
        d_ff=32,
        enc_layers=2,
        dec_layers=2,
        dropout=0.1,
        max_len=64,
        max_src_len=40,
        max_tgt_len=12,
    )
    return TransformerConfig(**(base | kw))


def build_tiny_transformers(root: Path, cards: bool = True) -> Path:
    """Write ``transformer-sinusoidal`` and ``transformer-learned`` tiny checkpoints under ``root``."""
    tok_dir = root / "_transformer_tokenizers"
    tiny_tokenizers(tok_dir)
    for i, positional in enumerate(("sinusoidal", "learned")):
        torch.manual_seed(i)
        folder = root / f"transformer-{positional}"
        save_translator(Transformer(tiny_transformer_config(positional)).eval(), folder)
        for side in ("src", "tgt"):
            shutil.copy(tok_dir / f"{side}.model", folder / f"{side}.model")
        if cards:
            command = f"python -m training.train_transformer --positional {positional}"
            card = Card(
                name=folder.name,
                family="transformer",
                description="tiny random weights",
                data={},
                commands=(command,),
                evaluate_commands=(),
                wall_time_s=0.0,
                metrics={"bleu_greedy": 40.0, "bleu_beam5": 41.0},
            )
            write_card(folder, card)
    return root
