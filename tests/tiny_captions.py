"""Tiny random-weight captioners (soft and hard) for tests that must not depend on training."""

from __future__ import annotations

from pathlib import Path

import torch

from media.scenes import vocabulary_words
from models.captioning.checkpoint import save_captioner
from models.captioning.model import CaptionConfig, ShowAttendTell, Vocab

TINY = {"annotation_dim": 16, "embed_dim": 8, "hidden": 16, "attention_dim": 8, "max_len": 8}


def tiny_model(attention: str = "soft", seed: int = 0) -> tuple[ShowAttendTell, Vocab]:
    """A random-weight decoder in eval mode and the scene vocabulary."""
    torch.manual_seed(seed)
    vocab = Vocab(vocabulary_words())
    model = ShowAttendTell(CaptionConfig(vocab_size=len(vocab), attention=attention, **TINY))
    return model.eval(), vocab


def build_tiny_caption_checkpoints(root: Path) -> Path:
    """root/caption-soft and root/caption-hard with random weights; returns root."""
    for attention in ("soft", "hard"):
        model, vocab = tiny_model(attention)
        save_captioner(model, vocab, root / f"caption-{attention}")
    return root
