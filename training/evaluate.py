"""Evaluate a translator with sacreBLEU (13a tokenization, cased, detokenized output vs raw references).

BLEU by source length in buckets (1-10, 11-15, 16-20, 21-30, 31-45, 46+ words) gives the data of
Bahdanau et al. 2015, Fig. 2. ``--concat K`` also evaluates on a long set made by joining K consecutive
test pairs (Multi30k sentences are short, so this is where the fixed-length bottleneck shows).

    python -m training.evaluate --model seq2seq-bahdanau [--beam 5] [--concat 3] [--json]
    python -m training.evaluate --model seq2seq-bahdanau --src my.en --ref my.fr
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import sacrebleu
import torch

from models.rnn.checkpoint import load_seq2seq
from models.rnn.decoding import beam_decode, greedy_decode
from models.rnn.seq2seq import Seq2Seq
from models.tokenizer import SubwordTokenizer
from models.transformer.checkpoint import is_transformer_checkpoint, load_transformer
from models.transformer.model import Transformer
from models.transformer.translator import beam_ids, greedy_ids
from training.data import (
    DEFAULT_DATA,
    concat_pairs,
    encode_sources,
    load_pairs,
    pad_batch,
    read_lines,
)
from training.runs import resolve_device

BUCKETS = ((1, 10), (11, 15), (16, 20), (21, 30), (31, 45), (46, 10**9))
TEST_SPLIT = "test_2016_flickr"
LONG_SETS = (2, 3)  # the cards' long test sets join this many consecutive pairs


def bucket_name(lo: int, hi: int) -> str:
    return f"{lo}+" if hi >= 10**9 else f"{lo}-{hi}"


def load_translator_parts(name_or_folder: str | Path, device: str | torch.device = "cpu"):
    """(model, source tokenizer, target tokenizer) of an RNN or a Transformer checkpoint."""
    if is_transformer_checkpoint(name_or_folder):
        return load_transformer(name_or_folder, device)
    return load_seq2seq(name_or_folder, device)


def _greedy(model: Seq2Seq | Transformer, src: torch.Tensor, lengths: torch.Tensor) -> list:
    """Batched greedy decoding of src (B, S): the ids of each sentence."""
    if isinstance(model, Seq2Seq):
        return [d.tokens for d in greedy_decode(model, src, lengths, record=False)]
    return greedy_ids(model, src)


def _beam(model: Seq2Seq | Transformer, src: torch.Tensor, lengths: torch.Tensor, beam: int):
    """The best beam-search hypothesis of one sentence src (1, S): its ids."""
    if isinstance(model, Seq2Seq):
        return beam_decode(model, src, lengths, beam=beam)[0].tokens
    return list(beam_ids(model, src, beam=beam)[0].tokens)


def translate_corpus(
    model: Seq2Seq | Transformer,
    src_tok: SubwordTokenizer,
    tgt_tok: SubwordTokenizer,
    sentences: list[str],
    *,
    beam: int = 1,
    batch_size: int = 100,
    device: str | torch.device = "cpu",
) -> list[str]:
    """Detokenized translations in input order, by an RNN or a Transformer (greedy is batched,
    sorted by length; beam search goes one sentence at a time)."""
    model.eval()
    encoded = encode_sources(sentences, src_tok, model.cfg.max_src_len)
    out: list[str] = [""] * len(sentences)
    if beam > 1:
        for i, ids in enumerate(encoded):
            out[i] = tgt_tok.decode(_beam(model, *pad_batch([ids], device), beam))
        return out
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        src, lengths = pad_batch([encoded[i] for i in idx], device)  # (B, S), (B,)
        for i, ids in zip(idx, _greedy(model, src, lengths), strict=True):
            out[i] = tgt_tok.decode(ids)
    return out


def bleu(hypotheses: list[str], references: list[str]) -> float:
    return float(sacrebleu.corpus_bleu(hypotheses, [references]).score)


def bleu_by_length(
    sources: list[str], hypotheses: list[str], references: list[str]
) -> dict[str, dict[str, float]]:
    """BLEU per source-length bucket (words split on whitespace): {bucket: {bleu, n}}."""
    report = {}
    for lo, hi in BUCKETS:
        idx = [i for i, s in enumerate(sources) if lo <= len(s.split()) <= hi]
        if idx:
            score = bleu([hypotheses[i] for i in idx], [references[i] for i in idx])
            report[bucket_name(lo, hi)] = {"bleu": round(score, 2), "n": len(idx)}
    return report


def evaluate_pairs(
    model: Seq2Seq | Transformer,
    src_tok: SubwordTokenizer,
    tgt_tok: SubwordTokenizer,
    pairs: list[tuple[str, str]],
    *,
    beam: int = 1,
    device: str | torch.device = "cpu",
) -> dict:
    """{bleu, bleu_by_length, n, seconds} for a list of (source, reference) pairs."""
    sources, refs = [s for s, _ in pairs], [t for _, t in pairs]
    start = time.perf_counter()
    hyps = translate_corpus(model, src_tok, tgt_tok, sources, beam=beam, device=device)
    seconds = time.perf_counter() - start
    return {
        "bleu": round(bleu(hyps, refs), 2),
        "bleu_by_length": bleu_by_length(sources, hyps, refs),
        "n": len(pairs),
        "seconds": round(seconds, 2),
    }


def val_bleu(
    model: Seq2Seq | Transformer,
    src_tok: SubwordTokenizer,
    tgt_tok: SubwordTokenizer,
    pairs: list[tuple[str, str]],
    device: str | torch.device,
) -> float:
    """Greedy BLEU on validation ``pairs`` (the model is put in eval mode)."""
    return evaluate_pairs(model.eval(), src_tok, tgt_tok, pairs, device=device)["bleu"]


def test_report(
    model: Seq2Seq | Transformer,
    src_tok: SubwordTokenizer,
    tgt_tok: SubwordTokenizer,
    data: Path,
    device: str | torch.device,
) -> dict:
    """The figures of a translator's card: BLEU greedy and with beam 5 on the test split, by
    length, and on the long sets made by joining consecutive pairs."""
    pairs = load_pairs(data, TEST_SPLIT)
    greedy = evaluate_pairs(model, src_tok, tgt_tok, pairs, device=device)
    beam5 = evaluate_pairs(model, src_tok, tgt_tok, pairs, beam=5, device=device)
    long_sets = {
        f"concat{k}": evaluate_pairs(model, src_tok, tgt_tok, concat_pairs(pairs, k), device=device)
        for k in LONG_SETS
    }
    return {
        "test_bleu_greedy": greedy["bleu"],
        "test_bleu_beam5": beam5["bleu"],
        "bleu_by_length": greedy["bleu_by_length"],
        "test_seconds_greedy": greedy["seconds"],
        "test_seconds_beam5": beam5["seconds"],
        "long_sets": {
            k: {"bleu": v["bleu"], "n": v["n"], "bleu_by_length": v["bleu_by_length"]}
            for k, v in long_sets.items()
        },
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", required=True, help="checkpoint name (e.g. seq2seq-bahdanau) or folder"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", default=TEST_SPLIT)
    parser.add_argument("--src", type=Path, help="source text file (one sentence a line)")
    parser.add_argument("--ref", type=Path, help="reference text file, aligned with --src")
    parser.add_argument("--beam", type=int, default=1)
    parser.add_argument("--concat", type=int, default=1, help="join K consecutive pairs (long set)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    device = resolve_device(args.device)
    model, src_tok, tgt_tok = load_translator_parts(args.model, device)
    if args.src or args.ref:
        if not (args.src and args.ref):
            parser.error("--src and --ref go together")
        pairs = list(zip(read_lines(args.src), read_lines(args.ref), strict=True))
    else:
        pairs = load_pairs(args.data, args.split)
    if args.concat > 1:
        pairs = concat_pairs(pairs, args.concat)
    report = evaluate_pairs(model, src_tok, tgt_tok, pairs, beam=args.beam, device=device)
    report |= {"model": str(args.model), "beam": args.beam, "concat": args.concat}
    if args.json:
        json.dump(report, sys.stdout)
        print()
        return
    print(
        f"{args.model}: BLEU {report['bleu']:.2f} on {report['n']} pairs (beam {args.beam}, concat {args.concat}, {report['seconds']} s)"
    )
    for bucket, row in report["bleu_by_length"].items():
        print(f"  {bucket:>6} words: BLEU {row['bleu']:6.2f}  (n={row['n']})")


if __name__ == "__main__":
    main()
