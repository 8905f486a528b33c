"""Train the three small encoder-decoders of the Recurrent networks page: a plain RNN, an LSTM and
a GRU, each a one-layer unidirectional encoder without attention (English -> French, Multi30k).

    python -m training.train_encoders --rnn rnn --threads 1             # h_t = tanh(W h_{t-1} + U x_t + b)
    python -m training.train_encoders --rnn lstm --threads 1 --resume   # continue after an interruption

The page draws how much the encoder's last state h_T depends on each input position (the vanishing
gradient), so the three differ only in the recurrent cell: same width, same data, same schedule,
and the source and target tokenizers of ``seq2seq-bahdanau`` (typed sentences are cut into the same
pieces as on the other pages). Without attention the decoder sees the source only through h_T
(Cho et al. 2014), which is what makes the gradient through time matter. The epoch loop, the
resumable state in ``runs/rnn-encoder-KIND/`` and the export of the best epoch are those of
:mod:`training.train_seq2seq`; the card holds the measured test BLEU.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import asdict, fields
from pathlib import Path

import torch
from torch import nn

from models.checkpoints import TOKENIZERS, checkpoint_folder, save_translator, write_card
from models.rnn.seq2seq import Seq2Seq, Seq2SeqConfig
from models.tokenizer import PAD_ID, SubwordTokenizer
from training.cards import this_command, translator_card
from training.data import DEFAULT_DATA, translation_data
from training.runs import RUNS, Epochs, Run, add_run_arguments, configure, log_start
from training.train_seq2seq import TrainConfig, seq2seq_epoch, test_metrics

KINDS = ("rnn", "lstm", "gru")
CELL_NAMES = {"rnn": "plain (Elman, tanh) RNN", "lstm": "LSTM", "gru": "GRU"}
TOKENIZERS_FROM = "seq2seq-bahdanau"  # the shipped translator whose tokenizers are reused
DEFAULTS = {"epochs": 8, "decay_from": 5, "patience": 2}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rnn", required=True, choices=KINDS, help="the recurrent cell")
    p.add_argument("--width", type=int, default=128, help="embedding and hidden size")
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--time-budget", type=float, default=0.0, help="minutes (0 = no limit)")
    for f in fields(TrainConfig):
        default = DEFAULTS.get(f.name, f.default)
        p.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=default)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--tokenizers", default=TOKENIZERS_FROM, help="checkpoint with src/tgt.model")
    p.add_argument(
        "--out", type=Path, help="checkpoint folder (default checkpoints/rnn-encoder-KIND)"
    )
    add_run_arguments(p, "rnn-encoder-KIND")
    p.add_argument("--skip-test", action="store_true", help="no test-set evaluation at the end")
    return p.parse_args(argv)


def encoder_config(args: argparse.Namespace, src_vocab: int, tgt_vocab: int) -> Seq2SeqConfig:
    """A one-layer unidirectional ``args.rnn`` encoder and decoder, no attention, ``width`` wide."""
    return Seq2SeqConfig.of_width(
        args.width,
        attention="none",
        rnn=args.rnn,
        bidirectional=False,
        dropout=args.dropout,
        attn_dim=args.width,
        src_vocab=src_vocab,
        tgt_vocab=tgt_vocab,
    )


def copy_tokenizers(source: str | Path, run: Path) -> tuple[SubwordTokenizer, SubwordTokenizer]:
    """The (source, target) tokenizers of checkpoint ``source``, copied into the run folder."""
    run.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZERS:
        shutil.copy(checkpoint_folder(source) / name, run / name)
    return SubwordTokenizer(run / TOKENIZERS[0]), SubwordTokenizer(run / TOKENIZERS[1])


def reproducing_command(argv: list[str] | None, epochs: int) -> str:
    """The command line that rebuilds this checkpoint from nothing: the given arguments without
    ``--resume`` and ``--time-budget`` (which depend on the run's history and the machine's speed),
    with ``--epochs`` set to the epochs actually trained."""
    args = list(sys.argv[1:] if argv is None else argv)
    kept, skip = [], False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in ("--time-budget", "--epochs"):
            skip = "=" not in arg and i + 1 < len(args)
            continue
        if name != "--resume":
            kept.append(arg)
    return this_command("training.train_encoders", [*kept, "--epochs", str(epochs)])


def write_encoder_card(
    out: Path, args, progress: Run, model: nn.Module, test: dict, command: str
) -> None:
    write_card(
        out,
        translator_card(
            out,
            family="rnn",
            description=(
                f"Encoder-decoder without attention, a one-layer unidirectional "
                f"{CELL_NAMES[args.rnn]} of width {args.width} (Cho et al. 2014), for the "
                "vanishing-gradient chart of the Recurrent networks page"
            ),
            command=command,
            init_from=None,
            wall=progress.wall,
            history=progress.history,
            test=test,
            data={"folder": str(args.data), "tokenizers": args.tokenizers},
            parameters=sum(p.numel() for p in model.parameters()),
            machine="2-core CPU shared with other jobs, torch threads = "
            + str(torch.get_num_threads()),
            train_config={f.name: getattr(args, f.name) for f in fields(TrainConfig)}
            | {"width": args.width, "dropout": args.dropout},
        ),
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    tc, device = configure(args, TrainConfig)
    name = f"rnn-encoder-{args.rnn}"
    out, run = args.out or checkpoint_folder(name), args.run_dir or RUNS / name
    src_tok, tgt_tok = copy_tokenizers(args.tokenizers, run)
    cfg = encoder_config(args, src_tok.vocab_size, tgt_tok.vocab_size)
    lengths, limits = (cfg.max_src_len, cfg.max_tgt_len), (tc.train_limit, tc.val_limit)
    data = translation_data(args.data, src_tok, tgt_tok, lengths, limits)
    torch.manual_seed(tc.seed)
    model = Seq2Seq(cfg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=tc.lr)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD_ID, label_smoothing=tc.label_smoothing)
    progress = Run.begin(run, model, opt, seed=tc.seed, device=device, resume=args.resume)
    n_params = sum(p.numel() for p in model.parameters())
    log_start(name, n_params, len(data.train), device, config=json.dumps(asdict(cfg)))

    def one_epoch(epoch: int) -> dict:
        return seq2seq_epoch(model, data, opt, loss_fn, tc, progress.rng, (src_tok, tgt_tok), epoch)

    def export() -> None:
        save_translator(model, out)
        for f in TOKENIZERS:
            shutil.copy(run / f, out / f)

    progress.fit(Epochs(tc.epochs, tc.patience, args.time_budget), one_epoch, export)
    test = {} if args.skip_test else test_metrics(out, args.data, device)
    command = reproducing_command(argv, len(progress.history))
    write_encoder_card(out, args, progress, model, test, command)
    summary = {k: v for k, v in test.items() if "bleu" in k and not isinstance(v, dict)}
    print(f"wrote {out} ({json.dumps(summary)})", flush=True)


if __name__ == "__main__":
    main()
