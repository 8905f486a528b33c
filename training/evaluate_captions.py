"""Evaluate a shipped captioner on fresh scenes from a seed not used in training.

    python -m training.evaluate_captions --model caption-soft --n 500 --seed 7
    python -m training.evaluate_captions --model caption-hard --n 500 --seed 7 --json
    python -m training.evaluate_captions --model caption-soft --n 500 --seed 7 --write-card

Prints exact_match, localization and bleu4 (see ``training.caption_metrics``). The scenes are
generated and encoded on first use and cached in ``runs/caption-features/seed-S/``.
With ``--write-card`` the result is stored in the checkpoint's card (its test metrics).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import torch

from models.captioning.checkpoint import load_captioner
from models.captioning.model import DEPARTURES
from models.checkpoints import checkpoint_folder, read_card, write_card
from training.caption_data import build_set, load_set
from training.caption_metrics import caption_scores
from training.cards import this_command, with_caption_test

TRAINING_SEEDS = (1, 2)  # train and validation sets: refused for testing


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--model", default="caption-soft", help="checkpoint name or folder")
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--samples", type=int, default=10, help="sampled locations per image (hard)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--write-card", action="store_true", help="store the result in card.json")
    args = p.parse_args(argv)
    if args.seed in TRAINING_SEEDS:
        p.error(f"seed {args.seed} was used in training; pick another")
    torch.set_num_threads(args.threads)
    start = time.time()
    build_set(args.seed, args.n, args.device)
    scenes = load_set(args.seed, args.n)
    model, vocab = load_captioner(args.model, args.device)
    metrics = caption_scores(
        model,
        vocab,
        scenes.features,
        scenes.captions,
        scenes.boxes,
        device=args.device,
        beam=args.beam,
        samples=args.samples,
        seed=args.seed,
    )
    metrics.update(seed=args.seed, beam=args.beam, seconds=round(time.time() - start, 1))
    if args.write_card:
        command = this_command("training.evaluate_captions", argv, drop=("--write-card",))
        card = with_caption_test(read_card(args.model), metrics, command, DEPARTURES)
        write_card(checkpoint_folder(args.model), card)
    if args.json:
        print(json.dumps(metrics))
    else:
        for key in ("exact_match", "localization", "bleu4"):
            print(f"{key:13s} {metrics[key]:.4f}")
        print(
            f"({metrics['n']} scenes, seed {args.seed}, localization of {metrics['localization_of']})"
        )
    return metrics


if __name__ == "__main__":
    main(sys.argv[1:])
