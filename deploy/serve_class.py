"""Serve the atlas to a class: N app processes on loopback ports behind nginx, sticky sessions.

    python -m deploy.serve_class --replicas 2 --port 8500     # what `make serve-class` runs

starts ``streamlit run app.py`` N times (ports port+1 ... port+N, bound to 127.0.0.1), renders
``deploy/nginx-atlas.conf.template`` for them into a run folder, and runs Debian's nginx in the
foreground on ``127.0.0.1:port`` until Ctrl-C (or SIGTERM), then stops everything it started.
One process serves one session's reruns one after another and Python runs one thread at a time,
so on a machine with several cores a class is served faster by several processes; the proxy keeps
each browser on the replica that holds its session (docs/deployment.md). The load harness
(``make load``, :mod:`bench.load`) starts the same layout through :func:`serve_class`. The
replicas are started and awaited by the one Streamlit launcher, :mod:`serve.launch`.

``make serve-class`` supervises its replicas (:class:`Supervisor`): when one exits (a crash, the
kernel's OOM killer, ``kill -9``), it prints which one, its exit status and its log, and starts
it again on the same port, its output added to the same log. The browsers it served reconnect
through nginx to another replica meanwhile.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from serve.launch import (
    ROOT,
    entry_script,
    free_port,
    start,
    stop,
    streamlit_command,
    wait_healthy,
)

SITE_TEMPLATE = Path(__file__).with_name("nginx-atlas.conf.template")
MAIN_CONF = """\
# nginx's main configuration for deploy/serve_class.py (rendered; paths relative to -p RUN_DIR)
daemon off;
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    include {site};
}}
"""
# The app process's environment, unless the caller's sets these (docs/deployment.md): one torch
# thread per operation (serve/runtime.py), and glibc's allocator told to give memory back. Streamlit
# runs every rerun in a new thread; by default glibc gives threads their own arenas (up to 8 per
# core) and lets large freed blocks stay in them (what that costs, measured with `make load
# SCENARIO=soak`: docs/deployment.md).
SERVER_ENV = {
    "ATLAS_TORCH_THREADS": "1",
    "MALLOC_ARENA_MAX": "2",
    "MALLOC_MMAP_THRESHOLD_": str(1024 * 1024),  # blocks of 1 MB and more: mmap, given back
}
NGINX_HINT = "nginx is not installed: apt-get install nginx-light (Debian's package)"
SUPERVISE_S = 1.0  # how often the supervisor looks for a replica that exited


def render_site(upstreams: Sequence[str], listen: str) -> str:
    """The http-level nginx configuration for ``upstreams`` (host:port of each replica),
    listening on ``listen`` (port, or address:port)."""
    if not upstreams:
        raise ValueError("at least one replica")
    servers = "\n".join(f"    server {u} max_fails=3 fail_timeout=10s;" for u in upstreams)
    text = SITE_TEMPLATE.read_text()
    return text.replace("@UPSTREAMS@", servers).replace("@LISTEN@", listen)


def nginx_binary() -> str:
    """The nginx executable (PATH, then /usr/sbin); FileNotFoundError naming the package."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else "")
    if not found:
        raise FileNotFoundError(NGINX_HINT)
    return found


def write_nginx_conf(run_dir: Path, upstreams: Sequence[str], listen: str) -> Path:
    """Render the site and its main configuration into ``run_dir``; the main file's path."""
    site = run_dir / "atlas.conf"
    site.write_text(render_site(upstreams, listen))
    main = run_dir / "nginx.conf"
    main.write_text(MAIN_CONF.format(site=site))
    return main


def check_nginx_conf(conf: Path) -> None:
    """``nginx -t`` on ``conf``; RuntimeError with nginx's words when it is refused."""
    prefix = str(conf.parent) + "/"
    cmd = [nginx_binary(), "-t", "-q", "-p", prefix, "-c", str(conf)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"nginx refused {conf}: {done.stderr.strip()}")


@dataclass
class Replica:
    """One app process of the layout: its number (from 1), port, log and current process (a
    restarted replica gets a new one)."""

    number: int
    port: int
    log: Path
    proc: subprocess.Popen
    restarts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass(frozen=True)
class Served:
    """A running class: ``url`` (the proxy's, or the one replica's when there is no proxy), the
    replicas' urls, process ids (as started) and log files, and the replicas themselves (their
    processes now, after any restart)."""

    url: str
    replica_urls: tuple[str, ...]
    pids: tuple[int, ...]
    logs: tuple[Path, ...]
    replicas: tuple[Replica, ...] = field(default=(), compare=False)


def exit_words(status: int) -> str:
    """A process's exit status in words: "status 1", "killed by SIGKILL (-9)"."""
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name} ({status})"
        except ValueError:
            return f"killed by signal {-status}"
    return f"status {status}"


