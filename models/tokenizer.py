"""Subword tokenizer (SentencePiece BPE with byte fallback; Sennrich et al. 2016, Kudo & Richardson 2018).

Byte fallback means any typed text (any script, emoji) is representable: characters the vocabulary
lacks become their UTF-8 bytes (pieces like ``<0xF0>``) instead of ``<unk>``.
"""

from __future__ import annotations

from pathlib import Path

import sentencepiece as spm

from models.sentence import Sentence, as_sentence

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
WORD_START = "\u2581"  # SentencePiece's word-boundary mark


class SubwordTokenizer:
    """Wraps one SentencePiece model; ids 0..3 are <pad>, <unk>, <s>, </s>."""

    def __init__(self, model_file: str | Path):
        self.model_file = Path(model_file)
        self.sp = spm.SentencePieceProcessor(model_file=str(self.model_file))

    @property
    def vocab_size(self) -> int:
        return self.sp.get_piece_size()

    def encode(self, text: Sentence | str) -> list[int]:
        """Text -> piece ids (no <s>/</s>); a bare ``str`` is cleaned first (:func:`as_sentence`),
        a :class:`Sentence` was cleaned when its text box made it."""
        return list(self.sp.encode(as_sentence(text).text))

    def pieces(self, ids: list[int]) -> list[str]:
        """Ids -> piece strings for display (special ids as <s>, </s>, <pad>)."""
        return [self.sp.id_to_piece(int(i)) for i in ids]

    def decode(self, ids: list[int]) -> str:
        """Piece ids -> detokenized text (special ids dropped)."""
        return self.sp.decode([int(i) for i in ids if int(i) > EOS_ID])
