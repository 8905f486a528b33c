"""Multi30k task 1 loading (Elliott et al. 2016; French data: Elliott et al. 2017), and sentences
as the translators read them: subword ids, padded batches.

Files are gzipped, one sentence a line: ``{split}.{lang}.gz`` with split in train, val,
test_2016_flickr. The folder is an argument; the default is the shared data folder.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import torch

from models.tokenizer import BOS_ID, EOS_ID, SubwordTokenizer

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "multi30k"
SPLITS = ("train", "val", "test_2016_flickr")


def read_lines(path: str | Path) -> list[str]:
    """One sentence a line, from a plain or gzipped text file."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def load_pairs(
    folder: str | Path = DEFAULT_DATA, split: str = "train", src: str = "en", tgt: str = "fr"
) -> list[tuple[str, str]]:
    """Aligned (source, target) sentence pairs of one split."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(
            f"data folder {folder} not found: get Multi30k task 1 raw files from the public "
            "multi30k/dataset repository (data/task1/raw/) and pass the folder with --data"
        )
    sources = read_lines(folder / f"{split}.{src}.gz")
    targets = read_lines(folder / f"{split}.{tgt}.gz")
    if len(sources) != len(targets):
        raise ValueError(f"{split}: {len(sources)} source lines but {len(targets)} target lines")
    return list(zip(sources, targets, strict=True))


def concat_pairs(pairs: list[tuple[str, str]], k: int) -> list[tuple[str, str]]:
    """Join k consecutive pairs into one long pair (the long-sentence set for BLEU by length)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    out = []
    for i in range(0, len(pairs) - k + 1, k):
        chunk = pairs[i : i + k]
        out.append((" ".join(s for s, _ in chunk), " ".join(t for _, t in chunk)))
    return out


def encode_sources(sentences: list[str], tok: SubwordTokenizer, max_len: int) -> list[list[int]]:
    """Subword ids + </s>, truncated to ``max_len`` pieces; never empty (</s> alone at worst)."""
    return [tok.encode(s)[:max_len] + [EOS_ID] for s in sentences]


def encode_pairs(
    pairs: list[tuple[str, str]],
    src_tok: SubwordTokenizer,
    tgt_tok: SubwordTokenizer,
    max_src_len: int,
    max_tgt_len: int,
) -> list[tuple[list[int], list[int]]]:
    """(source ids + </s>, <s> + target ids + </s>) per pair, truncated to the model's lengths."""
    sources = encode_sources([s for s, _ in pairs], src_tok, max_src_len)
    targets = [[BOS_ID] + tgt_tok.encode(t)[: max_tgt_len - 1] + [EOS_ID] for _, t in pairs]
    return list(zip(sources, targets, strict=True))


@dataclass(frozen=True)
class TranslationData:
    """A translator's training and validation data: ``train`` and ``val`` as encoded pairs (see
    :func:`encode_pairs`), ``val_pairs`` the raw validation pairs (for BLEU)."""

    train: list[tuple[list[int], list[int]]]
    val: list[tuple[list[int], list[int]]]
    val_pairs: list[tuple[str, str]]


def translation_data(
    folder: str | Path,
    src_tok: SubwordTokenizer,
    tgt_tok: SubwordTokenizer,
    max_lengths: tuple[int, int],
    limits: tuple[int, int] = (0, 0),
) -> TranslationData:
    """The train and val splits encoded for a model with ``max_lengths`` (source, target) pieces;
    ``limits``: only the first N train and val pairs (0 = all)."""
    train_pairs = load_pairs(folder, "train")[: limits[0] or None]
    val_pairs = load_pairs(folder, "val")[: limits[1] or None]
    train, val = (encode_pairs(p, src_tok, tgt_tok, *max_lengths) for p in (train_pairs, val_pairs))
    return TranslationData(train, val, val_pairs)


def pad_batch(
    seqs: list[list[int]], device: torch.device | str
) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad with 0 (PAD_ID): -> (ids (B, T), lengths (B,))."""
    T = max(len(s) for s in seqs)
    ids = torch.zeros(len(seqs), T, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
    return ids.to(device), torch.tensor([len(s) for s in seqs], device=device)