class Supervisor:
    """Starts a replica again when it exits: ``check()`` once, or every ``every`` seconds on a
    thread between ``start()`` and ``stop()``. Each restart is said in one line (``say``)."""

    def __init__(
        self,
        replicas: Sequence[Replica],
        app: Path,
        say: Callable[[str], None] | None = None,
        every: float = SUPERVISE_S,
    ) -> None:
        self.replicas = replicas  # the caller's list: a replica added later is watched too
        self._app = app
        self._say = say or (lambda line: print(line, flush=True))
        self._every = every
        self._stopped = threading.Event()
        self._lock = threading.Lock()  # check() and stop_all() never at once
        self._thread: threading.Thread | None = None

    def check(self) -> list[Replica]:
        """Start again every replica whose process has exited; the ones restarted."""
        restarted = []
        with self._lock:
            for replica in self.replicas:
                status = replica.proc.poll()
                if status is None or self._stopped.is_set():
                    continue
                self._say(
                    f"replica {replica.number} ({replica.url}) exited, {exit_words(status)}; "
                    f"its log: {replica.log}. Starting it again on port {replica.port}."
                )
                with open(replica.log, "a") as log:
                    log.write(
                        f"\n--- serve_class: exited, {exit_words(status)}; started again ---\n"
                    )
                replica.proc = start_replica(replica.port, replica.log, self._app, append=True)
                replica.restarts += 1
                restarted.append(replica)
        return restarted

    def _loop(self) -> None:
        while not self._stopped.wait(self._every):
            try:
                self.check()
            except Exception as exc:  # a restart that failed to start: said, tried again
                self._say(f"serve_class: a replica could not be started again: {exc}")

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="serve-class-supervisor")
        self._thread.daemon = True
        self._thread.start()

    def halt(self) -> None:
        """No more restarts."""
        self._stopped.set()

    def stop_all(self) -> None:
        """No more restarts; stop every replica's current process."""
        self.halt()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            for replica in self.replicas:
                stop(replica.proc)


def start_replica(
    port: int, log: Path, app: Path = ROOT / "app.py", *, append: bool = False
) -> subprocess.Popen:
    """``streamlit run app`` (an ``app.py`` in its folder: another checkout's runs that checkout) on
    127.0.0.1:port, with :data:`SERVER_ENV` unless the environment sets those already; its
    output to ``log`` (added to its end with ``append``)."""
    env = {**SERVER_ENV, **os.environ}
    if app.name == "app.py":  # this or another checkout's app, from its folder
        script, cwd = entry_script(app.name, app.parent), app.parent  # serve/asgi.py, its stream
    else:  # another entry of this checkout's (bench/load/bare_asgi.py), from the root
        script, cwd = str(app.relative_to(ROOT)), ROOT
    return start(streamlit_command(script, port), log, env, cwd, append=append)


@contextmanager
def serve_class(
    replicas: int,
    port: int | None = None,
    run_dir: Path | None = None,
    *,
    proxy: bool = True,
    app: Path = ROOT / "app.py",
    supervise: bool = False,
    say: Callable[[str], None] | None = None,
) -> Iterator[Served]:
    """Run ``replicas`` app processes and (with ``proxy``) nginx in front of them on
    127.0.0.1:``port`` (a free port when None); stop them all on exit. Logs and nginx's files go
    to ``run_dir`` (a temporary folder when None). With ``supervise``, a replica that exits is
    started again on its port, said by ``say`` (print by default): :class:`Supervisor`."""
    with ExitStack() as stack:
        if run_dir is None:
            run_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="atlas-class-")))
        run_dir.mkdir(parents=True, exist_ok=True)
        ports = [free_port() if port is None else port + 1 + i for i in range(replicas)]
        started: list[Replica] = []
        supervisor = Supervisor(started, app, say)
        stack.callback(supervisor.stop_all)  # every replica started by then
        for i, p in enumerate(ports):
            log = run_dir / f"replica-{i + 1}.log"
            started.append(Replica(i + 1, p, log, start_replica(p, log, app)))
        for replica in started:
            wait_healthy(replica.url, replica.proc)
        urls = tuple(replica.url for replica in started)
        url = urls[0]
        if proxy:
            listen = port if port is not None else free_port()
            conf = write_nginx_conf(
                run_dir, [u.removeprefix("http://") for u in urls], f"127.0.0.1:{listen}"
            )
            check_nginx_conf(conf)
            cmd = [nginx_binary(), "-p", str(run_dir) + "/", "-c", str(conf)]
            nginx = start(cmd, run_dir / "nginx.out")
            stack.callback(stop, nginx)
            url = f"http://127.0.0.1:{listen}"
            wait_healthy(url, nginx)
        if supervise:
            supervisor.start()
            # first thing on the way out: a Ctrl-C reaches the replicas too, and one that stops
            # before the others must not be taken for a death
            stack.callback(supervisor.halt)
        pids = tuple(replica.proc.pid for replica in started)
        yield Served(url, urls, pids, tuple(r.log for r in started), tuple(started))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2, help="app processes (default 2)")
    parser.add_argument("--port", type=int, default=8500, help="nginx's port (replicas: +1...)")
    parser.add_argument("--run-dir", type=Path, default=ROOT / "runs" / "serve-class")
    args = parser.parse_args(argv)
    if args.replicas < 1:
        parser.error("--replicas must be at least 1")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with serve_class(args.replicas, args.port, args.run_dir, supervise=True) as served:
        print(f"Serving {args.replicas} replica(s) behind nginx at {served.url}")
        for replica in served.replicas:
            print(f"  replica {replica.number}  {replica.url}  log {replica.log}")
        print("A replica that exits is started again. Ctrl-C stops them all.", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
