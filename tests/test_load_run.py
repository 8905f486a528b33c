"""The load harness against a served app (the shipped checkpoints; two replicas behind nginx,
shared by the module's tests): a tiny class with an upload, a burst, and six uploads through
nginx, each of which must reach the replica that holds its session (without affinity, half of
them would be refused); and `make load --quick` in its own process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.load import scenarios
from bench.load.metrics import ServerWatch
from bench.load.pages import PROFILES
from deploy import serve_class
from tests.browser_helpers import in_own_thread
from tests.requirements_env import need

pytestmark = pytest.mark.checkpoints  # serves the app on its shipped models (slow)


def errors_of(out: scenarios.Outcome) -> list[str]:
    return [f"{s.profile}/{s.move}: {s.error}" for s in out.samples if s.error]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[serve_class.Served]:
    """Two replicas behind nginx, shared by the tests that load a class in this process (each
    server's start and first runs are most of such a test's time)."""
    try:
        serve_class.nginx_binary()
    except FileNotFoundError as exc:
        need(False, str(exc))
    with serve_class.serve_class(2, run_dir=tmp_path_factory.mktemp("load_class")) as served:
        yield served


def test_a_tiny_class_runs_without_an_error(served: serve_class.Served):
    watch = ServerWatch(served.pids, served.logs)
    watch.start()
    out = scenarios.Outcome()
    in_own_thread(asyncio.run, scenarios.class_load(out, served.url, 2, 2, (0.0, 0.2), 0.5, seed=3))
    summary = watch.summary(1.0)
    assert not errors_of(out)
    by_move = {(s.profile, s.move) for s in out.samples}
    assert ("alignment", "open") in by_move and ("captions", "first") in by_move  # an upload
    assert sum(s.move not in ("open", "first") for s in out.samples) == 4  # 2 students x 2
    assert all(s.seconds and s.seconds > 0 for s in out.samples)
    assert summary["tracebacks"] == 0 and summary["rss_peak_mb"] > 100


def test_a_burst_reports_the_last_answer(served: serve_class.Served):
    out = scenarios.Outcome()
    in_own_thread(asyncio.run, scenarios.burst(out, served.url, 3, 2, 0.2, seed=1))
    assert not errors_of(out)
    assert [r["round"] for r in out.rounds] == [1, 2]
    assert sum(s.move == "open" for s in out.samples) == 3
    waits = [s.seconds for s in out.samples if s.move == "enter"]
    assert len(waits) == 6 and out.rounds[-1]["last_s"] == max(waits[3:])


def test_two_replicas_behind_nginx_keep_each_session_on_its_replica(served: serve_class.Served):
    assert served.url not in served.replica_urls  # the proxy's own port
    out = scenarios.Outcome()
    profile = PROFILES["captions"]

    async def six_uploads() -> None:
        await asyncio.gather(
            *(
                scenarios.student(
                    served.url, profile, 1, (0.0, 0.1), scenarios.random.Random(i), out
                )
                for i in range(6)
            )
        )

    in_own_thread(asyncio.run, six_uploads())
    assert not errors_of(out)
    assert sum(s.move == "first" for s in out.samples) == 6  # every upload reached its session


def test_make_load_quick_prints_and_writes_the_table(tmp_path: Path):
    # its own process, as `make load` runs it (it installs signal handlers: main thread only)
    args = ["--quick", "--scenario", "soak", "--soak-alignment", "4", "--soak-multi-head", "2"]
    args += ["--rss-every", "2", "--out", str(tmp_path)]
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout
    assert "| soak-alignment | 1 | alignment |" in printed
    assert "server RSS (MB) after n reruns: 0:" in printed
    (written,) = tmp_path.glob("load-*.json")
    data = json.loads(written.read_text())
    assert [d["scenario"] for d in data] == ["soak-alignment", "soak-multi-head"]
    assert len(data[0]["samples"]) == 5  # the open and 4 reruns
