"""A private PostgreSQL cluster for tests: Debian's binaries (``apt-get install postgresql``), a
throwaway data folder, no TCP (a Unix socket in a folder of its own), fsync on.

PostgreSQL refuses to run as root: as root, the cluster runs as the ``postgres`` system user (or
``nobody``) through ``runuser``, and its folder belongs to that user. Without the binaries the test
skips, or fails under ``CI=true`` (``tests/requirements_env.need``).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import count
from pathlib import Path

import pytest

from tests.requirements_env import need

BIN_GLOB = "/usr/lib/postgresql/*/bin"
USER = "atlas"  # the cluster's superuser (trust authentication, socket only)
_databases = count(1)


def server_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder, or None."""
    found = [path for path in Path("/").glob(BIN_GLOB.lstrip("/")) if (path / "pg_ctl").exists()]
    found.sort(key=lambda path: [int(part) for part in re.findall(r"\d+", path.parent.name)])
    return found[-1] if found else None


def _run_as() -> tuple[list[str], str | None]:
    """The command prefix that runs the server's programs, and the user they run as (None: us)."""
    if os.geteuid() != 0:
        return [], None
    runuser = shutil.which("runuser", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
    for user in ("postgres", "nobody"):
        if runuser and _user_exists(user):
            return [runuser, "-u", user, "--"], user
    pytest.fail("running as root, and there is no runuser or no postgres or nobody user")


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _call(prefix: list[str], args: list[str], cwd: Path, log: Path | None = None) -> None:
    """Run a server program (cwd: a folder its user may enter); fail with its output and log."""
    done = subprocess.run(
        [*prefix, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        logged = log.read_text(errors="replace")[-4000:] if log and log.exists() else ""
        said = f"{done.stdout}{done.stderr}{logged}"
        pytest.fail(f"{Path(args[0]).name} failed ({done.returncode}):\n{said}")


@contextmanager
def private_cluster() -> Iterator[str]:
    """Start a cluster of our own, yield its URL (database ``postgres``), then stop it (at once:
    it is thrown away) and remove it."""
    bin_dir = server_bin()
    need(bin_dir is not None, "PostgreSQL is not installed: apt-get install postgresql")
    assert bin_dir is not None
    prefix, user = _run_as()
    # /tmp: a folder the server's user can reach, and short (a socket's path has at most 107 bytes)
    folder = Path(tempfile.mkdtemp(prefix="atlas-pg-", dir="/tmp" if user else None))
    data, log = folder / "data", folder / "server.log"
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    try:
        initdb = [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", USER]
        _call(prefix, [*initdb, "-E", "UTF8", "--no-locale", "--no-sync"], folder)
        pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(data), "-w", "-t", "60"]
        options = f"-k {folder} -c listen_addresses='' -c fsync=on"
        _call(prefix, [*pg_ctl, "start", "-l", str(log), "-o", options], folder, log)
        try:
            yield f"postgresql://{USER}@/postgres?host={folder}"
        finally:
            _call(prefix, [*pg_ctl, "stop", "-m", "immediate"], folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def new_database(cluster_url: str) -> str:
    """A new, empty database in the cluster; its URL."""
    import psycopg

    name = f"test_{os.getpid()}_{next(_databases)}"
    with psycopg.connect(cluster_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return cluster_url.replace("/postgres?", f"/{name}?", 1)
