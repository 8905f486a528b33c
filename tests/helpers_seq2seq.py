"""Tiny random-weight translators for fast tests (no training data needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

from models.checkpoints import save_translator
from models.rnn.seq2seq import Seq2Seq, Seq2SeqConfig
from models.rnn.translator import Translator
from models.tokenizer import SubwordTokenizer
from training.tokenizer import train_tokenizer

EN = [
    "a black dog runs on the green grass .",
    "two men are playing music in the street .",
    "a woman in a red dress is walking with her child .",
    "children play football in a park near the river .",
    "an old man is reading a newspaper on a bench .",
]
FR = [
    "un chien noir court sur l' herbe verte .",
    "deux hommes jouent de la musique dans la rue .",
    "une femme en robe rouge marche avec son enfant .",
    "des enfants jouent au football dans un parc près de la rivière .",
    "un vieil homme lit un journal sur un banc .",
]


def tiny_tokenizers(folder: Path) -> tuple[SubwordTokenizer, SubwordTokenizer]:
    """Small SentencePiece models (byte fallback) trained on a few sentences."""
    src = train_tokenizer(EN * 20, folder / "src", 300)
    tgt = train_tokenizer(FR * 20, folder / "tgt", 300)
    return src, tgt


def tiny_config(attention: str, **kw) -> Seq2SeqConfig:
    base = dict(
        attention=attention,
        src_vocab=300,
        tgt_vocab=300,
        hidden=16,
        emb_dim=16,
        enc_hidden=16,
        attn_dim=16,
        window=2,
        max_src_len=30,
        max_tgt_len=40,
    )
    return Seq2SeqConfig(**(base | kw))


def tiny_checkpoint(folder: Path, attention: str, tokenizers: Path, **kw) -> Path:
    """Write a random-weight checkpoint folder (weights, config, tokenizers)."""
    model = Seq2Seq(tiny_config(attention, **kw)).eval()
    save_translator(model, folder)
    for name in ("src.model", "tgt.model"):
        shutil.copy(tokenizers / name, folder / name)
    return folder


def tiny_translator(folder: Path, attention: str, tokenizers: Path, **kw) -> Translator:
    return Translator.load(tiny_checkpoint(folder, attention, tokenizers, **kw))
