"""The training lab's loop: a small :class:`models.rnn.seq2seq.Seq2Seq` (the shipped translators'
own model code and attention modules) trained on a toy task from :mod:`models.lab.tasks`, with a
:class:`Snapshot` every few steps: loss, sequence accuracy (greedy decoding), accuracy by source
length, how much attention falls on the true alignment, and the probe example's attention.

Pure PyTorch: no streamlit. ``train_run`` reports through callbacks, so the same loop serves the
app's worker process (:mod:`models.lab.worker`), the benchmark and the tests. Deterministic for a
given (config, seed) on one CPU thread: the batches come from a seeded ``random.Random``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from models.lab.tasks import TASKS, Example, eval_examples, probe_example, sample
from models.rnn.decoding import forced_decode, greedy_decode
from models.rnn.seq2seq import ATTENTION_NAMES, Seq2Seq, Seq2SeqConfig
from models.tokenizer import BOS_ID, PAD_ID

CELLS = ("rnn", "lstm", "gru")
LAB_ATTENTIONS = tuple(
    a for a in ATTENTION_NAMES if a != "local-m"
)  # the six the lab offers: local-m is left out
HIDDEN_SIZES = (32, 64, 128)
MAX_LEN, MAX_STEPS, MAX_LAYERS = 30, 5000, 2
N_SNAPSHOTS = 40  # snapshots per run (plus the untrained model at step 0)
EVAL_PER_LENGTH = 16  # evaluation examples per source length


@dataclass(frozen=True)
class LabConfig:
    """One lab model and how it is trained (the seed is separate: a run is (config, seed))."""

    task: str = "reverse"  # one of models.lab.tasks.TASK_NAMES
    cell: str = "gru"  # "rnn" (Elman, tanh), "lstm" or "gru"; encoder and decoder
    layers: int = 1  # stacked layers, encoder and decoder (1 or 2)
    bidirectional: bool = True  # BiRNN encoder
    attention: str = "bahdanau"  # one of LAB_ATTENTIONS
    max_len: int = 12  # sources have 1..max_len tokens (dates: what fits)
    hidden: int = 32  # embedding, hidden and attention sizes (the one vector without attention)
    steps: int = 800  # optimiser steps
    batch: int = 64  # sequences per step
    lr: float = 0.005  # Adam's learning rate

    def __post_init__(self) -> None:
        checks = {
            "task": self.task in TASKS,
            "cell": self.cell in CELLS,
            "layers": 1 <= self.layers <= MAX_LAYERS,
            "attention": self.attention in LAB_ATTENTIONS,
            "hidden": self.hidden in HIDDEN_SIZES,
            "steps": 10 <= self.steps <= MAX_STEPS,
            "batch": 1 <= self.batch <= 256,
            "lr": 0 < self.lr <= 0.1,
            "max_len": TASKS.get(self.task, TASKS["copy"]).min_len <= self.max_len <= MAX_LEN,
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise ValueError(f"lab setting out of range: {', '.join(bad)} ({self})")

    def twin(self) -> LabConfig:
        """The same run with attention swapped: none <-> bahdanau (the side-by-side comparison)."""
        other = "none" if self.attention != "none" else "bahdanau"
        return LabConfig(**{**self.__dict__, "attention": other})

    def model_config(self) -> Seq2SeqConfig:
        spec = TASKS[self.task]
        return Seq2SeqConfig.of_width(
            self.hidden,
            attention=self.attention,
            src_vocab=spec.src_vocab,
            tgt_vocab=spec.tgt_vocab,
            rnn=self.cell,
            enc_layers=self.layers,
            dec_layers=self.layers,
            bidirectional=self.bidirectional,
            dropout=0.0,
            attn_dim=self.hidden,
            window=3,
            max_src_len=MAX_LEN + 1,
            max_tgt_len=MAX_LEN + 2,
            tie_embeddings=False,
        )


@dataclass(frozen=True)
class Snapshot:
    """The model at one step of training.

    loss: mean cross-entropy per target token over the steps since the last snapshot;
    accuracy: share of evaluation sequences decoded exactly (greedy); by_length: (length, share)
    per source length; agreement: mean attention mass on the true alignment (teacher forced,
    rows with a known alignment), None without attention; probe_weights: (T+1, S+1) the probe
    example's teacher-forced attention (None without attention); probe_output: its greedy
    output; seconds: training time so far (evaluation excluded); sequences_per_second: batches
    trained per second of it, times the batch size.
    """

    step: int
    seconds: float
    loss: float
    accuracy: float
    by_length: tuple[tuple[int, float], ...]
    agreement: float | None
    probe_weights: np.ndarray | None
    probe_output: tuple[str, ...]
    sequences_per_second: float


@dataclass(frozen=True)
class Progress:
    """A light report between snapshots: the step, the recent loss and sequences per second."""

    step: int
    steps: int
    loss: float
    sequences_per_second: float


@dataclass(frozen=True)
class LabRun:
    """A finished (or cancelled) run: its snapshots in step order and the probe example."""

    config: LabConfig
    seed: int
    snapshots: tuple[Snapshot, ...]
    probe: Example
    completed: bool  # False when it was stopped early


@dataclass(frozen=True)
class Batch:
    """Padded tensors. src (B, S) with lengths (B,); tgt_in / tgt_out (B, T) (<s>-shifted input
    and </s>-closed output, padded with 0); alignment (B, T, S); source_lengths (B,) without </s>."""

    src: torch.Tensor
    lengths: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor
    alignment: torch.Tensor
    source_lengths: tuple[int, ...]


def make_batch(task: str, examples: list[Example]) -> Batch:
    """Examples -> padded tensors (ids 0 = <pad>)."""
    spec = TASKS[task]
    srcs = [spec.source_ids(e.source) for e in examples]
    tgts = [spec.target_ids(e.target) for e in examples]
    S, T = max(map(len, srcs)), max(map(len, tgts))
    src = torch.zeros(len(examples), S, dtype=torch.long)
    tgt_out = torch.zeros(len(examples), T, dtype=torch.long)
    alignment = torch.zeros(len(examples), T, S)
    for i, (s, t, e) in enumerate(zip(srcs, tgts, examples, strict=True)):
        src[i, : len(s)] = torch.tensor(s)
        tgt_out[i, : len(t)] = torch.tensor(t)
        alignment[i, : len(t), : len(s)] = torch.from_numpy(e.alignment)
    tgt_in = torch.cat([torch.full((len(examples), 1), BOS_ID), tgt_out[:, :-1]], 1)  # (B, T)
    lengths = torch.tensor([len(s) for s in srcs])
    return Batch(src, lengths, tgt_in, tgt_out, alignment, tuple(len(e.source) for e in examples))


def build_lab_model(config: LabConfig, seed: int) -> Seq2Seq:
    """A fresh model with weights drawn from ``seed``."""
    torch.manual_seed(seed)
    return Seq2Seq(config.model_config())


def lab_learning_rate(config: LabConfig, step: int) -> float:
    """Cosine decay from ``config.lr`` to a tenth of it over the run (steadies the end)."""
    return config.lr * (0.1 + 0.45 * (1 + math.cos(math.pi * step / config.steps)))


def train_step(model: Seq2Seq, optimizer: torch.optim.Optimizer, batch: Batch, lr: float) -> float:
    """One teacher-forced step at learning rate ``lr``; returns the mean cross-entropy per
    target token."""
    model.train()
    for group in optimizer.param_groups:
        group["lr"] = lr
    logits, _ = model(batch.src, batch.lengths, batch.tgt_in)  # (B, T, V)
    loss = nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), batch.tgt_out.reshape(-1), ignore_index=PAD_ID
    )
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return float(loss.detach())


@torch.inference_mode()
def _agreement(model: Seq2Seq, batch: Batch) -> float | None:
    """Mean attention mass on the true alignment over the rows that have one (teacher forced)."""
    _, weights = model(batch.src, batch.lengths, batch.tgt_in)  # (B, T, S)
    if weights is None:
        return None
    on_true = (weights * (batch.alignment > 0)).sum(-1)  # (B, T)
    rows = batch.alignment.sum(-1) > 0  # (B, T) rows with a known alignment
    return float(on_true[rows].mean())


def evaluate_batch(model: Seq2Seq, task: str, batch: Batch) -> tuple[float, tuple, float | None]:
    """(sequence accuracy, accuracy by source length, agreement) on an evaluation batch."""
    model.eval()
    decoded = greedy_decode(
        model, batch.src, batch.lengths, max_len=batch.tgt_out.shape[1] + 1, record=False
    )
    right: dict[int, list[bool]] = {}
    for d, want, n in zip(decoded, batch.tgt_out.tolist(), batch.source_lengths, strict=True):
        want = [t for t in want if t != PAD_ID]
        right.setdefault(n, []).append(d.tokens == want)
    by_length = tuple((n, sum(v) / len(v)) for n, v in sorted(right.items()))
    accuracy = sum(sum(v) for v in right.values()) / len(batch.source_lengths)
    return accuracy, by_length, _agreement(model, batch)


def probe(model: Seq2Seq, task: str, example: Example) -> tuple[np.ndarray | None, tuple]:
    """The probe's teacher-forced attention (T+1, S+1) (None without attention) and its greedy
    output tokens."""
    model.eval()
    spec = TASKS[task]
    src = torch.tensor([spec.source_ids(example.source)])
    lengths = torch.tensor([src.shape[1]])
    forced = forced_decode(model, src, lengths, spec.target_ids(example.target))
    weights = None
    if forced.steps[0].weights is not None:
        weights = torch.stack([s.weights for s in forced.steps]).numpy()  # (T+1, S+1)
    greedy = greedy_decode(model, src, lengths, max_len=len(example.target) + 6, record=False)
    return weights, tuple(spec.target_tokens(greedy[0].tokens))


def snapshot(model: Seq2Seq, config: LabConfig, state: _Clock, evaluation: tuple) -> Snapshot:
    """Measure the model now (evaluation batch and probe given as ``evaluation``)."""
    batch, example = evaluation
    accuracy, by_length, agreement = evaluate_batch(model, config.task, batch)
    weights, output = probe(model, config.task, example)
    return Snapshot(
        step=state.step,
        seconds=state.seconds,
        loss=state.take_loss(),
        accuracy=accuracy,
        by_length=by_length,
        agreement=agreement,
        probe_weights=weights,
        probe_output=output,
        sequences_per_second=state.rate(config.batch),
    )


class _Clock:
    """Training time (evaluation excluded), steps and the loss since the last snapshot."""

    def __init__(self) -> None:
        self.step, self.seconds, self.losses, self._start = 0, 0.0, [], 0.0

    def start(self) -> None:
        self._start = time.perf_counter()

    def stop(self, loss: float) -> None:
        self.seconds += time.perf_counter() - self._start
        self.step += 1
        self.losses.append(loss)

    def take_loss(self) -> float:
        loss = sum(self.losses) / len(self.losses) if self.losses else math.nan
        self.losses = []
        return loss

    def rate(self, batch: int) -> float:
        return self.step * batch / self.seconds if self.seconds > 0 else 0.0


def snapshot_steps(steps: int) -> set[int]:
    """The steps after which a snapshot is taken: 0, about N_SNAPSHOTS in between, and the last."""
    every = max(1, steps // N_SNAPSHOTS)
    return {0, steps, *range(every, steps, every)}


def train_run(
    config: LabConfig,
    seed: int,
    on_snapshot: Callable[[Snapshot], None] = lambda s: None,
    on_progress: Callable[[Progress], None] = lambda p: None,
    should_stop: Callable[[], bool] = lambda: False,
) -> LabRun:
    """Train ``config`` from ``seed``, reporting each snapshot and (every ~0.5 s) progress;
    ``should_stop`` is checked every step. Returns the run (``completed`` False when stopped)."""
    model = build_lab_model(config, seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    rng = random.Random(seed)
    example = probe_example(config.task, config.max_len)
    per_length = EVAL_PER_LENGTH if config.task != "date" else EVAL_PER_LENGTH // 2
    evaluation = (
        make_batch(config.task, eval_examples(config.task, config.max_len, per_length)),
        example,
    )
    clock, wanted, snapshots, reported = _Clock(), snapshot_steps(config.steps), [], 0.0
    snapshots.append(snapshot(model, config, clock, evaluation))
    on_snapshot(snapshots[-1])
    while clock.step < config.steps and not should_stop():
        batch = make_batch(
            config.task, [sample(config.task, rng, config.max_len) for _ in range(config.batch)]
        )
        clock.start()
        clock.stop(train_step(model, optimizer, batch, lab_learning_rate(config, clock.step)))
        if clock.step in wanted:
            snapshots.append(snapshot(model, config, clock, evaluation))
            on_snapshot(snapshots[-1])
        elif clock.seconds - reported >= 0.5:
            reported = clock.seconds
            recent = clock.losses[-20:]
            on_progress(
                Progress(
                    clock.step, config.steps, sum(recent) / len(recent), clock.rate(config.batch)
                )
            )
    return LabRun(config, seed, tuple(snapshots), example, clock.step >= config.steps)
