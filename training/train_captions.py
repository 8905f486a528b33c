"""Train a Show, Attend and Tell captioner (soft or hard attention) on encoded emoji scenes.

    python -m training.caption_data --seed 1 --n 4000        # scenes + cached encoder features
    python -m training.caption_data --seed 2 --n 250         # validation scenes
    python -m training.train_captions --attention soft
    python -m training.train_captions --attention hard --resume

Fixed seed, a progress bar, one log line per epoch (train loss, val exact match, localization,
BLEU-4), a resumable state in ``runs/caption-NAME/state.pt`` after every epoch, and the best epoch
(by val exact match, then localization) exported to ``checkpoints/caption-NAME/`` with a card.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from media.scenes import OBJECT_NAMES, vocabulary_words
from models.captioning.checkpoint import load_captioner, save_captioner
from models.captioning.image_encoder import ENCODER_NAME, FEATURE_BLOCK
from models.captioning.model import END, START, CaptionConfig, ShowAttendTell, Vocab
from models.checkpoints import Card, checkpoint_folder, write_card
from training.caption_data import load_set
from training.caption_losses import Baseline, hard_loss, soft_loss
from training.caption_metrics import caption_scores
from training.cards import caption_card, this_command
from training.runs import RUNS, add_run_arguments, configure


@dataclass
class TrainConfig:
    """Optimisation settings (argparse defaults come from here)."""

    epochs: int = 20  # at most this many epochs
    batch_size: int = 16  # scenes per step (small: updates are what a starved CPU lacks)
    lr: float = 2e-3  # Adam learning rate
    lr_decay: float = 0.5  # multiply the learning rate by this when val exact match stalls ...
    decay_after: int = 3  # ... for this many epochs (reduce on plateau)
    min_lr: float = 1e-4  # never below this
    clip: float = 5.0  # gradient-norm clipping
    penalty: float = 0.005  # lambda of eq. 14 (small: our captions are short, T << L = 196)
    reinforce: float = 1.0  # lambda_r of the REINFORCE term (hard, eq. 12)
    entropy: float = 0.01  # lambda_e of the entropy term (hard, eq. 12)
    seed: int = 1234
    train_seed: int = 1  # scene set used for training
    train_n: int = 3000  # at most this many training scenes (the ready shards)
    val_seed: int = 2  # scene set used to pick the best epoch
    val_n: int = 80
    patience: int = 8  # stop after this many epochs without a better val score
    max_steps: int = 0  # stop each epoch after N steps (0 = no limit; smoke tests)
    curriculum: int = 6  # epochs 1..c: 1-object scenes; then up to 2, 3, 4 objects, 3 epochs each


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--attention", required=True, choices=("soft", "hard"))
    for name in ("annotation_dim", "embed_dim", "hidden", "attention_dim"):
        p.add_argument(
            f"--{name.replace('_', '-')}", type=int, default=getattr(CaptionConfig, name)
        )
    for f in fields(TrainConfig):
        p.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    p.add_argument("--out", type=Path, help="checkpoint folder (default checkpoints/caption-NAME)")
    add_run_arguments(p, "caption-NAME", threads=1)
    p.add_argument("--init-from", help="warm start: copy every parameter of this checkpoint")
    p.add_argument(
        "--warmup-steps",
        type=int,
        default=0,
        help="multi-label warm-up steps of the annotation projection before training",
    )
    return p.parse_args(argv)


def tensorise(captions: list[str], vocab: Vocab) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded inputs (<start> w_1..w_n) and targets (w_1..w_n <end>), both (N, T)."""
    ids = [vocab.encode(c.split()) for c in captions]
    T = max(len(i) for i in ids) + 1
    inputs = torch.zeros(len(ids), T, dtype=torch.long)
    targets = torch.zeros(len(ids), T, dtype=torch.long)
    for n, seq in enumerate(ids):
        inputs[n, : len(seq) + 1] = torch.tensor([vocab.stoi[START], *seq])
        targets[n, : len(seq) + 1] = torch.tensor([*seq, vocab.stoi[END]])
    return inputs, targets


def scene_tensors(scenes, vocab: Vocab) -> tuple[torch.Tensor, ...]:
    """(features (N, L, D), inputs (N, T), targets (N, T), objects per scene (N,))."""
    n_objects = torch.tensor([len(b) for b in scenes.boxes])
    return (torch.from_numpy(scenes.features), *tensorise(scenes.captions, vocab), n_objects)


