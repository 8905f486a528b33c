"""The training lab's job server: real worker processes on tiny configurations. A job trains and
is cached; identical requests share one job; the queue shows places; a tab leaving only detaches
it; a job nobody polls is cancelled; a failing worker leaves a message."""

from __future__ import annotations

import time

from models.lab.train import LabConfig
from serve.lab_jobs import (
    CANCELLED,
    CANCELLED_TEXT,
    CLOSED_TEXT,
    DONE,
    FAILED,
    FAILED_TEXT,
    QUEUED,
    JobSpec,
    JobView,
    LabServer,
    max_jobs_setting,
    niceness_setting,
)

TINY = LabConfig(max_len=5, hidden=32, steps=20, batch=8)
LONG = LabConfig(max_len=5, hidden=32, steps=5000, batch=8)  # cancelled long before its end


def _wait(server: LabServer, job_id: str, until, watcher: str | None = "w", limit: float = 60):
    """Poll (renewing ``watcher``'s heartbeat) until ``until(view)``; returns the view."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        view = server.view(job_id, watcher)
        if until(view):
            return view
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} never got there: {server.view(job_id)}")


def _finished(view: JobView) -> bool:
    return view.finished


def test_job_trains_both_runs_and_is_cached() -> None:
    server = LabServer(max_jobs=1, niceness=0)
    spec = JobSpec(TINY, 3, compare=True)
    view = _wait(server, server.submit(spec, "w"), _finished)
    assert view.state == DONE, view.message
    assert [r.config.attention for r in view.runs] == ["bahdanau", "none"]
    assert all(r.completed for r in view.runs)
    assert [len(s) for s in view.snapshots] == [len(r.snapshots) for r in view.runs]
    assert server.cached(spec) is not None and server.load() == (0, 0)
    again = server.view(server.submit(spec, "another tab"))
    assert again.state == DONE and again.runs == view.runs  # from the cache, no process
    twin_only = server.submit(JobSpec(TINY.twin(), 3, compare=False), "x")
    assert server.view(twin_only).state == DONE  # the twin was cached as a run of its own


def test_queue_shared_jobs_and_leaving() -> None:
    server = LabServer(max_jobs=1, niceness=0)
    first = server.submit(JobSpec(LONG, 0, compare=False), "tab 1")
    second = server.submit(JobSpec(LONG, 1, compare=False), "tab 2")
    queued = server.view(second, "tab 2")
    assert queued.state == QUEUED and queued.place == 1
    assert server.submit(JobSpec(LONG, 0, compare=False), "tab 3") == first  # shared
    _wait(server, first, lambda v: bool(v.snapshots[0]), watcher="tab 1")
    server.cancel(first, "tab 1")
    assert not server.view(first, "tab 3").finished  # tab 3 still watches it
    server.cancel(first, "tab 3")
    view = _wait(server, first, _finished, watcher=None)
    assert view.state == CANCELLED and view.message == CANCELLED_TEXT
    assert server.cached(JobSpec(LONG, 0, compare=False)) is None  # a cancelled run is not kept
    started = _wait(server, second, lambda v: v.state != QUEUED, watcher="tab 2")
    assert started.place == 0
    server.cancel(second, "tab 2")
    _wait(server, second, _finished, watcher=None)


def test_a_job_nobody_polls_is_cancelled() -> None:
    server = LabServer(max_jobs=1, heartbeat_timeout=1.0, niceness=0)
    job = server.submit(JobSpec(LONG, 2, compare=False), "gone")
    view = _wait(server, job, _finished, watcher=None, limit=30)
    assert view.state == CANCELLED and view.message == CLOSED_TEXT


def test_a_failing_worker_leaves_a_message() -> None:
    broken = LabConfig(max_len=5, hidden=32, steps=20, batch=8)
    object.__setattr__(broken, "task", "no such task")  # past the config's own check
    server = LabServer(max_jobs=1, niceness=0)
    view = _wait(server, server.submit(JobSpec(broken, 0, compare=False), "w"), _finished)
    assert view.state == FAILED and view.message == FAILED_TEXT
    assert view.detail.startswith("KeyError")


def test_settings_take_only_values_in_range(monkeypatch):
    """ATLAS_LAB_JOBS: a positive integer, else 2; ATLAS_LAB_NICENESS: 0 to 19, else 10."""
    for raw, jobs in [("3", 3), ("0", 2), ("-1", 2), ("two", 2), ("", 2)]:
        monkeypatch.setenv("ATLAS_LAB_JOBS", raw)
        assert max_jobs_setting() == jobs, raw
    for raw, nice in [("0", 0), ("19", 19), ("20", 10), ("-5", 10), ("x", 10), ("", 10)]:
        monkeypatch.setenv("ATLAS_LAB_NICENESS", raw)
        assert niceness_setting() == nice, raw
    monkeypatch.delenv("ATLAS_LAB_NICENESS")
    assert niceness_setting() == 10
