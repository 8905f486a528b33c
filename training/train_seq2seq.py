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
from dataclasses import dataclass, fields
from pathlib import Path

import torch
from torch import nn

from models.checkpoints import Card, checkpoint_folder, save_translator, write_card
from models.rnn.checkpoint import load_seq2seq
from models.rnn.seq2seq import ATTENTION_NAMES, Seq2Seq, Seq2SeqConfig
from models.tokenizer import PAD_ID, SubwordTokenizer
from training.cards import this_command, translator_card
from training.data import DEFAULT_DATA, pad_batch, translation_data
from training.evaluate import test_report, val_bleu
from training.lengths import split_lengths
from training.runs import (
    RUNS,
    Epochs,
    Run,
    add_run_arguments,
    configure,
    epoch_row,
    log_start,
    state_file_of,
    train_batches,
)
from training.tokenizer import train_pair


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
    add_run_arguments(p, "seq2seq-NAME")
    p.add_argument(
        "--init-from",
        help="warm start: copy every parameter with the same name and shape from this checkpoint "
        "(name or folder) and reuse its tokenizers",
    )
    p.add_argument(
        "--skip-test", action="store_true", help="do not evaluate on the test set at the end"
    )
    return p.parse_args(argv)


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
    """One pass over the training data (at most ``max_steps`` batches); returns the mean loss."""
    batches = make_batches(data, tc.batch_size, rng)[: tc.max_steps or None]
    loss_of = lambda idx: batch_loss(model, data, idx, loss_fn, device)  # noqa: E731
    return train_batches(model, opt, batches, loss_of, tc.clip, epoch)


@torch.inference_mode()
def val_loss(model, data, loss_fn, tc: TrainConfig, device) -> float:
    model.eval()
    losses = [
        batch_loss(model, data, list(range(i, min(i + 256, len(data)))), loss_fn, device).item()
        for i in range(0, len(data), 256)
    ]
    return sum(losses) / max(1, len(losses))


def seq2seq_epoch(
    model: Seq2Seq,
    data,
    opt: torch.optim.Optimizer,
    loss_fn: nn.Module,
    tc: TrainConfig,
    rng: random.Random,
    tokenizers: tuple[SubwordTokenizer, SubwordTokenizer],
    epoch: int,
) -> dict:
    """One epoch: the learning rate's step decay (x ``lr_decay`` an epoch from ``decay_from``),
    a pass over the training pairs, then the validation loss and BLEU: the epoch's log row."""
    device = next(model.parameters()).device
    for group in opt.param_groups:
        group["lr"] = tc.lr * tc.lr_decay ** max(0, epoch - tc.decay_from + 1)
    train_loss = train_epoch(model, data.train, opt, loss_fn, tc, rng, device, epoch)
    v_loss = val_loss(model, data.val, loss_fn, tc, device)
    v_bleu = val_bleu(model, *tokenizers, data.val_pairs, device)
    return epoch_row(train_loss, v_loss, v_bleu, opt)


def card_of_run(
    out: Path, args, history: list[dict], wall: float, n_params: int, test: dict, lengths: dict
) -> Card:
    return translator_card(
        out,
        family="seq2seq",
        description=f"RNN encoder-decoder (GRU) with {args.attention} attention",
        command=this_command("training.train_seq2seq"),
        init_from=args.init_from,
        wall=wall,
        history=history,
        test=test,
        data={"folder": str(args.data)},
        parameters=n_params,
        machine="2-core CPU, torch threads = " + str(torch.get_num_threads()),
        train_lengths=lengths,
    )


def test_metrics(out: Path, data: Path, device) -> dict:
    """Greedy, beam 5, and the concatenated long sets on test_2016_flickr, from the exported model."""
    model, src_tok, tgt_tok = load_seq2seq(out, device)
    return test_report(model, src_tok, tgt_tok, data, device)