def train_epoch(
    model, opt, data, cfg: TrainConfig, baseline: Baseline, device, gen, max_objects: int = 4
) -> float:
    """One pass over the shuffled training scenes; returns the mean loss."""
    model.train()
    features, inputs, targets, n_objects = data
    order = torch.randperm(len(features), generator=gen)
    order = order[n_objects[order] <= max_objects]  # curriculum: few objects first
    steps = range(0, len(order), cfg.batch_size)
    losses = []
    for k, start in enumerate(tqdm(steps, desc="train", unit="batch", leave=False)):
        if cfg.max_steps and k >= cfg.max_steps:
            break
        idx = order[start : start + cfg.batch_size]
        T = int((targets[idx] != 0).sum(1).max())
        f = features[idx].to(device).float()  # (B, L, D)
        x, y = inputs[idx, :T].to(device), targets[idx, :T].to(device)
        if model.cfg.attention == "soft":
            loss = soft_loss(model, f, x, y, cfg.penalty)
        else:
            loss = hard_loss(model, f, x, y, baseline, cfg.reinforce, cfg.entropy, gen)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        opt.step()
        losses.append(float(loss.detach()))
    return float(np.mean(losses))


def warm_up_annotations(
    model: ShowAttendTell, data, vocab: Vocab, steps: int, batch: int, gen
) -> None:
    """Warm up the annotation projection (not part of the paper): a multi-label objective, which
    objects the caption names, read from max_i of a linear map of the a_i. Image-level labels only
    (no boxes); it gives the a_i object detectors early, so that soft attention has something to
    find within the few thousand steps a busy CPU allows. The linear head is thrown away."""
    features, _, targets, _ = data
    head = torch.nn.Linear(model.cfg.annotation_dim, len(vocab))
    params = [*model.feature_norm.parameters(), *model.project.parameters(), *head.parameters()]
    opt = torch.optim.Adam(params, lr=3e-3)
    presence = torch.zeros(len(targets), len(vocab))
    presence.scatter_(1, targets, 1.0)
    object_ids = torch.tensor([i for i, w in enumerate(vocab.itos) if w in OBJECT_NAMES])
    for step in tqdm(range(steps), desc="warm-up", unit="step", leave=False):
        idx = torch.randint(len(features), (batch,), generator=gen)
        memory, _ = model.memory(features[idx].float())
        logits = head(memory.annotations).amax(dim=1)[:, object_ids]  # (B, n_objects)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            logits, presence[idx][:, object_ids]
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"warm-up step {step}: multi-label loss {float(loss):.4f}", flush=True)


