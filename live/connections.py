"""The class store's connections: a small lock-protected pool of open ones, and the runner that
does one call's work in one transaction on a connection borrowed from it.

A connection is lent to one call at a time, from any thread: Streamlit runs every rerun in a new
thread, so nothing is kept per thread. Against a connection per call, the pool makes a call
several times faster on both databases, since opening a connection costs more than the call
(SQLite: the file, its WAL index and the pragmas; PostgreSQL: a server process and its start-up).
A PostgreSQL connection that broke (a restarted server) is dropped with the idle ones, and the
call runs once more on a new one. Every change is committed before ``Database.run`` returns.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from live.backends import Backend

_LOG = logging.getLogger(__name__)
_T = TypeVar("_T")

POOL_SIZE = 8  # connections a process has open at most
POOL_WAIT_S = 10.0  # how long a call waits for a free connection before it fails


class Pool:
    """Open connections lent to one caller at a time, at most ``size`` out at once."""

    def __init__(self, connect: Callable[[], Any], size: int) -> None:
        self._connect = connect
        self._size = size
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._closed = False

    def take(self, fresh: bool = False) -> Any:
        """An idle connection, or a new one (always a new one when ``fresh``)."""
        if not self._slots.acquire(timeout=POOL_WAIT_S):
            raise TimeoutError(f"no free class database connection in {POOL_WAIT_S:g} s")
        try:
            with self._lock:
                if self._closed:
                    raise RuntimeError("the class store is closed")
                conn = self._idle.pop() if self._idle and not fresh else None
            return conn if conn is not None else self._connect()
        except BaseException:
            self._slots.release()
            raise

    def give(self, conn: Any, broken: bool = False) -> None:
        """Back from a caller; a broken one is closed, with the idle ones (likely broken too)."""
        drop = [conn]
        with self._lock:
            if broken:
                drop, self._idle = [conn, *self._idle], []
            elif not self._closed and len(self._idle) < self._size:
                drop = []
                self._idle.append(conn)
        self._slots.release()
        _close_all(drop)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            drop, self._idle = self._idle, []
        _close_all(drop)


def _close_all(conns: list[Any]) -> None:
    for conn in conns:
        with contextlib.suppress(Exception):
            conn.close()


class Tx:
    """The statements of one transaction."""

    def __init__(self, conn: Any, backend: Backend) -> None:
        self._conn = conn
        self._backend = backend

    def run(self, statement: str, params: tuple = ()) -> int:
        """Run a statement; how many rows it changed."""
        return self._conn.execute(self._backend.sql(statement), params).rowcount

    def one(self, statement: str, params: tuple = (), lock: str = "") -> tuple | None:
        """The first row, ``lock`` ("SHARE", "UPDATE" ...) held on it where the database can."""
        if lock and self._backend.row_locks:
            statement = f"{statement} FOR {lock}"
        return self._conn.execute(self._backend.sql(statement), params).fetchone()

    def all(self, statement: str, params: tuple = ()) -> list[tuple]:
        return self._conn.execute(self._backend.sql(statement), params).fetchall()

    def lock_migrations(self) -> None:
        self._backend.lock_migrations(self._conn)


class Database:
    """A backend's pooled connections, each call's work run in one transaction; safe to share
    between threads."""

    def __init__(self, backend: Backend, size: int = POOL_SIZE) -> None:
        self.backend = backend
        self.pool = Pool(backend.connect, size)

    def run(self, work: Callable[[Tx], _T], *, write: bool) -> _T:
        """``work`` in one transaction, committed when this returns; run once more on a new
        connection when the connection turned out broken (a restarted or cut-off server)."""
        retry = True
        while True:
            conn = self.pool.take(fresh=not retry)
            broken = False
            try:
                return self._transact(conn, work, write)
            except Exception:
                broken = self.backend.broken(conn)
                if not (broken and retry):
                    raise
                _LOG.warning("a class database connection broke: running the call again")
                retry = False
            finally:
                self.pool.give(conn, broken)

    def _transact(self, conn: Any, work: Callable[[Tx], _T], write: bool) -> _T:
        self.backend.begin(conn, write)
        try:
            result = work(Tx(conn, self.backend))
            self.backend.commit(conn)
        except BaseException:
            self.backend.rollback(conn)
            raise
        return result

    def close(self) -> None:
        """Close the idle connections; no more calls run."""
        self.pool.close()
