"""The training lab's speed benchmark: sequence accuracy against seconds on ONE CPU
thread for the lab's default configuration (GRU + Bahdanau, reverse, sources up to 12 letters) and
for the same model without attention.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.lab_speed [--seconds 60] [--seed 0]

Three runs, one after the other: the default model for the lab's default number of steps; its
twin without attention for the same steps (what the page shows side by side); and the model
without attention given the whole time budget (as many steps as fit, at most 5,000). Seconds are
wall-clock from the start of each run, evaluation included (``train`` excludes it). Prints one
row per snapshot, then the verdict: when the attention model first reached 95% of the sequences
exactly right, and how the model without attention does on the longest sources within the budget.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import torch

from models.lab.train import MAX_STEPS, LabConfig, Snapshot, train_run

TARGET = 0.95
LONG = 9  # "longer sequences": sources of 9 to 12 letters


def long_accuracy(snap: Snapshot) -> float:
    """Sequence accuracy on the sources of LONG tokens or more."""
    long = [acc for n, acc in snap.by_length if n >= LONG]
    return sum(long) / len(long) if long else float("nan")


def timed_run(config: LabConfig, seed: int, budget: float | None) -> list[tuple[float, Snapshot]]:
    """Train ``config``; (wall seconds, snapshot) for each snapshot. With ``budget``, stop once
    that many wall seconds have passed."""
    start, rows = time.perf_counter(), []

    def keep(snap: Snapshot) -> None:
        rows.append((time.perf_counter() - start, snap))
        print(
            f"{config.attention:>9} {rows[-1][0]:7.1f} s  train {snap.seconds:6.1f} s  "
            f"step {snap.step:5d}  loss {snap.loss:7.3f}  accuracy {snap.accuracy:6.1%}  "
            f"len>={LONG} {long_accuracy(snap):6.1%}",
            flush=True,
        )

    def over() -> bool:
        return budget is not None and time.perf_counter() - start > budget

    train_run(config, seed, on_snapshot=keep, should_stop=over)
    return rows


def first_reaching(rows: list[tuple[float, Snapshot]], target: float) -> tuple[float, int] | None:
    """(wall seconds, step) of the first snapshot at ``target`` accuracy or above."""
    return next(((t, s.step) for t, s in rows if s.accuracy >= target), None)


def staying(rows: list[tuple[float, Snapshot]], target: float) -> tuple[float, int] | None:
    """(wall seconds, step) from which every later snapshot is at ``target`` or above."""
    below = [i for i, (_, s) in enumerate(rows) if s.accuracy < target]
    start = below[-1] + 1 if below else 0
    return (rows[start][0], rows[start][1].step) if start < len(rows) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="the time budget")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    default = LabConfig()
    print(f"default: {default}\ntorch threads: {torch.get_num_threads()}")
    attended = timed_run(default, args.seed, None)
    twin = timed_run(default.twin(), args.seed, None)
    budget = dataclasses.replace(default.twin(), steps=MAX_STEPS)
    budgeted = timed_run(budget, args.seed, args.seconds)
    hit = first_reaching(attended, TARGET)
    print("\nverdict")
    if hit is None:
        print(f"  {default.attention}: never reached {TARGET:.0%} (FAIL)")
    else:
        ok = "ok" if hit[0] <= args.seconds else "FAIL"
        print(f"  {default.attention}: {TARGET:.0%} at {hit[0]:.1f} s (step {hit[1]}) ({ok})")
        kept = staying(attended, TARGET)
        if kept is not None:
            print(
                f"  {default.attention}: at {TARGET:.0%} or above from {kept[0]:.1f} s (step {kept[1]}) on"
            )
    for name, rows in (("none, same steps", twin), (f"none, {args.seconds:.0f} s", budgeted)):
        t, last = rows[-1]
        print(
            f"  {name}: {last.accuracy:.1%} after {t:.1f} s (step {last.step}); "
            f"len>={LONG}: {long_accuracy(last):.1%}; by length: "
            + " ".join(f"{n}:{acc:.0%}" for n, acc in last.by_length)
        )


if __name__ == "__main__":
    main()
