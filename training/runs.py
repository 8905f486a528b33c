"""What the training commands share: the device, the run folder (``runs/NAME/``) with its resumable
state, and for the two translator trainers (:mod:`training.train_seq2seq`,
:mod:`training.train_transformer`) the epoch loop with early stopping on validation BLEU.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TypeVar

import torch
from torch import nn
from tqdm import tqdm

RUNS = Path(__file__).resolve().parent.parent / "runs"
C = TypeVar("C")


def resolve_device(name: str) -> torch.device:
    """ "auto" -> cuda when available, else cpu; SystemExit when cuda is asked for but missing."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda asked for, but CUDA is not available here")
    return torch.device(name)


def add_run_arguments(p: argparse.ArgumentParser, name: str, *, threads: int = 0) -> None:
    """The options every training CLI shares: where its resumable state goes (default
    runs/``name``), the device, torch's threads (0: PyTorch's default) and ``--resume``."""
    p.add_argument("--run-dir", type=Path, help=f"resumable state (default runs/{name})")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    p.add_argument(
        "--threads", type=int, default=threads, help="torch threads (0 = PyTorch's default)"
    )
    p.add_argument("--resume", action="store_true")


def configure(args: argparse.Namespace, config_class: type[C]) -> tuple[C, torch.device]:
    """The training config (a dataclass whose fields are also command-line options) from the
    parsed ``args``, and the device; sets torch's threads (``--threads``, 0 = PyTorch's default)
    and seeds Python's and torch's RNGs with the config's ``seed``."""
    config = config_class(**{f.name: getattr(args, f.name) for f in fields(config_class)})
    if args.threads:
        torch.set_num_threads(args.threads)
    random.seed(config.seed), torch.manual_seed(config.seed)
    return config, resolve_device(args.device)


def state_file_of(run: Path) -> Path:
    return run / "state.pt"


def rng_to_json(rng: random.Random) -> str:
    version, internal, gauss = rng.getstate()
    return json.dumps([version, list(internal), gauss])


def json_to_rng(text: str) -> tuple:
    version, internal, gauss = json.loads(text)
    return (version, tuple(internal), gauss)


@dataclass
class Run:
    """A translator training run: its folder (``runs/NAME/``), the model, optimizer and batching RNG
    it trains with, and its progress, saved to ``state.pt`` after every epoch so that ``--resume``
    continues where it stopped.

    history: one row per epoch (epoch, train_loss, val_loss, val_bleu, lr, seconds, ...);
    wall: seconds spent in the epochs; step: optimizer steps so far (learning-rate schedules).
    """

    folder: Path
    model: nn.Module
    opt: torch.optim.Optimizer
    rng: random.Random
    history: list[dict] = field(default_factory=list)
    wall: float = 0.0
    step: int = 0

    @classmethod
    def begin(
        cls,
        folder: Path,
        model: nn.Module,
        opt: torch.optim.Optimizer,
        *,
        seed: int,
        device: torch.device,
        resume: bool,
    ) -> Run:
        """A new run; with ``resume``, the one saved in ``folder`` when there is one (its weights,
        optimizer and RNG are loaded back)."""
        run = cls(folder, model, opt, random.Random(seed))
        if not (resume and state_file_of(folder).is_file()):
            return run
        saved = torch.load(state_file_of(folder), map_location=device, weights_only=True)
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
        run.rng.setstate(json_to_rng(saved["rng"]))
        run.history, run.wall = json.loads(saved["history"]), float(saved["wall"])
        run.step = int(saved.get("step", 0))
        print(
            f"resumed {folder.name} after epoch {len(run.history)} (best val BLEU {run.best:.2f})",
            flush=True,
        )
        return run

    @property
    def best(self) -> float:
        """The best validation BLEU so far (-1 before the first epoch)."""
        return max((h["val_bleu"] for h in self.history), default=-1.0)

    def epochs_since_best(self) -> int:
        return self.history[-1]["epoch"] - max(self.history, key=lambda h: h["val_bleu"])["epoch"]

    def save(self) -> None:
        torch.save(
            {
                "model": self.model.state_dict(),
                "optimizer": self.opt.state_dict(),
                "history": json.dumps(self.history),
                "wall": self.wall,
                "rng": rng_to_json(self.rng),
                "step": self.step,
            },
            state_file_of(self.folder),
        )

    def fit(
        self, epochs: Epochs, one_epoch: Callable[[int], dict], export: Callable[[], None]
    ) -> None:
        """The epoch loop: ``one_epoch(epoch)`` trains and validates and returns its row
        (see :func:`epoch_row`); each epoch is logged, ``export()`` runs when its val BLEU is the
        best so far, and the run is saved after every epoch."""
        for epoch in range(len(self.history) + 1, epochs.epochs + 1):
            if epochs.over_budget(self.wall, len(self.history)):
                print(
                    f"time budget: another epoch would end past {epochs.time_budget} min",
                    flush=True,
                )
                break
            best, start = self.best, time.perf_counter()
            row = one_epoch(epoch)
            seconds = time.perf_counter() - start
            self.wall += seconds
            self.history.append({"epoch": epoch, **row, "seconds": round(seconds, 1)})
            print(
                f"epoch {epoch:2d}  train loss {row['train_loss']:.4f}  val loss {row['val_loss']:.4f}  "
                f"val BLEU {row['val_bleu']:5.2f}  ({seconds:.0f} s)",
                flush=True,
            )
            if row["val_bleu"] > best:
                export()
            self.save()
            if self.epochs_since_best() >= epochs.patience:
                print(
                    f"early stop: no better val BLEU for {self.epochs_since_best()} epochs",
                    flush=True,
                )
                break


