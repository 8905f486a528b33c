"""Multi30k task 1 loading (Elliott et al. 2016; French data: Elliott et al. 2017).

Files are gzipped, one sentence a line: ``{split}.{lang}.gz`` with split in train, val,
test_2016_flickr. The folder is an argument; the default is the shared data folder.
"""

from __future__ import annotations

import gzip
from pathlib import Path

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
