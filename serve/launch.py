"""Start ``streamlit run`` on a loopback port, wait until it is healthy, stop it: the one launcher
of the class layout (``deploy/serve_class.py``), the browser tests (``tests/server.py``) and the
bench (``bench/run.py``).

A server is healthy when ``/_stcore/health`` answers ``ok``. One that exits first, or is not
healthy within :data:`HEALTH_TIMEOUT_S` (a cold start of several replicas at once on a busy
machine), raises :class:`ServerNotHealthy`; its log says why.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEALTH_TIMEOUT_S = 120.0
ASGI_ENTRY = "serve/asgi.py"  # app.py with the app's own routes (serve/asgi.py)
STOP_TIMEOUT_S = 15.0  # a stopped server has this long to exit before it is killed
# base URL -> process id of each server :func:`streamlit_server` runs (the bench reads their CPU
# time), and its log where it writes one (the legibility sweep reads the tracebacks it sees)
SERVER_PIDS: dict[str, int] = {}
SERVER_LOGS: dict[str, Path] = {}


class ServerNotHealthy(RuntimeError):
    """A server exited before it was healthy, or was not healthy in time."""


def free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def entry_script(script: str, cwd: Path = ROOT) -> str:
    """What ``streamlit run`` runs for ``script``: ``app.py`` is served through
    :data:`ASGI_ENTRY` (the app's own routes beside Streamlit's: :mod:`serve.asgi`) where the
    checkout in ``cwd`` has one; any other script, or an older checkout, as it is."""
    if script == "app.py" and (cwd / ASGI_ENTRY).is_file():
        return ASGI_ENTRY
    return script


def streamlit_command(script: str, port: int, extra_args: Sequence[str] = ()) -> list[str]:
    """``streamlit run script`` on 127.0.0.1:port, headless, without a file watcher or usage
    statistics; ``extra_args``: more command-line options, which override
    ``.streamlit/config.toml``."""
    return [
        *(sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port)),
        *("--server.address", "127.0.0.1", "--server.headless", "true"),
        *("--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"),
        *extra_args,
    ]


def start(
    cmd: list[str],
    log: Path | None,
    env: Mapping[str, str] | None = None,
    cwd: Path = ROOT,
    *,
    append: bool = False,
) -> subprocess.Popen:
    """Run ``cmd`` in ``cwd``, its output to ``log`` (discarded when None; added to its end
    with ``append``, else written anew)."""
    if log is None:
        out = subprocess.DEVNULL
        return subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    with open(log, "a" if append else "w") as out:  # the child keeps its own descriptor
        return subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = HEALTH_TIMEOUT_S) -> None:
    """Poll ``url/_stcore/health`` until it answers ``ok``; :class:`ServerNotHealthy` if ``proc``
    exits first or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            name = Path(proc.args[0]).name if isinstance(proc.args, list) else proc.args
            raise ServerNotHealthy(f"{name} ({url}) exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise ServerNotHealthy(f"{url} not healthy after {timeout:.0f} s")


def stop(proc: subprocess.Popen, timeout: float = STOP_TIMEOUT_S) -> None:
    """Terminate ``proc``; kill it if it has not exited after ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def streamlit_server(
    script: str = "app.py",
    log: Path | None = None,
    extra_args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path = ROOT,
) -> Iterator[tuple[str, float]]:
    """Run ``streamlit run script`` (relative to ``cwd``) on a free port for the block, with this
    process's environment and ``env`` over it; yields (base URL, seconds to healthy)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    began = time.monotonic()
    cmd = streamlit_command(entry_script(script, cwd), port, extra_args)
    proc = start(cmd, log, {**os.environ, **(env or {})}, cwd)
    try:
        wait_healthy(url, proc)
        SERVER_PIDS[url] = proc.pid
        if log:
            SERVER_LOGS[url] = log
        yield url, time.monotonic() - began
    finally:
        SERVER_PIDS.pop(url, None)
        SERVER_LOGS.pop(url, None)
        stop(proc)
