"""Corpus translation with the Transformer translators, for :mod:`training.evaluate` (which
dispatches here when the checkpoint is a Transformer) and :mod:`training.train_transformer`."""

from __future__ import annotations

from pathlib import Path

import torch

from models.rnn.checkpoint import load_seq2seq
from models.tokenizer import SubwordTokenizer
from models.transformer.checkpoint import is_transformer_checkpoint, load_transformer
from models.transformer.model import Transformer
from models.transformer.translator import beam_ids, greedy_ids


def load_translator_parts(name_or_folder: str | Path, device: str | torch.device = "cpu"):
    """(model, source tokenizer, target tokenizer) of an RNN or a Transformer checkpoint."""
    if is_transformer_checkpoint(name_or_folder):
        return load_transformer(name_or_folder, device)
    return load_seq2seq(name_or_folder, device)


def translate_corpus_transformer(
    model: Transformer,
    src_tok: SubwordTokenizer,
    tgt_tok: SubwordTokenizer,
    sentences: list[str],
    *,
    beam: int = 1,
    batch_size: int = 100,
    device: str | torch.device = "cpu",
) -> list[str]:
    """Detokenized translations in input order (greedy batched by length; beam one at a time)."""
    from training.evaluate import encode_sources, pad_batch  # noqa: PLC0415 - evaluate imports us

    model.eval()
    encoded = encode_sources(sentences, src_tok, model.cfg.max_src_len)
    out: list[str] = [""] * len(sentences)
    if beam > 1:
        for i, ids in enumerate(encoded):
            src, _ = pad_batch([ids], device)
            out[i] = tgt_tok.decode(beam_ids(model, src, beam=beam)[0].tokens)
        return out
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        src, _ = pad_batch([encoded[i] for i in idx], device)  # (B, S)
        for i, ids in zip(idx, greedy_ids(model, src), strict=True):
            out[i] = tgt_tok.decode(ids)
    return out
