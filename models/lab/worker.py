"""The entry point of a lab training process: train a job's runs one after the other on one torch
thread, sending every snapshot, progress report and finished run back through a queue.

Started with the ``spawn`` method (``serve.lab_jobs``), so the process owns its torch settings:
``torch.set_num_threads`` is process-wide, and here it cannot touch the server's other threads.
"""

from __future__ import annotations

import os
from typing import Any

import torch

from models.lab.train import LabConfig, train_run

# Messages on the queue: (tag, run index, payload); the tag is one of these.
SNAPSHOT, PROGRESS, RUN, ERROR, END = "snapshot", "progress", "run", "error", "end"
NICENESS = 10  # added to the worker's scheduling niceness: it yields the CPU to the server


def work(
    runs: list[tuple[int, LabConfig, int]], out: Any, stop: Any, niceness: int = NICENESS
) -> None:
    """Train each (index, config, seed) in ``runs``; ``out`` is a queue, ``stop`` an event
    checked every step; ``niceness`` is added to the process's scheduling niceness. Always ends
    with an END message (after ERROR when a run raised)."""
    torch.set_num_threads(1)
    os.nice(niceness)  # the server's own threads (every other page) come first
    try:
        for index, config, seed in runs:
            run = train_run(
                config,
                seed,
                on_snapshot=lambda s, i=index: out.put((SNAPSHOT, i, s)),
                on_progress=lambda p, i=index: out.put((PROGRESS, i, p)),
                should_stop=stop.is_set,
            )
            out.put((RUN, index, run))
            if not run.completed:
                break
    except Exception as exc:  # reported to the page as a message, not lost
        out.put((ERROR, -1, f"{type(exc).__name__}: {exc}"))
    out.put((END, -1, None))
