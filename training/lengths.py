"""The longest source sentence a translator saw in training, recorded in its card
(``Card.train_lengths``), so that the pages can say when a sentence is longer than any of them.

    python -m training.lengths --model seq2seq-bahdanau seq2seq-luong-dot ...

The trainers record it themselves (:func:`train_lengths` over their encoded training pairs); this
command measures it for checkpoints trained before that, on the same split and with the same
truncation to the model's ``max_src_len``.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from models.checkpoints import CONFIG, checkpoint_folder, read_card, write_card
from models.tokenizer import SubwordTokenizer
from training.data import DEFAULT_DATA, load_pairs

COMMAND = "python -m training.lengths --model {name}"


def train_lengths(sources: list[str], tok: SubwordTokenizer, max_src_len: int) -> dict:
    """The longest of ``sources`` in subword pieces (as encoded for training: at most
    ``max_src_len``, without ``</s>``) and in words."""
    pieces = max((min(len(tok.encode(s)), max_src_len) for s in sources), default=0)
    words = max((len(s.split()) for s in sources), default=0)
    return {"src_pieces": pieces, "src_words": words, "split": "train"}


def split_lengths(
    data: str | Path, tok: SubwordTokenizer, max_src_len: int, limit: int = 0
) -> dict:
    """:func:`train_lengths` of the training split in folder ``data`` (its first ``limit`` pairs
    when not 0, as the trainers' ``train_limit``)."""
    sources = [s for s, _ in load_pairs(data, "train")[: limit or None]]
    return train_lengths(sources, tok, max_src_len)


def record(name: str, data: str | Path = DEFAULT_DATA) -> dict:
    """Measure checkpoint ``name``'s training lengths and write them into its card."""
    folder = checkpoint_folder(name)
    card = read_card(folder)
    max_src_len = json.loads((folder / CONFIG).read_text())["max_src_len"]
    lengths = split_lengths(data, SubwordTokenizer(str(folder / "src.model")), max_src_len)
    command = COMMAND.format(name=folder.name)
    commands = card.evaluate_commands + (() if command in card.evaluate_commands else (command,))
    write_card(folder, replace(card, train_lengths=lengths, evaluate_commands=commands))
    return lengths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", nargs="+", required=True, help="checkpoint names or folders")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="the Multi30k folder")
    args = parser.parse_args(argv)
    for name in args.model:
        print(name, record(name, args.data))


if __name__ == "__main__":
    main()
