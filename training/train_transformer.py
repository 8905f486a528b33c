"""Train one small Transformer translator (English -> French, Multi30k) and write its checkpoint.

    python -m training.train_transformer --positional sinusoidal
    python -m training.train_transformer --positional learned --resume   # after an interruption

The same conventions as :mod:`training.train_seq2seq`: argparse defaults from a dataclass, a fixed
seed, a progress bar, one log line per epoch (train loss, val loss, val BLEU), a resumable state in
``runs/transformer-<positional>/`` after every epoch, early stopping on val BLEU, and the best epoch
exported to ``checkpoints/transformer-<positional>/`` (fp16 weights, config, the RNN models'
tokenizers) with a ``card.json`` of measured test BLEU (greedy, beam 5, by length, long sets).

Optimisation as in Vaswani et al. 2017, section 5.3: Adam (beta2 0.98, eps 1e-9), a linear warm-up
then inverse-square-root decay, label smoothing 0.1 (section 5.4), batches holding about
``batch_tokens`` target pieces. On a CPU with bf16 support, ``--amp`` runs the matrix products in
bfloat16 (twice as fast here); the master weights stay float32.
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
from models.tokenizer import PAD_ID, SubwordTokenizer
from models.transformer.checkpoint import load_transformer
from models.transformer.model import POSITIONAL_NAMES, Transformer, TransformerConfig
from training.cards import this_command, translator_card
from training.data import DEFAULT_DATA, concat_pairs, load_pairs
from training.evaluate import evaluate_pairs, pad_batch
from training.train_seq2seq import (
    RUNS,
    encode_pairs,
    json_to_rng,
    resolve_device,
    rng_to_json,
    state_file_of,
)

TOKENIZERS = checkpoint_folder("seq2seq-bahdanau")  # shared with the RNN models


@dataclass
class TrainConfig:
    """Optimisation settings (argparse defaults come from here)."""

    epochs: int = 16  # at most this many epochs
    batch_tokens: int = 2500  # target pieces per batch (sentences grouped by length)
    lr: float = 2e-3  # peak learning rate, reached after the warm-up
    warmup: int = 300  # linear warm-up steps, then lr * sqrt(warmup / step)
    clip: float = 1.0  # gradient-norm clipping
    label_smoothing: float = 0.1  # section 5.4
    patience: int = 3  # stop after this many epochs without a better val BLEU
    time_budget: float = 0.0  # minutes; no new epoch that would end past it (0 = no limit)
    seed: int = 1234
    train_limit: int = 0  # use only the first N training pairs (0 = all; smoke tests)
    val_limit: int = 0  # use only the first N validation pairs (0 = all)
    max_steps: int = 0  # stop each epoch after N steps (0 = no limit; smoke tests)
    amp: bool = True  # bfloat16 autocast on CPUs that support it (ignored elsewhere)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--positional", required=True, choices=POSITIONAL_NAMES)
    for name in ("d_model", "n_heads", "d_ff", "enc_layers", "dec_layers", "dropout"):
        default = getattr(TransformerConfig, name)
        p.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    for f in fields(TrainConfig):
        flag = f"--{f.name.replace('_', '-')}"
        if isinstance(f.default, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
        else:
            p.add_argument(flag, type=type(f.default), default=f.default)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--tokenizers", type=Path, default=TOKENIZERS,
                   help="folder with src.model and tgt.model (default: the RNN models')")  # fmt: skip
    p.add_argument(
        "--out", type=Path, help="checkpoint folder (default checkpoints/transformer-POS)"
    )
    p.add_argument("--run-dir", type=Path, help="resumable state (default runs/transformer-POS)")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    p.add_argument("--threads", type=int, default=0, help="torch threads (0 = PyTorch's default)")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--skip-test", action="store_true", help="no test-set evaluation at the end")
    return p.parse_args(argv)


def token_batches(data, max_tokens: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped by similar length, each batch at most ``max_tokens`` padded target pieces
    (and source pieces), batches in random order."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i][1]) + rng.random(), rng.random()))
    batches, batch, longest = [], [], 0
    for i in order:
        longest_next = max(longest, len(data[i][0]), len(data[i][1]))
        if batch and longest_next * (len(batch) + 1) > max_tokens:
            batches.append(batch)
            batch, longest_next = [], max(len(data[i][0]), len(data[i][1]))
        batch.append(i)
        longest = longest_next
    if batch:
        batches.append(batch)
    rng.shuffle(batches)
    return batches


def batch_loss(model: Transformer, data, idx, loss_fn, device, amp: bool) -> torch.Tensor:
    """Label-smoothed cross-entropy of one batch under teacher forcing."""
    src, _ = pad_batch([data[i][0] for i in idx], device)  # (B, S)
    tgt, _ = pad_batch([data[i][1] for i in idx], device)  # (B, T) = <s> y_1 .. y_n </s>
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
        logits = model(src, tgt[:, :-1])  # (B, T-1, V)
    return loss_fn(logits.float().reshape(-1, logits.shape[-1]), tgt[:, 1:].reshape(-1))


def lr_at(step: int, tc: TrainConfig) -> float:
    """Linear warm-up to ``lr``, then inverse square root (Vaswani et al. 2017, eq. 3, rescaled)."""
    step = max(1, step)
    return tc.lr * min(step / tc.warmup, (tc.warmup / step) ** 0.5)


def train_epoch(model, data, opt, loss_fn, tc: TrainConfig, rng, device, epoch: int, step: int):
    """One pass over the training data; returns (mean loss, global step)."""
    model.train()
    total, count = 0.0, 0
    batches = token_batches(data, tc.batch_tokens, rng)[: tc.max_steps or None]
    bar = tqdm(batches, desc=f"epoch {epoch}", mininterval=20, file=sys.stderr, leave=False)
    for idx in bar:
        step += 1
        for group in opt.param_groups:
            group["lr"] = lr_at(step, tc)
        loss = batch_loss(model, data, idx, loss_fn, device, tc.amp)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), tc.clip)
        opt.step()
        total, count = total + loss.item(), count + 1
        bar.set_postfix(loss=f"{total / count:.3f}")
    return total / max(1, count), step


@torch.inference_mode()
def val_loss(model, data, loss_fn, device) -> float:
    model.eval()
    losses = [
        batch_loss(model, data, list(range(i, min(i + 200, len(data)))), loss_fn, device, False)
        for i in range(0, len(data), 200)
    ]
    return float(sum(x.item() for x in losses) / max(1, len(losses)))


def test_metrics(out: Path, data: Path, device) -> dict:
    """Greedy, beam 5, and the concatenated long sets on test_2016_flickr, from the exported model."""
    model, src_tok, tgt_tok = load_transformer(out, device)
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
        "test_seconds_beam5": beam5["seconds"],
        "long_sets": {
            k: {"bleu": v["bleu"], "n": v["n"], "bleu_by_length": v["bleu_by_length"]}
            for k, v in long_sets.items()
        },
    }


def card_of_run(
    out: Path, args, tc: TrainConfig, history: list[dict], wall: float, model, test: dict
) -> Card:
    tokenizers = f"copied from {args.tokenizers} (SentencePiece BPE, 5000 per language)"
    per_epoch = {"train_seconds_per_epoch": round(wall / max(1, len(history)), 1)}
    return translator_card(
        out, family="transformer", command=this_command("training.train_transformer"),
        description="Transformer encoder-decoder (Vaswani et al. 2017), pre-LN",
        init_from=None, needs=args.tokenizers, wall=wall, history=history,
        test=test, train_metrics=per_epoch,
        data={"folder": str(args.data), "tokenizers": tokenizers},
        machine=f"2-core CPU, torch threads = {torch.get_num_threads()}, bf16 autocast = {tc.amp}",
        parameters=model.n_parameters(),
        train_config={f.name: getattr(tc, f.name) for f in fields(TrainConfig)},
    )  # fmt: skip


def _amp_supported(device: torch.device) -> bool:
    """bf16 autocast pays off on CUDA and on CPUs with native bf16 instructions."""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    return bool(
        getattr(torch.backends.cpu, "get_cpu_capability", lambda: "")() in ("AVX512", "AMX")
    )


def _save_state(run: Path, model, opt, history, wall: float, rng, step: int) -> None:
    torch.save(
        {"model": model.state_dict(), "optimizer": opt.state_dict(), "history": json.dumps(history),
         "wall": wall, "rng": rng_to_json(rng), "step": step},
        state_file_of(run),
    )  # fmt: skip


def _setup(args) -> tuple:
    """Config, tokenizers, data, model, optimizer, loss; resumes from the run folder if asked."""
    run = args.run_dir or RUNS / f"transformer-{args.positional}"
    run.mkdir(parents=True, exist_ok=True)
    for f in ("src.model", "tgt.model"):
        if not (run / f).is_file():
            shutil.copy(args.tokenizers / f, run / f)
    src_tok, tgt_tok = SubwordTokenizer(run / "src.model"), SubwordTokenizer(run / "tgt.model")
    cfg = TransformerConfig(
        positional=args.positional, src_vocab=src_tok.vocab_size, tgt_vocab=tgt_tok.vocab_size,
        d_model=args.d_model, n_heads=args.n_heads, d_ff=args.d_ff, enc_layers=args.enc_layers,
        dec_layers=args.dec_layers, dropout=args.dropout,
    )  # fmt: skip
    return run, src_tok, tgt_tok, cfg


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    tc = TrainConfig(**{f.name: getattr(args, f.name) for f in fields(TrainConfig)})
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    tc.amp = tc.amp and _amp_supported(device)
    random.seed(tc.seed), torch.manual_seed(tc.seed)
    run, src_tok, tgt_tok, cfg = _setup(args)
    out = args.out or checkpoint_folder(f"transformer-{args.positional}")
    val_pairs = load_pairs(args.data, "val")[: tc.val_limit or None]
    train_data = encode_pairs(
        load_pairs(args.data, "train")[: tc.train_limit or None], src_tok, tgt_tok, cfg
    )
    val_data = encode_pairs(val_pairs, src_tok, tgt_tok, cfg)
    model = Transformer(cfg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=tc.lr, betas=(0.9, 0.98), eps=1e-9)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD_ID, label_smoothing=tc.label_smoothing)
    history, best, wall, step, rng = [], -1.0, 0.0, 0, random.Random(tc.seed)
    if args.resume and state_file_of(run).is_file():
        state = torch.load(state_file_of(run), map_location=device, weights_only=True)
        model.load_state_dict(state["model"]), opt.load_state_dict(state["optimizer"])
        history, wall, step = json.loads(state["history"]), float(state["wall"]), int(state["step"])
        best = max((h["val_bleu"] for h in history), default=-1.0)
        rng.setstate(json_to_rng(state["rng"]))
        print(f"resumed after epoch {len(history)} (best val BLEU {best:.2f})", flush=True)
    print(f"{out.name}: {model.n_parameters():,} parameters, {len(train_data)} train pairs, "
          f"device {device}, bf16 {tc.amp}", flush=True)  # fmt: skip
    for epoch in range(len(history) + 1, tc.epochs + 1):
        mean_epoch = wall / max(1, len(history))
        if tc.time_budget and history and (wall + mean_epoch) / 60 > tc.time_budget:
            print(f"time budget: another epoch would end past {tc.time_budget} min", flush=True)
            break
        start = time.perf_counter()
        train_loss, step = train_epoch(
            model, train_data, opt, loss_fn, tc, rng, device, epoch, step
        )
        v_loss = val_loss(model, val_data, loss_fn, device)
        v_bleu = evaluate_pairs(model.eval(), src_tok, tgt_tok, val_pairs, device=device)["bleu"]
        seconds = time.perf_counter() - start
        wall += seconds
        history.append({"epoch": epoch, "train_loss": round(train_loss, 4), "val_loss": round(v_loss, 4),
                        "val_bleu": v_bleu, "lr": opt.param_groups[0]["lr"], "step": step,
                        "seconds": round(seconds, 1)})  # fmt: skip
        print(f"epoch {epoch:2d}  train loss {train_loss:.4f}  val loss {v_loss:.4f}  "
              f"val BLEU {v_bleu:5.2f}  ({seconds:.0f} s)", flush=True)  # fmt: skip
        if v_bleu > best:
            best = v_bleu
            save_translator(model, out)
            for f in ("src.model", "tgt.model"):
                shutil.copy(run / f, out / f)
        _save_state(run, model, opt, history, wall, rng, step)
        since_best = epoch - max(history, key=lambda h: h["val_bleu"])["epoch"]
        if since_best >= tc.patience:
            print(f"early stop: no better val BLEU for {since_best} epochs", flush=True)
            break
    test = {} if args.skip_test else test_metrics(out, args.data, device)
    write_card(out, card_of_run(out, args, tc, history, wall, model, test))
    summary = {k: v for k, v in test.items() if "bleu" in k and not isinstance(v, dict)}
    print(f"wrote {out} ({json.dumps(summary)})", flush=True)


if __name__ == "__main__":
    main()
