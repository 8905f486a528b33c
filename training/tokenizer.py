"""Train the SentencePiece subword tokenizers on the training split (one per language)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import sentencepiece as spm

from models.sentence import clean_text
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, SubwordTokenizer
from training.data import DEFAULT_DATA, load_pairs


def train_tokenizer(sentences: list[str], prefix: Path, vocab_size: int) -> SubwordTokenizer:
    """Train BPE with byte fallback; writes ``prefix.model`` and ``prefix.vocab``."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
        f.write("\n".join(clean_text(s) for s in sentences))
    spm.SentencePieceTrainer.train(
        input=f.name,
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        model_type="bpe",
        character_coverage=1.0,
        byte_fallback=True,
        pad_id=PAD_ID,
        unk_id=UNK_ID,
        bos_id=BOS_ID,
        eos_id=EOS_ID,
        num_threads=1,
        minloglevel=2,
    )
    Path(f.name).unlink()
    return SubwordTokenizer(f"{prefix}.model")


def train_pair(data: Path, out: Path, vocab_size: int) -> tuple[SubwordTokenizer, SubwordTokenizer]:
    """Source (en) and target (fr) tokenizers from the training split, saved under ``out``."""
    pairs = load_pairs(data, "train")
    src = train_tokenizer([s for s, _ in pairs], out / "src", vocab_size)
    tgt = train_tokenizer([t for _, t in pairs], out / "tgt", vocab_size)
    return src, tgt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--vocab-size", type=int, default=6000)
    args = parser.parse_args()
    src, tgt = train_pair(args.data, args.out, args.vocab_size)
    print(
        f"wrote {args.out}/src.model ({src.vocab_size}) and {args.out}/tgt.model ({tgt.vocab_size})"
    )


if __name__ == "__main__":
    main()
