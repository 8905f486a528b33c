"""Train one RNN encoder-decoder translator (English -> French, Multi30k) and write its checkpoint.

    python -m training.train_seq2seq --attention bahdanau            # one model
    python -m training.train_seq2seq --attention local-p --resume    # continue after an interruption

Fixed seed, a progress bar, one log line per epoch (train loss, val loss, val BLEU), a resumable
state in ``runs/seq2seq-NAME/`` after every epoch, early stopping on val BLEU, and at the end the best
epoch exported to ``checkpoints/seq2seq-NAME/`` (fp16 weights, config, tokenizers) with a
``card.json`` holding the measured test BLEU (greedy, beam 5, by length, long concatenated sets).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from dataclasses import dataclass, fields
from pathlib import Path

import torch
from torch import nn
from tqdm import tqdm

from models.checkpoints import Card, checkpoint_folder, save_translator, write_card
from models.rnn.checkpoint import load_seq2seq
from models.rnn.seq2seq import ATTENTION_NAMES, Seq2Seq, Seq2SeqConfig
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, SubwordTokenizer
from training.cards import this_command, translator_card
from training.data import DEFAULT_DATA, concat_pairs, load_pairs
from training.evaluate import evaluate_pairs, pad_batch
from training.tokenizer import train_pair

RUNS = Path(__file__).resolve().parent.parent / "runs"


@dataclass
class TrainConfig:
    """Optimisation settings (argparse defaults come from here)."""

    epochs: int = 10  # at most this many epochs
    batch_size: int = 128  # sentence pairs per step
    lr: float = 2e-3  # Adam learning rate
    lr_decay: float = 0.5  # multiply the learning rate by this ...
    decay_from: int = 5  # ... every epoch from this one on (1-based)
    clip: float = 1.0  # gradient-norm clipping
    label_smoothing: float = 0.1
    patience: int = 2  # stop after this many epochs without a better val BLEU
    vocab_size: int = 5000  # subword vocabulary per language
    seed: int = 1234
    train_limit: int = 0  # use only the first N training pairs (0 = all; smoke tests)
    val_limit: int = 0  # use only the first N validation pairs (0 = all)
    max_steps: int = 0  # stop each epoch after N steps (0 = no limit; smoke tests)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--attention", required=True, choices=ATTENTION_NAMES)
    p.add_argument("--rnn", default="gru", choices=("gru", "lstm"))
    p.add_argument("--hidden", type=int, default=Seq2SeqConfig.hidden)
    p.add_argument("--enc-layers", type=int, default=1)
    p.add_argument("--no-bidirectional", action="store_true")
    p.add_argument("--window", type=int, default=Seq2SeqConfig.window, help="D for local attention")
    for f in fields(TrainConfig):
        p.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--out", type=Path, help="checkpoint folder (default checkpoints/seq2seq-NAME)")
    p.add_argument("--run-dir", type=Path, help="resumable state (default runs/seq2seq-NAME)")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    p.add_argument("--threads", type=int, default=0, help="torch threads (0 = PyTorch's default)")
    p.add_argument("--resume", action="store_true")
    p.add_argument(
        "--init-from",
        help="warm start: copy every parameter with the same name and shape from this checkpoint "
        "(name or folder) and reuse its tokenizers",
    )
    p.add_argument(
        "--skip-test", action="store_true", help="do not evaluate on the test set at the end"
    )
    return p.parse_args(argv)


def encode_pairs(pairs, src_tok: SubwordTokenizer, tgt_tok: SubwordTokenizer, cfg: Seq2SeqConfig):
    """-> list of (source ids + </s>, <s> + target ids + </s>), truncated to the configured lengths."""
    out = []
    for s, t in pairs:
        src = src_tok.encode(s)[: cfg.max_src_len] + [EOS_ID]
        tgt = [BOS_ID] + tgt_tok.encode(t)[: cfg.max_tgt_len - 1] + [EOS_ID]
        out.append((src, tgt))
    return out


def make_batches(data, batch_size: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped by similar source length (less padding), batches in random order."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i][0]) + rng.random(), rng.random()))
    batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(batches)
    return batches


def batch_loss(model: Seq2Seq, data, idx, loss_fn, device) -> torch.Tensor:
    src, lengths = pad_batch([data[i][0] for i in idx], device)
    tgt, _ = pad_batch([data[i][1] for i in idx], device)  # (B, T) padded with PAD_ID = 0
    logits, _ = model(src, lengths, tgt[:, :-1])  # (B, T-1, V)
    return loss_fn(logits.reshape(-1, logits.shape[-1]), tgt[:, 1:].reshape(-1))


def train_epoch(model, data, opt, loss_fn, tc: TrainConfig, rng, device, epoch: int) -> float:
    model.train()
    total, count = 0.0, 0
    batches = make_batches(data, tc.batch_size, rng)
    if tc.max_steps:
        batches = batches[: tc.max_steps]
    bar = tqdm(batches, desc=f"epoch {epoch}", mininterval=20, file=sys.stderr, leave=False)
    for idx in bar:
        loss = batch_loss(model, data, idx, loss_fn, device)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), tc.clip)
        opt.step()
        total, count = total + loss.item(), count + 1
        bar.set_postfix(loss=f"{total / count:.3f}")
    return total / max(1, count)


@torch.inference_mode()
def val_loss(model, data, loss_fn, tc: TrainConfig, device) -> float:
    model.eval()
    losses = [
        batch_loss(model, data, list(range(i, min(i + 256, len(data)))), loss_fn, device).item()
        for i in range(0, len(data), 256)
    ]
    return sum(losses) / max(1, len(losses))


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda asked for, but CUDA is not available here")
    return torch.device(name)


def card_of_run(
    out: Path, args, history: list[dict], wall: float, n_params: int, test: dict
) -> Card:
    return translator_card(
        out, family="seq2seq", description=f"RNN encoder-decoder (GRU) with {args.attention} attention",
        command=this_command("training.train_seq2seq"), init_from=args.init_from, wall=wall,
        history=history, test=test, data={"folder": str(args.data)}, parameters=n_params,
        machine="2-core CPU, torch threads = " + str(torch.get_num_threads()),
    )  # fmt: skip


def test_metrics(out: Path, data: Path, device) -> dict:
    """Greedy, beam 5, and the concatenated long sets on test_2016_flickr, from the exported model."""
    model, src_tok, tgt_tok = load_seq2seq(out, device)
    pairs = load_pairs(data, "test_2016_flickr")
    greedy = evaluate_pairs(model, src_tok, tgt_tok, pairs, device=device)
    beam5 = evaluate_pairs(model, src_tok, tgt_tok, pairs, beam=5, device=device)
    long_sets = {
        f"concat{k}": evaluate_pairs(model, src_tok, tgt_tok, concat_pairs(pairs, k), device=device)
        for k in (2, 3)
    }
    return {
        "test_bleu_greedy": greedy["bleu"],
        "test_bleu_beam5": beam5["bleu"],
        "bleu_by_length": greedy["bleu_by_length"],
        "test_seconds_greedy": greedy["seconds"],
        "long_sets": {
            k: {"bleu": v["bleu"], "n": v["n"], "bleu_by_length": v["bleu_by_length"]}
            for k, v in long_sets.items()
        },
    }


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    tc = TrainConfig(**{f.name: getattr(args, f.name) for f in fields(TrainConfig)})
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    name = f"seq2seq-{args.attention}"
    out = args.out or checkpoint_folder(name)
    run = args.run_dir or RUNS / name
    random.seed(tc.seed), torch.manual_seed(tc.seed)
    run.mkdir(parents=True, exist_ok=True)
    if args.init_from:
        for f in ("src.model", "tgt.model"):
            shutil.copy(checkpoint_folder(args.init_from) / f, run / f)
    elif not (args.resume and (run / "tgt.model").is_file()):
        train_pair(args.data, run, tc.vocab_size)
    src_tok, tgt_tok = SubwordTokenizer(run / "src.model"), SubwordTokenizer(run / "tgt.model")
    cfg = Seq2SeqConfig(
        attention=args.attention,
        rnn=args.rnn,
        hidden=args.hidden,
        emb_dim=args.hidden,
        enc_hidden=args.hidden,
        enc_layers=args.enc_layers,
        bidirectional=not args.no_bidirectional,
        window=args.window,
        src_vocab=src_tok.vocab_size,
        tgt_vocab=tgt_tok.vocab_size,
    )
    train_pairs = load_pairs(args.data, "train")[: tc.train_limit or None]
    val_pairs = load_pairs(args.data, "val")[: tc.val_limit or None]
    train_data = encode_pairs(train_pairs, src_tok, tgt_tok, cfg)
    val_data = encode_pairs(val_pairs, src_tok, tgt_tok, cfg)
    model = Seq2Seq(cfg).to(device)
    if args.init_from and not (args.resume and state_file_of(run).is_file()):
        copied = warm_start(model, args.init_from)
        print(f"warm start from {args.init_from}: {copied} tensors copied", flush=True)
    opt = torch.optim.Adam(model.parameters(), lr=tc.lr)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD_ID, label_smoothing=tc.label_smoothing)
    history, best, wall, rng = [], -1.0, 0.0, random.Random(tc.seed)
    state_file = state_file_of(run)
    if args.resume and state_file.is_file():
        state = torch.load(state_file, map_location=device, weights_only=True)
        model.load_state_dict(state["model"]), opt.load_state_dict(state["optimizer"])
        history, wall = json.loads(state["history"]), float(state["wall"])
        best = max((h["val_bleu"] for h in history), default=-1.0)
        rng.setstate(json_to_rng(state["rng"]))
        print(f"resumed {name} after epoch {len(history)} (best val BLEU {best:.2f})", flush=True)
    print(
        f"{name}: {sum(p.numel() for p in model.parameters()):,} parameters, {len(train_data)} train pairs, device {device}",
        flush=True,
    )
    for epoch in range(len(history) + 1, tc.epochs + 1):
        start = time.perf_counter()
        for group in opt.param_groups:
            group["lr"] = tc.lr * tc.lr_decay ** max(0, epoch - tc.decay_from + 1)
        train_loss = train_epoch(model, train_data, opt, loss_fn, tc, rng, device, epoch)
        v_loss = val_loss(model, val_data, loss_fn, tc, device)
        v_bleu = evaluate_pairs(model.eval(), src_tok, tgt_tok, val_pairs, device=device)["bleu"]
        wall += time.perf_counter() - start
        history.append(
            {
                "epoch": epoch,
                "train_loss": round(train_loss, 4),
                "val_loss": round(v_loss, 4),
                "val_bleu": v_bleu,
                "lr": opt.param_groups[0]["lr"],
                "seconds": round(time.perf_counter() - start, 1),
            }
        )
        print(
            f"epoch {epoch:2d}  train loss {train_loss:.4f}  val loss {v_loss:.4f}  val BLEU {v_bleu:5.2f}  ({history[-1]['seconds']:.0f} s)",
            flush=True,
        )
        if v_bleu > best:
            best = v_bleu
            save_translator(model, out)
            for f in ("src.model", "tgt.model"):
                shutil.copy(run / f, out / f)
        torch.save(
            {
                "model": model.state_dict(),
                "optimizer": opt.state_dict(),
                "history": json.dumps(history),
                "wall": wall,
                "rng": rng_to_json(rng),
            },
            state_file,
        )
        since_best = epoch - max(history, key=lambda h: h["val_bleu"])["epoch"]
        if since_best >= tc.patience:
            print(f"early stop: no better val BLEU for {since_best} epochs", flush=True)
            break
    test = {} if args.skip_test else test_metrics(out, args.data, device)
    n_params = sum(p.numel() for p in model.parameters())
    write_card(out, card_of_run(out, args, history, wall, n_params, test))
    print(
        f"wrote {out} ({json.dumps({k: v for k, v in test.items() if 'bleu' in k and not isinstance(v, dict)})})",
        flush=True,
    )


def state_file_of(run: Path) -> Path:
    return run / "state.pt"


def warm_start(model: Seq2Seq, name_or_folder: str) -> int:
    """Copy parameters with matching names and shapes from a trained checkpoint; returns the count."""
    source, _, _ = load_seq2seq(checkpoint_folder(name_or_folder))
    theirs, ours = source.state_dict(), model.state_dict()
    shared = {k: v for k, v in theirs.items() if k in ours and ours[k].shape == v.shape}
    model.load_state_dict(shared, strict=False)
    return len(shared)


def rng_to_json(rng: random.Random) -> str:
    version, internal, gauss = rng.getstate()
    return json.dumps([version, list(internal), gauss])


def json_to_rng(text: str) -> tuple:
    version, internal, gauss = json.loads(text)
    return (version, tuple(internal), gauss)


if __name__ == "__main__":
    main()
