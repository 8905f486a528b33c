"""Captioner checkpoints (``checkpoints/caption-<attention>/``) on top of :mod:`models.checkpoints`:
fp16 weights, config and the vocabulary (``vocab.json``)."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from models.captioning.model import CaptionConfig, ShowAttendTell, Vocab
from models.checkpoints import (
    CheckpointError,
    checkpoint_folder,
    damage_as_error,
    load_module,
    save_checkpoint,
)

VOCAB = "vocab.json"
CAPTION_MODELS = ("caption-soft", "caption-hard")


def save_captioner(model: ShowAttendTell, vocab: Vocab, folder: Path) -> None:
    """Weights, config and vocabulary."""
    vocab_text = json.dumps(vocab.itos, indent=1) + "\n"
    save_checkpoint(folder, model.state_dict(), model.cfg.to_dict(), files={VOCAB: vocab_text})


def load_captioner(
    name_or_folder: str | Path, device: str | torch.device = "cpu"
) -> tuple[ShowAttendTell, Vocab]:
    """(decoder in eval mode, vocabulary); raises CheckpointError."""
    folder = checkpoint_folder(name_or_folder)
    model, config = load_module(
        folder, lambda c: ShowAttendTell(CaptionConfig(**c)), device, needs=(VOCAB,)
    )
    with damage_as_error(folder):
        itos = json.loads((folder / VOCAB).read_text())
        vocab = Vocab(itos)
    if vocab.itos != itos or len(vocab) != config.get("vocab_size"):
        raise CheckpointError(
            folder.name,
            f"The {folder.name} checkpoint's vocab.json does not match its config.json.",
            detail=str(folder),
        )
    return model, vocab
