"""The class layout's supervisor (deploy/serve_class.py, what `make serve-class` runs): a replica
that dies (kill -9) is said in one line (which one, its exit status, its log) and started again on
the same port, its output added to the same log; leaving the block stops the new process too. On a
one-line app, so that a replica starts in seconds."""

from __future__ import annotations

import os
import signal
import time

from deploy import serve_class
from serve.launch import wait_healthy

TINY_APP = 'import streamlit as st\n\nst.write("a replica")\n'


def test_exit_status_in_words():
    assert serve_class.exit_words(1) == "status 1"
    assert serve_class.exit_words(-9) == "killed by SIGKILL (-9)"


def test_a_killed_replica_is_said_and_started_again_on_its_port(tmp_path):
    app = tmp_path / "app.py"
    app.write_text(TINY_APP)
    said: list[str] = []
    with serve_class.serve_class(
        1, run_dir=tmp_path / "run", proxy=False, app=app, supervise=True, say=said.append
    ) as served:
        replica = served.replicas[0]
        first = replica.proc
        os.kill(served.pids[0], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while replica.restarts == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert replica.restarts == 1 and replica.proc is not first
        wait_healthy(served.replica_urls[0], replica.proc)  # the same port serves again
        assert replica.url == served.replica_urls[0]
        assert len(said) == 1, said
        line = said[0]
        assert "replica 1" in line and "SIGKILL" in line and str(replica.log) in line
        assert "started again" in replica.log.read_text()  # one log, the restart marked in it
    assert replica.proc.poll() is not None  # Ctrl-C (leaving the block) stops the new one too
    assert len(said) == 1  # and is not taken for a death