def tokenizers(args: argparse.Namespace, run: Path, vocab_size: int) -> tuple:
    """(source, target) tokenizers in the run folder: the warm start's, the ones a resumed run
    trained, or new ones trained on the training split."""
    run.mkdir(parents=True, exist_ok=True)
    if args.init_from:
        for f in ("src.model", "tgt.model"):
            shutil.copy(checkpoint_folder(args.init_from) / f, run / f)
    elif not (args.resume and (run / "tgt.model").is_file()):
        train_pair(args.data, run, vocab_size)
    return SubwordTokenizer(run / "src.model"), SubwordTokenizer(run / "tgt.model")


def model_config(args: argparse.Namespace, src_vocab: int, tgt_vocab: int) -> Seq2SeqConfig:
    return Seq2SeqConfig.of_width(
        args.hidden,
        attention=args.attention,
        rnn=args.rnn,
        enc_layers=args.enc_layers,
        bidirectional=not args.no_bidirectional,
        window=args.window,
        src_vocab=src_vocab,
        tgt_vocab=tgt_vocab,
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    tc, device = configure(args, TrainConfig)
    name = f"seq2seq-{args.attention}"
    out = args.out or checkpoint_folder(name)
    run = args.run_dir or RUNS / name
    src_tok, tgt_tok = tokenizers(args, run, tc.vocab_size)
    cfg = model_config(args, src_tok.vocab_size, tgt_tok.vocab_size)
    lengths, limits = (cfg.max_src_len, cfg.max_tgt_len), (tc.train_limit, tc.val_limit)
    data = translation_data(args.data, src_tok, tgt_tok, lengths, limits)
    model = build_seq2seq(args, cfg, run, device)
    opt = torch.optim.Adam(model.parameters(), lr=tc.lr)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD_ID, label_smoothing=tc.label_smoothing)
    progress = Run.begin(run, model, opt, seed=tc.seed, device=device, resume=args.resume)
    log_start(name, sum(p.numel() for p in model.parameters()), len(data.train), device)

    def one_epoch(epoch: int) -> dict:
        return seq2seq_epoch(model, data, opt, loss_fn, tc, progress.rng, (src_tok, tgt_tok), epoch)

    def export() -> None:
        save_translator(model, out)
        for f in ("src.model", "tgt.model"):
            shutil.copy(run / f, out / f)

    progress.fit(Epochs(tc.epochs, tc.patience), one_epoch, export)
    test = {} if args.skip_test else test_metrics(out, args.data, device)
    n_params = sum(p.numel() for p in model.parameters())
    measured = split_lengths(args.data, src_tok, cfg.max_src_len, tc.train_limit)
    write_card(
        out, card_of_run(out, args, progress.history, progress.wall, n_params, test, measured)
    )
    summary = {k: v for k, v in test.items() if "bleu" in k and not isinstance(v, dict)}
    print(f"wrote {out} ({json.dumps(summary)})", flush=True)


def build_seq2seq(
    args: argparse.Namespace, cfg: Seq2SeqConfig, run: Path, device: torch.device
) -> Seq2Seq:
    """A new model; with --init-from (unless resuming) warm-started from that checkpoint."""
    model = Seq2Seq(cfg).to(device)
    if args.init_from and not (args.resume and state_file_of(run).is_file()):
        copied = warm_start(model, args.init_from)
        print(f"warm start from {args.init_from}: {copied} tensors copied", flush=True)
    return model


def warm_start(model: Seq2Seq, name_or_folder: str) -> int:
    """Copy parameters with matching names and shapes from a trained checkpoint; returns the count."""
    source, _, _ = load_seq2seq(checkpoint_folder(name_or_folder))
    theirs, ours = source.state_dict(), model.state_dict()
    shared = {k: v for k, v in theirs.items() if k in ours and ours[k].shape == v.shape}
    model.load_state_dict(shared, strict=False)
    return len(shared)


if __name__ == "__main__":
    main()
