"""Choose the Why attention page's first example by a stated rule, and write it with its numbers.

    python -m training.choose_why_example [--min-words 25] [--out assets/why_example.json]

The rule: among the Multi30k test sentences (test_2016_flickr) of at least ``--min-words`` English
words, the one whose sentence-BLEU gap between the model with attention (``bahdanau``) and the one
without (``none``) is the median of that group: the sentences are ranked by the gap
(bahdanau - none; ties by line number) and the middle one is taken (the lower of the two middle
ones when the group is even). Both models translate greedily, as the page does, and are scored
as the page scores them (sacreBLEU sentence BLEU, 13a, cased, against the raw reference).

The output (a few hundred bytes, committed) holds the chosen sentence, its reference, the two
translations and scores, and every candidate's gap, so that the page can state the rule with
its numbers and a reader can check the choice.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from models.checkpoints import checkpoint_folder
from models.rnn.translator import Translator
from models.translator_base import sentence_bleu
from training.data import DEFAULT_DATA, load_pairs
from training.evaluate import TEST_SPLIT

OUT = Path(__file__).resolve().parents[1] / "assets" / "why_example.json"
MODELS = ("none", "bahdanau")  # without and with attention, as the page shows them


@dataclass(frozen=True)
class Candidate:
    """One long test sentence: its line (1-based), length, the gap and each model's score."""

    line: int
    words: int
    gap: float
    bleu: dict[str, float]


def median_index(candidates: list[Candidate]) -> int:
    """Index in ``candidates`` of the median gap: ranked by (gap, line), the middle one (the
    lower middle one for an even count)."""
    if not candidates:
        raise ValueError("no candidate sentence")
    ranked = sorted(range(len(candidates)), key=lambda i: (candidates[i].gap, candidates[i].line))
    return ranked[(len(ranked) - 1) // 2]


def choose_example(
    pairs: list[tuple[str, str]], translators: dict[str, Translator], min_words: int
) -> dict:
    """The document for the page: the rule, the chosen pair, its translations and scores, and
    every candidate."""
    candidates, outputs = [], {}
    for line, (source, reference) in enumerate(pairs, start=1):
        words = len(source.split())
        if words < min_words:
            continue
        texts = {k: t.translate(source).text for k, t in translators.items()}
        bleu = {k: round(sentence_bleu(texts[k], reference), 2) for k in MODELS}
        gap = round(bleu["bahdanau"] - bleu["none"], 2)
        candidates.append(Candidate(line, words, gap, bleu))
        outputs[line] = texts
    chosen = candidates[median_index(candidates)]
    source, reference = pairs[chosen.line - 1]
    return {
        "rule": {"split": TEST_SPLIT, "min_words": min_words, "statistic": "median gap"},
        "source": source,
        "reference": reference,
        "line": chosen.line,
        "words": chosen.words,
        "translations": outputs[chosen.line],
        "bleu": chosen.bleu,
        "gap": chosen.gap,
        "median_gap": round(statistics.median(c.gap for c in candidates), 2),
        "candidates": [asdict(c) for c in candidates],
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--min-words", type=int, default=25)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    translators = {k: Translator.load(checkpoint_folder(f"seq2seq-{k}")) for k in MODELS}
    doc = choose_example(load_pairs(args.data, TEST_SPLIT), translators, args.min_words)
    args.out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    json.dump({k: doc[k] for k in ("line", "words", "bleu", "gap", "median_gap")}, sys.stdout)
    print()
    return doc


if __name__ == "__main__":
    main()
