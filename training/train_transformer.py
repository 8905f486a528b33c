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
from dataclasses import dataclass, fields
from pathlib import Path

import torch
from torch import nn

from models.checkpoints import Card, checkpoint_folder, save_translator, write_card
from models.tokenizer import PAD_ID, SubwordTokenizer
from models.transformer.checkpoint import load_transformer
from models.transformer.model import POSITIONAL_NAMES, Transformer, TransformerConfig
from training.cards import this_command, translator_card
from training.data import DEFAULT_DATA, pad_batch, translation_data
from training.evaluate import test_report, val_bleu
from training.runs import (
    RUNS,
    Epochs,
    Run,
    add_run_arguments,
    configure,
    epoch_row,
    log_start,
    train_batches,
)

TOKENIZERS = checkpoint_folder("seq2seq-bahdanau")  # shared with the RNN models
# TransformerConfig fields that are also options (--d-model ...)
MODEL_OPTIONS = ("d_model", "n_heads", "d_ff", "enc_layers", "dec_layers", "dropout")


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
    for name in MODEL_OPTIONS:
        default = getattr(TransformerConfig, name)
        p.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    for f in fields(TrainConfig):
        flag = f"--{f.name.replace('_', '-')}"
        if isinstance(f.default, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
        else:
            p.add_argument(flag, type=type(f.default), default=f.default)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument(
        "--tokenizers",
        type=Path,
        default=TOKENIZERS,
        help="folder with src.model and tgt.model (default: the RNN models')",
    )
    p.add_argument(
        "--out", type=Path, help="checkpoint folder (default checkpoints/transformer-POS)"
    )
    add_run_arguments(p, "transformer-POS")
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
    """One pass over the training data with the learning-rate schedule; returns (mean loss,
    global step)."""
    batches = token_batches(data, tc.batch_tokens, rng)[: tc.max_steps or None]
    steps = iter(range(step + 1, step + len(batches) + 1))

    def schedule() -> None:
        for group in opt.param_groups:
            group["lr"] = lr_at(next(steps), tc)

    loss_of = lambda idx: batch_loss(model, data, idx, loss_fn, device, tc.amp)  # noqa: E731
    return train_batches(model, opt, batches, loss_of, tc.clip, epoch, schedule), step + len(
        batches
    )


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
    return test_report(model, src_tok, tgt_tok, data, device)


def card_of_run(
    out: Path, args, tc: TrainConfig, history: list[dict], wall: float, model, test: dict
) -> Card:
    tokenizers = f"copied from {args.tokenizers} (SentencePiece BPE, 5000 per language)"
    per_epoch = {"train_seconds_per_epoch": round(wall / max(1, len(history)), 1)}
    return translator_card(
        out,
        family="transformer",
        command=this_command("training.train_transformer"),
        description="Transformer encoder-decoder (Vaswani et al. 2017), pre-LN",
        init_from=None,
        needs=args.tokenizers,
        wall=wall,
        history=history,
        test=test,
        train_metrics=per_epoch,
        data={"folder": str(args.data), "tokenizers": tokenizers},
        machine=f"2-core CPU, torch threads = {torch.get_num_threads()}, bf16 autocast = {tc.amp}",
        parameters=model.n_parameters(),
        train_config={f.name: getattr(tc, f.name) for f in fields(TrainConfig)},
    )


def _amp_supported(device: torch.device) -> bool:
    """bf16 autocast pays off on CUDA and on CPUs with native bf16 instructions."""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    return bool(
        getattr(torch.backends.cpu, "get_cpu_capability", lambda: "")() in ("AVX512", "AMX")
    )


def _setup(args) -> tuple:
    """(run folder, source and target tokenizers copied into it, model config)."""
    run = args.run_dir or RUNS / f"transformer-{args.positional}"
    run.mkdir(parents=True, exist_ok=True)
    for f in ("src.model", "tgt.model"):
        if not (run / f).is_file():
            shutil.copy(args.tokenizers / f, run / f)
    src_tok, tgt_tok = SubwordTokenizer(run / "src.model"), SubwordTokenizer(run / "tgt.model")
    sizes = {"src_vocab": src_tok.vocab_size, "tgt_vocab": tgt_tok.vocab_size}
    options = {name: getattr(args, name) for name in MODEL_OPTIONS}
    cfg = TransformerConfig(positional=args.positional, **sizes, **options)
    return run, src_tok, tgt_tok, cfg


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    tc, device = configure(args, TrainConfig)
    tc.amp = tc.amp and _amp_supported(device)
    run, src_tok, tgt_tok, cfg = _setup(args)
    out = args.out or checkpoint_folder(f"transformer-{args.positional}")
    lengths, limits = (cfg.max_src_len, cfg.max_tgt_len), (tc.train_limit, tc.val_limit)
    data = translation_data(args.data, src_tok, tgt_tok, lengths, limits)
    model = Transformer(cfg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=tc.lr, betas=(0.9, 0.98), eps=1e-9)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD_ID, label_smoothing=tc.label_smoothing)
    progress = Run.begin(run, model, opt, seed=tc.seed, device=device, resume=args.resume)
    log_start(out.name, model.n_parameters(), len(data.train), device, bf16=tc.amp)

    def one_epoch(epoch: int) -> dict:
        train_loss, progress.step = train_epoch(
            model, data.train, opt, loss_fn, tc, progress.rng, device, epoch, progress.step
        )
        v_loss = val_loss(model, data.val, loss_fn, device)
        v_bleu = val_bleu(model, src_tok, tgt_tok, data.val_pairs, device)
        return epoch_row(train_loss, v_loss, v_bleu, opt, step=progress.step)

    def export() -> None:
        save_translator(model, out)
        for f in ("src.model", "tgt.model"):
            shutil.copy(run / f, out / f)

    progress.fit(Epochs(tc.epochs, tc.patience, tc.time_budget), one_epoch, export)
    test = {} if args.skip_test else test_metrics(out, args.data, device)
    write_card(out, card_of_run(out, args, tc, progress.history, progress.wall, model, test))
    summary = {k: v for k, v in test.items() if "bleu" in k and not isinstance(v, dict)}
    print(f"wrote {out} ({json.dumps(summary)})", flush=True)


if __name__ == "__main__":
    main()
