"""Start a Streamlit server and a headless Chromium: the browser tests' launcher, which the bench
(``make bench``) uses too."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# base URL -> process id of each running server (the bench reads the servers' CPU time), and its
# log where it writes one (the legibility sweep reads the tracebacks of the errors it sees)
SERVER_PIDS: dict[str, int] = {}
SERVER_LOGS: dict[str, Path] = {}
CHROMIUM_ARGS = [
    *("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"),
    *("--disable-background-networking", "--disable-component-update", "--disable-sync"),
]


def free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    """Poll ``url/_stcore/health`` until it answers 'ok'; raise if the server dies or times out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{url} not healthy after {timeout:.0f} s")


@contextmanager
def streamlit_server(
    script: str = "app.py", log: Path | None = None, extra_args: tuple[str, ...] = ()
) -> Iterator[tuple[str, float]]:
    """Run ``streamlit run script`` on a free port (``extra_args``: more command-line options,
    which override ``.streamlit/config.toml``); yields (base_url, seconds to healthy)."""
    port = free_port()
    cmd = [
        *(sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port)),
        *("--server.address", "127.0.0.1", "--server.headless", "true"),
        *("--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"),
        *extra_args,
    ]
    out = open(log, "w") if log else subprocess.DEVNULL  # closed below
    start = time.monotonic()
    # The lab's workers at the server's own priority: on the test box every worker's browser and
    # server compete for the cores, and a run at niceness 10 behind them starved (CI, 120 s).
    env = {**os.environ, "ATLAS_LAB_NICENESS": "0"}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, proc)
        SERVER_PIDS[url] = proc.pid
        if log:
            SERVER_LOGS[url] = log
        yield url, time.monotonic() - start
    finally:
        SERVER_PIDS.pop(f"http://127.0.0.1:{port}", None)
        SERVER_LOGS.pop(f"http://127.0.0.1:{port}", None)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if log:
            out.close()


@contextmanager
def served_with(env: str, folder: Path, log: Path) -> Iterator[str]:
    """``streamlit run app.py`` with ``$env`` = ``folder`` (restored afterwards); yields its URL."""
    old = os.environ.get(env)
    os.environ[env] = str(folder)
    try:
        with streamlit_server("app.py", log=log) as (base, _):
            yield base
    finally:
        if old is None:
            os.environ.pop(env, None)
        else:
            os.environ[env] = old


def launch_chromium(playwright):
    """Launch the system Chromium headless (never a downloaded browser)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
