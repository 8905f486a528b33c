"""The training lab's jobs, shared by every session of the server: a queue, worker processes and a
cache of finished runs. No streamlit here (the page's ``app_pages.lab.controls`` holds the one
server per process).

- A job trains one configuration and seed, and optionally its twin with attention swapped
  (:meth:`models.lab.train.LabConfig.twin`), in one worker process of its own, forked from a
  ``forkserver`` that has torch imported: a worker starts without importing torch again
  (re-importing only the server's main module, streamlit's command line), much sooner than with
  ``spawn``. A process, not a thread: ``torch.set_num_threads(1)`` in the worker is process-wide
  there and cannot touch the server's threads, and the worker runs at a higher niceness so the
  server's own threads come first: another page's work in the server is then as fast as with no
  job training (docs/performance.md, "The training lab's speed").
- At most ``max_jobs`` processes at once (``ATLAS_LAB_JOBS``, 2 by default on 2 cores); the
  others wait in a queue and see their place.
- Each page tab is a *watcher* of its job and renews a heartbeat when it polls. A job that no
  watcher has polled for ``heartbeat_timeout`` seconds (its tabs are gone) is cancelled. Two tabs
  asking for the same configuration and seed share one job (and a class opening a teacher's link
  while it trains joins it); one tab cancelling only leaves it.
- Finished runs are cached by (configuration, seed), least recently used first out, at most
  ``cache_runs`` of them (about 40 snapshots each: a few hundred KB at most), so a link to a
  finished run shows it at once. Results are frozen dataclasses: no tab can change another's.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from multiprocessing import forkserver

from i18n import N_
from models.lab.train import LabConfig, LabRun, Progress, Snapshot
from models.lab.worker import END, ERROR, NICENESS, PROGRESS, RUN, SNAPSHOT, work

MAX_JOBS_ENV = "ATLAS_LAB_JOBS"
NICENESS_ENV = "ATLAS_LAB_NICENESS"
HEARTBEAT_TIMEOUT_S = 30.0
CACHE_RUNS = 32  # finished runs kept (least recently used out first)
KEEP_JOBS = 64  # finished job records kept for the tabs that still read them
STOP_GRACE_S = 5.0  # a cancelled worker has this long to stop before it is terminated
QUEUED, STARTING, RUNNING, DONE, CANCELLED, FAILED = (
    "queued",
    "starting",
    "running",
    "done",
    "cancelled",
    "failed",
)
FINISHED = (DONE, CANCELLED, FAILED)
# Why a job ended, in English (message ids: the page shows them translated, with the detail)
CANCELLED_TEXT = N_("Cancelled.")
CLOSED_TEXT = N_("Cancelled: the page that started it was closed.")
FAILED_TEXT = N_("Training failed: {detail}")
DIED_TEXT = N_("The training process stopped unexpectedly (exit code {detail}).")
START_TEXT = N_("The training process could not start: {detail}")
NO_RESULT_TEXT = N_("The training process ended without its results.")


def max_jobs_setting() -> int:
    """ATLAS_LAB_JOBS when it is a positive integer, else 2."""
    raw = os.environ.get(MAX_JOBS_ENV, "2")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 2


def niceness_setting() -> int:
    """ATLAS_LAB_NICENESS when it is an integer from 0 to 19, else 10: how far the workers step
    back for the server's own threads. 0 where nothing else on the machine is to be served first
    (the test suite, whose browsers would otherwise starve a training run)."""
    raw = os.environ.get(NICENESS_ENV, "")
    return int(raw) if raw.isdigit() and int(raw) <= 19 else NICENESS


@dataclass(frozen=True)
class JobSpec:
    """What a job trains: ``config`` from ``seed``, and with ``compare`` its twin too."""

    config: LabConfig
    seed: int
    compare: bool = True

    def runs(self) -> tuple[tuple[LabConfig, int], ...]:
        """(config, seed) of each run, the chosen one first."""
        first = (self.config, self.seed)
        return (first, (self.config.twin(), self.seed)) if self.compare else (first,)


@dataclass(frozen=True)
class JobView:
    """A job as one tab sees it at one moment.

    place: 1-based place in the queue (0 unless queued); current: the run training now (index
    into spec.runs()); snapshots: per run, those taken so far; runs: per run, the finished run
    or None; message: why it failed or stopped (one of the ``*_TEXT`` message ids, to show as
    ``_(message).format(detail=detail)``).
    """

    job_id: str
    spec: JobSpec
    state: str
    place: int
    current: int
    progress: Progress | None
    snapshots: tuple[tuple[Snapshot, ...], ...]
    runs: tuple[LabRun | None, ...]
    message: str = ""
    detail: str = ""

    @property
    def finished(self) -> bool:
        return self.state in FINISHED


@dataclass
class _Job:
    """A job's mutable record, changed only under the server's lock."""

    job_id: str
    spec: JobSpec
    watchers: dict[str, float]
    runs: list[LabRun | None]
    snapshots: list[list[Snapshot]]
    state: str = QUEUED
    current: int = 0
    progress: Progress | None = None
    message: str = ""
    detail: str = ""
    cancel: bool = False
    ended: float = 0.0
    stop: object | None = field(default=None, repr=False)


class LabServer:
    """Runs lab jobs: see the module docstring. Thread-safe; one per server process."""

    def __init__(
        self,
        max_jobs: int = 2,
        heartbeat_timeout: float = HEARTBEAT_TIMEOUT_S,
        cache_runs: int = CACHE_RUNS,
        start_method: str = "forkserver",
        niceness: int = NICENESS,
    ) -> None:
        self.max_jobs, self.heartbeat_timeout = max_jobs, heartbeat_timeout
        self.cache_runs, self.start_method, self.niceness = cache_runs, start_method, niceness
        if start_method == "forkserver":  # workers fork from a server that has torch imported
            mp.get_context(start_method).set_forkserver_preload([work.__module__])
            threading.Thread(target=forkserver.ensure_running, daemon=True).start()
        self._lock = threading.Lock()
        self._jobs: dict[str, _Job] = {}
        self._queue: list[str] = []
        self._running: set[str] = set()
        self._cache: OrderedDict[tuple[LabConfig, int], LabRun] = OrderedDict()
        self._monitor: threading.Thread | None = None

    # -- the cache ------------------------------------------------------------------------------
    def remember(self, run: LabRun) -> None:
        """Cache a completed run (the oldest unused ones go beyond ``cache_runs``)."""
        if not run.completed:
            return
        with self._lock:
            self._remember(run)

    def _remember(self, run: LabRun) -> None:
        self._cache[(run.config, run.seed)] = run
        self._cache.move_to_end((run.config, run.seed))
        while len(self._cache) > self.cache_runs:
            self._cache.popitem(last=False)

    def _cached(self, key: tuple[LabConfig, int]) -> LabRun | None:
        run = self._cache.get(key)
        if run is not None:
            self._cache.move_to_end(key)
        return run

    def cached(self, spec: JobSpec) -> tuple[LabRun, ...] | None:
        """Every run of ``spec`` from the cache, or None when one is missing."""
        with self._lock:
            runs = [self._cached(key) for key in spec.runs()]
        return None if any(r is None for r in runs) else tuple(runs)  # type: ignore[misc]

    # -- what tabs call -------------------------------------------------------------------------
    def submit(self, spec: JobSpec, watcher: str) -> str:
        """Start (or join) the job for ``spec``; returns its id. A job whose runs are all cached
        is done at once; a live job for the same spec is shared."""
        with self._lock:
            self._ensure_monitor()
            for job in self._jobs.values():
                if job.spec == spec and job.state not in FINISHED:
                    job.watchers[watcher] = time.monotonic()
                    return job.job_id
            runs = [self._cached(key) for key in spec.runs()]
            job = _Job(
                uuid.uuid4().hex[:12],
                spec,
                {watcher: time.monotonic()},
                runs,
                [list(r.snapshots) if r else [] for r in runs],
            )
            self._jobs[job.job_id] = job
            if all(r is not None for r in runs):
                job.state, job.ended = DONE, time.monotonic()
            else:
                self._queue.append(job.job_id)
                self._dispatch()
            return job.job_id

    def view(self, job_id: str, watcher: str | None = None) -> JobView | None:
        """The job now (None when unknown or forgotten); renews ``watcher``'s heartbeat."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return None
            if watcher is not None and job.state not in FINISHED:
                job.watchers[watcher] = time.monotonic()
            place = self._queue.index(job_id) + 1 if job_id in self._queue else 0
            return JobView(
                job.job_id,
                job.spec,
                job.state,
                place,
                job.current,
                job.progress,
                tuple(tuple(s) for s in job.snapshots),
                tuple(job.runs),
                job.message,
                job.detail,
            )

    def cancel(self, job_id: str, watcher: str) -> bool:
        """``watcher`` leaves the job; the job is cancelled when no watcher is left (True), else
        it trains on for the others (False)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.state in FINISHED:
                return True
            job.watchers.pop(watcher, None)
            if not job.watchers:
                self._cancel(job, CANCELLED_TEXT)
            return job.cancel

    def load(self) -> tuple[int, int]:
        """(jobs training now, jobs waiting)."""
        with self._lock:
            return len(self._running), len(self._queue)

    # -- scheduling (under the lock) --------------------------------------------------------------
    def _cancel(self, job: _Job, message: str) -> None:
        job.cancel, job.message = True, message
        if job.job_id in self._queue:
            self._queue.remove(job.job_id)
            job.state, job.ended = CANCELLED, time.monotonic()
        elif job.stop is not None:
            job.stop.set()

    def _dispatch(self) -> None:
        while self._queue and len(self._running) < self.max_jobs:
            job = self._jobs[self._queue.pop(0)]
            job.state = STARTING
            self._running.add(job.job_id)
            threading.Thread(
                target=self._run, args=(job,), daemon=True, name=f"lab-job-{job.job_id}"
            ).start()

    def _ensure_monitor(self) -> None:
        if self._monitor is None or not self._monitor.is_alive():
            self._monitor = threading.Thread(target=self._watch, daemon=True, name="lab-monitor")
            self._monitor.start()

    def _watch(self) -> None:
        """Cancel jobs nobody polls any more; forget old finished jobs. Runs forever (daemon)."""
        while True:
            time.sleep(min(1.0, self.heartbeat_timeout / 4))
            now = time.monotonic()
            with self._lock:
                for job in list(self._jobs.values()):
                    if job.state in FINISHED:
                        continue
                    stale = [w for w, t in job.watchers.items() if now - t > self.heartbeat_timeout]
                    for w in stale:
                        job.watchers.pop(w)
                    if not job.watchers and not job.cancel:
                        self._cancel(job, CLOSED_TEXT)
                done = sorted((j.ended, k) for k, j in self._jobs.items() if j.state in FINISHED)
                for _, k in done[: max(0, len(done) - KEEP_JOBS)]:
                    del self._jobs[k]

    # -- one job's thread -------------------------------------------------------------------------
    def _run(self, job: _Job) -> None:
        """Train the job's missing runs in a worker process, reading its messages until it ends."""
        ctx = mp.get_context(self.start_method)
        out, stop = ctx.Queue(), ctx.Event()
        pending = [
            (i, cfg, seed) for i, (cfg, seed) in enumerate(job.spec.runs()) if job.runs[i] is None
        ]
        process = ctx.Process(target=work, args=(pending, out, stop, self.niceness), daemon=True)
        with self._lock:
            job.stop, cancelled = stop, job.cancel
        try:
            if not cancelled:
                process.start()
                self._read(job, process, out)
        except Exception as exc:  # any failure becomes the job's message
            with self._lock:
                if not job.message:
                    job.message, job.detail = START_TEXT, f"{type(exc).__name__}: {exc}"
        finally:
            self._finish(job)  # the page sees the end now; the process may take a moment to exit
            if process.pid is not None:  # it started
                process.join(timeout=STOP_GRACE_S)
                if process.is_alive():
                    process.terminate()
                    process.join(timeout=STOP_GRACE_S)

    def _read(self, job: _Job, process: mp.process.BaseProcess, out: mp.Queue) -> None:
        """Apply the worker's messages to ``job`` until END, its death or a stalled cancel."""
        cancelled_at = None
        while True:
            try:
                tag, index, payload = out.get(timeout=0.25)
            except queue.Empty:
                if job.cancel:
                    cancelled_at = cancelled_at or time.monotonic()
                    if time.monotonic() - cancelled_at > STOP_GRACE_S:
                        return
                if not process.is_alive() and out.empty():
                    time.sleep(0.5)  # the last messages may still be in the pipe
                    if out.empty():
                        if not job.message:
                            job.message, job.detail = DIED_TEXT, str(process.exitcode)
                        return
                continue
            if tag == END:
                return
            self._apply(job, tag, index, payload)

    def _apply(self, job: _Job, tag: str, index: int, payload: object) -> None:
        with self._lock:
            job.state = RUNNING
            if tag == SNAPSHOT:
                job.current = index
                job.snapshots[index].append(payload)  # type: ignore[arg-type]
            elif tag == PROGRESS:
                job.current, job.progress = index, payload  # type: ignore[assignment]
            elif tag == RUN:
                job.runs[index] = payload  # type: ignore[assignment]
                self._remember_if_complete(payload)  # type: ignore[arg-type]
            elif tag == ERROR:
                job.message, job.detail = FAILED_TEXT, str(payload)

    def _remember_if_complete(self, run: LabRun) -> None:
        if run.completed:
            self._remember(run)

    def _finish(self, job: _Job) -> None:
        with self._lock:
            if job.cancel:
                job.state = CANCELLED
            elif all(r is not None and r.completed for r in job.runs) and not job.message:
                job.state = DONE
            else:
                job.state = FAILED
                job.message = job.message or NO_RESULT_TEXT
            job.ended = time.monotonic()
            self._running.discard(job.job_id)
            self._dispatch()
