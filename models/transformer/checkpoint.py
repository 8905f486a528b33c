"""Transformer checkpoints (``checkpoints/transformer-<positional>/``), saved by
:func:`models.checkpoints.save_translator` like every translator."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from models.checkpoints import CONFIG, checkpoint_folder, load_translator
from models.tokenizer import SubwordTokenizer
from models.transformer.model import Transformer, TransformerConfig

TRANSFORMER_NAMES = ("transformer-sinusoidal", "transformer-learned")


def is_transformer_checkpoint(name_or_folder: str | Path) -> bool:
    """True when the folder's config.json describes a Transformer (or the name says so)."""
    folder = checkpoint_folder(name_or_folder)
    try:
        return "d_model" in json.loads((folder / CONFIG).read_text())
    except (OSError, ValueError):
        return folder.name.startswith("transformer-")


def load_transformer(
    name_or_folder: str | Path, device: str | torch.device = "cpu"
) -> tuple[Transformer, SubwordTokenizer, SubwordTokenizer]:
    """(model in eval mode, source tokenizer, target tokenizer); raises CheckpointError."""
    return load_translator(name_or_folder, lambda c: Transformer(TransformerConfig(**c)), device)
