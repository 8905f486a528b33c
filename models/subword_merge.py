"""Word-level view of a subword alignment.

Pieces are merged into words: a new word starts at a piece beginning with SentencePiece's ``▁``, at a
piece made only of punctuation, and right after one. Source columns of a word are *summed* (the
probability of attending anywhere in the word) and target rows of a word are *averaged* (the word's
pieces each have a distribution), so every row still sums to 1.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from models.tokenizer import WORD_START

SPECIALS = ("</s>", "<s>", "<pad>", "<unk>")


@dataclass(frozen=True)
class WordAlignment:
    """source_words (S_w,), target_words (T_w,), weights (T_w, S_w) with rows summing to 1."""

    source_words: list[str]
    target_words: list[str]
    weights: np.ndarray


def _is_punct(piece: str) -> bool:
    text = piece.replace(WORD_START, "")
    return bool(text) and all(unicodedata.category(c).startswith("P") for c in text)


def group_pieces(pieces: list[str]) -> list[list[int]]:
    """Indices of the pieces that make each word, in order."""
    groups: list[list[int]] = []
    prev_punct = False
    for i, piece in enumerate(pieces):
        punct = _is_punct(piece)
        new_word = (
            not groups
            or piece.startswith(WORD_START)
            or piece in SPECIALS
            or punct
            or prev_punct
            or pieces[i - 1] in SPECIALS
        )
        if new_word:
            groups.append([i])
        else:
            groups[-1].append(i)
        prev_punct = punct
    return groups


def word_text(pieces: list[str], group: list[int]) -> str:
    """Join a word's pieces; byte-fallback pieces (<0xNN>) are decoded as UTF-8."""
    out, pending = [], bytearray()
    for i in group:
        p = pieces[i]
        if len(p) == 6 and p.startswith("<0x") and p.endswith(">"):
            pending.append(int(p[3:5], 16))
            continue
        if pending:
            out.append(pending.decode("utf-8", errors="replace"))
            pending = bytearray()
        out.append(p)
    if pending:
        out.append(pending.decode("utf-8", errors="replace"))
    return "".join(out).replace(WORD_START, "") or WORD_START


def merge_subwords(
    weights: np.ndarray, source_pieces: list[str], target_pieces: list[str]
) -> WordAlignment:
    """(T_out, T_src) piece alignment -> (T_w, S_w) word alignment (sum over source pieces,
    mean over target pieces)."""
    if weights.shape != (len(target_pieces), len(source_pieces)):
        raise ValueError(
            f"weights have shape {weights.shape} but there are {len(target_pieces)} target and "
            f"{len(source_pieces)} source pieces"
        )
    src_groups, tgt_groups = group_pieces(source_pieces), group_pieces(target_pieces)
    cols = np.stack([weights[:, g].sum(axis=1) for g in src_groups], axis=1)  # (T_out, S_w)
    rows = np.stack([cols[g].mean(axis=0) for g in tgt_groups], axis=0)  # (T_w, S_w)
    return WordAlignment(
        [word_text(source_pieces, g) for g in src_groups],
        [word_text(target_pieces, g) for g in tgt_groups],
        rows,
    )
