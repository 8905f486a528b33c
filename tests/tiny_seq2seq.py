"""Tiny random-weight translators for the tests of the translation pages.

``build_tiny_checkpoints(root)`` writes one checkpoint folder per attention under ``root``
(``seq2seq-<attention>/``: fp16 weights, config, SentencePiece tokenizers), laid out like the shipped
ones, so that pages pointed at ``root`` (env ``ATLAS_CHECKPOINTS``) run without trained models.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import torch

from models.checkpoints import Card, save_translator, write_card
from models.rnn.seq2seq import ATTENTION_NAMES, Seq2Seq, Seq2SeqConfig
from training.tokenizer import train_tokenizer

ATTENTIONS = ATTENTION_NAMES  # every translator the pages offer
EN = "a the black white red dog cat man woman child runs sits jumps on in with grass street ball".split()
FR = "un une le la noir blanc rouge chien chat homme femme enfant court assis saute sur dans avec herbe rue balle".split()


def _sentences(words: list[str], n: int, seed: int) -> list[str]:
    """``n`` random sentences of 3-12 words (plus accents and digits for piece variety)."""
    rng = random.Random(seed)
    extra = ["été", "élève", "garçon", "2", "17", "ça", "où", "naïve"]
    pool = words + extra
    return [" ".join(rng.choice(pool) for _ in range(rng.randint(3, 12))) + " ." for _ in range(n)]


def fake_card(attention: str) -> Card:
    """A card with made-up BLEU numbers (``none`` falls off with length)."""
    slope = 6.0 if attention == "none" else 1.5
    buckets = {
        b: {"bleu": round(40 - slope * i, 2), "n": 50}
        for i, b in enumerate(["1-10", "11-15", "16-20", "21-30"])
    }
    long = {
        b: {"bleu": round(40 - slope * (i + 3), 2), "n": 40}
        for i, b in enumerate(["21-30", "31-45"])
    }
    return Card(
        name=f"seq2seq-{attention}",
        family="seq2seq",
        description="tiny random weights",
        data={},
        commands=(f"python -m training.train_seq2seq --attention {attention}",),
        evaluate_commands=(),
        wall_time_s=0.0,
        metrics={"bleu_greedy": 38.0, "bleu_beam5": 39.0},
        bleu_by_length=buckets,
        long_sets={
            "concat2": {"bleu": 30.0, "n": 500, "bleu_by_length": long},
            "concat3": {"bleu": 25.0, "n": 333, "bleu_by_length": long},
        },
    )


def build_tiny_checkpoints(
    root: Path, attentions: tuple[str, ...] = ATTENTIONS, window: int = 3, cards: bool = True
) -> Path:
    """Write tiny random-weight checkpoints for ``attentions`` under ``root`` (with made-up cards when
    ``cards``); returns ``root``."""
    tok_dir = root / "_tokenizers"
    src = train_tokenizer(_sentences(EN, 400, 0), tok_dir / "src", 300)
    tgt = train_tokenizer(_sentences(FR, 400, 1), tok_dir / "tgt", 300)
    for i, attention in enumerate(attentions):
        torch.manual_seed(i)
        cfg = Seq2SeqConfig(
            attention=attention,
            src_vocab=src.vocab_size,
            tgt_vocab=tgt.vocab_size,
            hidden=16,
            emb_dim=16,
            enc_hidden=16,
            attn_dim=16,
            window=window,
            max_src_len=100,
            max_tgt_len=12,
        )
        folder = root / f"seq2seq-{attention}"
        save_translator(Seq2Seq(cfg), folder)
        for side in ("src", "tgt"):
            shutil.copy(tok_dir / f"{side}.model", folder / f"{side}.model")
        if cards:
            write_card(folder, fake_card(attention))
    return root
