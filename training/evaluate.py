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

from models.rnn.decoding import beam_decode, greedy_decode
from models.rnn.seq2seq import Seq2Seq
from models.tokenizer import EOS_ID, SubwordTokenizer
from training.data import DEFAULT_DATA, concat_pairs, load_pairs, read_lines

BUCKETS = ((1, 10), (11, 15), (16, 20), (21, 30), (31, 45), (46, 10**9))


def bucket_name(lo: int, hi: int) -> str:
    return f"{lo}+" if hi >= 10**9 else f"{lo}-{hi}"


def encode_sources(sentences: list[str], tok: SubwordTokenizer, max_len: int) -> list[list[int]]:
    """Subword ids + </s>, truncated to ``max_len`` pieces; never empty (</s> alone at worst)."""
    return [tok.encode(s)[:max_len] + [EOS_ID] for s in sentences]


def pad_batch(
    seqs: list[list[int]], device: torch.device | str
) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad with 0: -> (ids (B, T), lengths (B,))."""
    T = max(len(s) for s in seqs)
    ids = torch.zeros(len(seqs), T, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
    return ids.to(device), torch.tensor([len(s) for s in seqs], device=device)


def translate_corpus(
    model: Seq2Seq,
    src_tok: SubwordTokenizer,
    tgt_tok: SubwordTokenizer,
    sentences: list[str],
    *,
    beam: int = 1,
    batch_size: int = 100,
    device: str | torch.device = "cpu",
) -> list[str]:
    """Detokenized translations in input order (greedy is batched, sorted by length)."""
    if not isinstance(model, Seq2Seq):  # a Transformer checkpoint
        from training.transformer_eval import translate_corpus_transformer  # noqa: PLC0415

        return translate_corpus_transformer(
            model, src_tok, tgt_tok, sentences, beam=beam, batch_size=batch_size, device=device
        )
    encoded = encode_sources(sentences, src_tok, model.cfg.max_src_len)
    out: list[str] = [""] * len(sentences)
    if beam > 1:
        for i, ids in enumerate(encoded):
            src, lengths = pad_batch([ids], device)
            best = beam_decode(model, src, lengths, beam=beam)[0]
            out[i] = tgt_tok.decode(best.tokens)
        return out
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        src, lengths = pad_batch([encoded[i] for i in idx], device)
        for i, dec in zip(idx, greedy_decode(model, src, lengths, record=False), strict=True):
            out[i] = tgt_tok.decode(dec.tokens)
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
    model: Seq2Seq,
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", required=True, help="checkpoint name (e.g. seq2seq-bahdanau) or folder"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", default="test_2016_flickr")
    parser.add_argument("--src", type=Path, help="source text file (one sentence a line)")
    parser.add_argument("--ref", type=Path, help="reference text file, aligned with --src")
    parser.add_argument("--beam", type=int, default=1)
    parser.add_argument("--concat", type=int, default=1, help="join K consecutive pairs (long set)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    device = "cuda" if args.device == "auto" and torch.cuda.is_available() else args.device
    device = "cpu" if device == "auto" else device
    from training.transformer_eval import load_translator_parts  # noqa: PLC0415 - RNN or Transformer

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