def save_state(
    path: Path, model, opt, epoch: int, best: dict, baseline: Baseline, history: list
) -> None:
    """Everything needed to resume after ``epoch`` (plain tensors and numbers: weights_only loads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        "model": model.state_dict(),
        "opt": opt.state_dict(),
        "epoch": epoch,
        "best": json.dumps(best),
        "baseline": [baseline.value, float(baseline.started)],
        "history": json.dumps(history),
    }
    torch.save(state, path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)


def resume_state(path: Path, model, opt, baseline: Baseline) -> tuple[int, dict, list]:
    """Restore what ``save_state`` wrote; -> (the next epoch, the best epoch's figures, history)."""
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    baseline.value, baseline.started = state["baseline"][0], bool(state["baseline"][1])
    print(f"resumed after epoch {state['epoch']}")
    return state["epoch"] + 1, json.loads(state["best"]), json.loads(state["history"])


def plateau_learning_rate(opt, cfg: TrainConfig, history: list, best: dict, epoch: int) -> float:
    """Reduce on plateau, after the curriculum: decay when val stalled for ``decay_after`` epochs
    (at most every other epoch); sets and returns the epoch's learning rate."""
    lr = opt.param_groups[0]["lr"]
    if (
        history
        and epoch > cfg.curriculum + 9
        and epoch - best.get("epoch", epoch) >= cfg.decay_after
        and epoch - history[-1].get("decayed_at", 0) > 1
    ):
        lr = max(cfg.min_lr, lr * cfg.lr_decay)
    for group in opt.param_groups:
        group["lr"] = lr
    return lr


def curriculum(model: ShowAttendTell, cfg: TrainConfig, epoch: int, warmed_up: bool) -> int:
    """The most objects per scene this epoch (1 during the curriculum's first stage, then up to 2,
    3 and 4); after a warm-up, the annotation projection stays frozen during that first stage."""
    frozen = warmed_up and epoch <= cfg.curriculum  # keep the warmed-up a_i at first
    model.project.requires_grad_(not frozen)
    model.feature_norm.requires_grad_(not frozen)
    return 1 if epoch <= cfg.curriculum else min(4, 2 + (epoch - cfg.curriculum - 1) // 3)


def epoch_record(
    epoch: int, loss: float, lr: float, seconds: float, history: list, scenes: int, metrics: dict
) -> dict:
    """The epoch's history row, logged."""
    decayed = history[-1].get("decayed_at", 0) if history else 0
    decayed = epoch if history and lr < history[-1]["lr"] else decayed
    print(
        f"epoch {epoch:2d}  scenes {scenes}  loss {loss:8.3f}  lr {lr:.2e}  val exact {metrics['exact_match']:.3f}  "
        f"loc {metrics['localization']:.3f}  bleu4 {metrics['bleu4']:5.1f}  "
        f"({seconds:.0f} s)",
        flush=True,
    )
    return {
        "epoch": epoch,
        "loss": loss,
        "lr": lr,
        "seconds": seconds,
        "decayed_at": decayed,
        "scenes": scenes,
        **metrics,
    }


def build(args: argparse.Namespace, vocab: Vocab, device: torch.device) -> ShowAttendTell:
    """A fresh decoder, or one warm-started from ``--init-from``."""
    cfg = CaptionConfig(
        vocab_size=len(vocab),
        attention=args.attention,
        annotation_dim=args.annotation_dim,
        embed_dim=args.embed_dim,
        hidden=args.hidden,
        attention_dim=args.attention_dim,
    )
    model = ShowAttendTell(cfg)
    if args.init_from:
        source, _ = load_captioner(args.init_from)
        model.load_state_dict(source.state_dict())
        print(f"warm start from {args.init_from}")
    return model.to(device)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    cfg, device = configure(args, TrainConfig)
    name = f"caption-{args.attention}"
    run_dir = args.run_dir or RUNS / name
    out = args.out or checkpoint_folder(name)
    vocab = Vocab(vocabulary_words())
    train, val = load_set(cfg.train_seed, cfg.train_n), load_set(cfg.val_seed, cfg.val_n)
    data = scene_tensors(train, vocab)
    print(
        f"{len(train.captions)} training scenes (seed {cfg.train_seed}), {len(val.captions)} val scenes"
    )
    model = build(args, vocab, device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    gen = torch.Generator().manual_seed(cfg.seed)
    baseline, best, history, first = Baseline(), {"score": -1.0}, [], 1
    state_path = run_dir / "state.pt"
    if args.resume and state_path.is_file():
        first, best, history = resume_state(state_path, model, opt, baseline)
    started = time.time() - sum(h["seconds"] for h in history)
    if args.warmup_steps and not history:
        warm_up_annotations(model, data, vocab, args.warmup_steps, 64, gen)
    for epoch in range(first, cfg.epochs + 1):
        t0 = time.time()
        lr = plateau_learning_rate(opt, cfg, history, best, epoch)
        if len(data[0]) < cfg.train_n:  # shards still being encoded: take the new ones
            train = load_set(cfg.train_seed, cfg.train_n)
            data = scene_tensors(train, vocab)
        max_objects = curriculum(model, cfg, epoch, bool(args.warmup_steps))
        loss = train_epoch(model, opt, data, cfg, baseline, device, gen, max_objects)
        metrics = caption_scores(
            model, vocab, val.features, val.captions, val.boxes, device=str(device)
        )
        score = metrics["exact_match"] + 0.01 * metrics["localization"] + 1e-4 * metrics["bleu4"]
        history.append(
            epoch_record(epoch, loss, lr, time.time() - t0, history, len(data[0]), metrics)
        )
        if score > best["score"]:
            best = {"score": score, "epoch": epoch, **metrics}
            save_captioner(model, vocab, out)
            wall = time.time() - started
            write_card(out, card_of_run(out, args, cfg, best, history, wall, len(train.captions)))
        save_state(state_path, model, opt, epoch, best, baseline, history)
        if epoch - best["epoch"] >= cfg.patience:
            print(f"no better val score for {cfg.patience} epochs: stopping")
            break
    print(
        f"best epoch {best.get('epoch')}: {json.dumps({k: v for k, v in best.items() if k != 'score'})}"
    )


def card_of_run(
    out: Path, args, cfg: TrainConfig, best: dict, history: list, wall: float, n_train: int
) -> Card:
    """Data, commands, wall time, validation metrics (evaluate_captions adds the test ones)."""
    return caption_card(
        out,
        description=f"Show, Attend and Tell decoder with {args.attention} attention (Xu et al. "
        f"2015); encoder: {ENCODER_NAME} (ImageNet, frozen), MBConv block {FEATURE_BLOCK} output: 14x14x112",
        data={
            "train_seed": cfg.train_seed,
            "train_scenes": n_train,
            "val_seed": cfg.val_seed,
            "val_scenes": cfg.val_n,
            "generator": "python -m training.make_scenes / training.caption_data",
        },
        command=this_command("training.train_captions"),
        init_from=args.init_from,
        wall=wall,
        best=best,
        history=history,
        machine=f"CPU, torch threads = {args.threads}",
        train_config=asdict(cfg),
    )


if __name__ == "__main__":
    main(sys.argv[1:])