@dataclass(frozen=True)
class Epochs:
    """How a translator run goes on: ``epochs`` at most, stopping after ``patience`` epochs
    without a better val BLEU, or before an epoch that would end past ``time_budget`` minutes."""

    epochs: int
    patience: int
    time_budget: float = 0.0  # minutes; 0 = no limit

    def over_budget(self, wall: float, done: int) -> bool:
        """Would another epoch, as long as the mean of the ``done`` ones, end past the budget?"""
        if not (self.time_budget and done):
            return False
        return (wall + wall / done) / 60 > self.time_budget


def log_start(name: str, n_parameters: int, n_train: int, device: torch.device, **extra) -> None:
    """The run's first log line: model size, data and device (and ``extra`` settings)."""
    settings = "".join(f", {k} {v}" for k, v in extra.items())
    print(
        f"{name}: {n_parameters:,} parameters, {n_train} train pairs, device {device}{settings}",
        flush=True,
    )


def epoch_row(
    train_loss: float, val_loss: float, val_bleu: float, opt: torch.optim.Optimizer, **extra
) -> dict:
    """One epoch's history row (run_epochs adds the epoch and its seconds)."""
    return {
        "train_loss": round(train_loss, 4),
        "val_loss": round(val_loss, 4),
        "val_bleu": val_bleu,
        "lr": opt.param_groups[0]["lr"],
        **extra,
    }


def train_batches(
    model: nn.Module,
    opt: torch.optim.Optimizer,
    batches: list[list[int]],
    loss_of: Callable[[list[int]], torch.Tensor],
    clip: float,
    epoch: int,
    before_step: Callable[[], None] = lambda: None,
) -> float:
    """One epoch of training: per batch (indices into the data), ``before_step()`` (e.g. a
    learning-rate schedule), the loss ``loss_of(batch)``, back-propagation, gradient-norm clipping
    at ``clip`` and an optimizer step, under a progress bar. Returns the mean loss."""
    model.train()
    total, count = 0.0, 0
    bar = tqdm(batches, desc=f"epoch {epoch}", mininterval=20, file=sys.stderr, leave=False)
    for idx in bar:
        before_step()
        loss = loss_of(idx)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        total, count = total + loss.item(), count + 1
        bar.set_postfix(loss=f"{total / count:.3f}")
    return total / max(1, count)
