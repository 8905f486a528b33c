"""Tell a process when a class's revision changes (the teacher moved, revealed, ended or deleted
it), so that the students' pages learn of it without asking: one watcher per process, shared by
every page of every class that it serves.

The change travels through the database every app process already shares:

- **PostgreSQL**: the store publishes ``NOTIFY`` on :data:`CHANNEL` in the transaction that
  changes the revision (:func:`publish`; delivered at its commit, dropped at its rollback), and
  the watcher holds one connection that ``LISTEN``\\ s. Every few seconds, and after it had to
  connect again, it also reads the watched classes' revisions, in case a notice was missed.
- **SQLite** (one machine): no notices exist, so the watcher's one connection asks SQLite,
  every :data:`SQLITE_CHECK_S`, whether any process committed since it last looked
  (``PRAGMA data_version``, no file read), and only then reads the watched classes' revisions,
  all in one query: a cost per process, never per student.

:meth:`Watcher.subscribe` calls back, from the watcher's thread, with a class's :class:`Seen`
(its revision and whether it ended; ``None`` once it is gone or expired) first when the watcher
has read it, and again on each change. Callbacks must be quick (hand over to an event loop).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from live.backends import Backend, PostgresBackend
from live.connections import Tx

_LOG = logging.getLogger(__name__)

CHANNEL = "atlas_class"  # PostgreSQL's notice channel; the payload: "CODE REVISION"
SQLITE_CHECK_S = 0.2  # how often SQLite is asked whether anything was committed
PG_WAIT_S = 0.2  # PostgreSQL: the longest wait for notices before new subscriptions are read
PG_RECHECK_S = 5.0  # how often PostgreSQL's watched revisions are read anyway
RECONNECT_S = 1.0  # after a lost connection, the first wait before connecting again


@dataclass(frozen=True)
class Seen:
    """A class as the watcher last read it."""

    revision: int
    ended: bool


Callback = Callable[[Seen | None], None]


def publish(tx: Tx, backend: Backend, code: str, revision: int) -> None:
    """In ``tx`` (a transaction that changed the class ``code`` to ``revision``; -1: deleted):
    tell every process's watcher at commit. Nothing on SQLite, whose watchers look themselves."""
    if isinstance(backend, PostgresBackend):
        tx.one("SELECT pg_notify(?, ?)", (CHANNEL, f"{code} {revision}"))


class Watcher:
    """The revisions of the classes someone subscribed to, kept by one thread; safe to share."""

    def __init__(self, backend: Backend, now: Callable[[], float] = time.time) -> None:
        self._backend = backend
        self._now = now
        self._lock = threading.Lock()
        self._subscribers: dict[str, dict[int, Callback]] = {}
        self._seen: dict[str, Seen | None] = {}
        self._fresh: set[str] = set()  # subscribed to, not read yet
        self._ids = iter(range(1, 1 << 62))
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    # --- the subscribers' side ---------------------------------------------------------------

    def subscribe(self, code: str, callback: Callback) -> Callable[[], None]:
        """Call ``callback`` with the class's :class:`Seen` once read, then on each change; the
        function returned ends it."""
        with self._lock:
            ident = next(self._ids)
            self._subscribers.setdefault(code, {})[ident] = callback
            known = code in self._seen
            seen = self._seen.get(code)
            if not known:
                self._fresh.add(code)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="class-watcher")
                self._thread.daemon = True
                self._thread.start()
        if known:
            callback(seen)
        else:
            self._wake.set()
        return lambda: self._unsubscribe(code, ident)

    def _unsubscribe(self, code: str, ident: int) -> None:
        with self._lock:
            subscribers = self._subscribers.get(code, {})
            subscribers.pop(ident, None)
            if not subscribers:
                self._subscribers.pop(code, None)
                self._seen.pop(code, None)
                self._fresh.discard(code)

    def watched(self) -> int:
        """How many subscriptions are open (all classes)."""
        with self._lock:
            return sum(len(s) for s in self._subscribers.values())

    def close(self) -> None:
        """Stop the thread; no more callbacks."""
        self._stopped.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # --- the thread ----------------------------------------------------------------------------

    def _codes(self) -> list[str]:
        with self._lock:
            return list(self._subscribers)

    def _update(self, found: dict[str, Seen | None], codes: list[str]) -> None:
        """What was read for ``codes`` (a code not in ``found``: gone): call back on changes."""
        calls: list[tuple[Callback, Seen | None]] = []
        with self._lock:
            for code in codes:
                if code not in self._subscribers:
                    continue
                seen = found.get(code)
                first = code in self._fresh
                if first or self._seen.get(code) != seen:
                    calls += [(cb, seen) for cb in self._subscribers[code].values()]
                self._seen[code] = seen
                self._fresh.discard(code)
        for callback, seen in calls:
            try:
                callback(seen)
            except Exception:  # one subscriber's fault is not the others'
                _LOG.exception("a class watcher's callback failed")

    def _read(self, conn: Any, codes: list[str]) -> None:
        """The revisions of ``codes``, one query, and the callbacks for what changed."""
        if not codes:
            return
        marks = ", ".join("?" * len(codes))
        statement = self._backend.sql(
            f"SELECT code, revision, ended FROM classes WHERE code IN ({marks}) AND expires > ?"
        )
        rows = conn.execute(statement, (*codes, self._now())).fetchall()  # autocommit
        self._update({code: Seen(int(rev), bool(ended)) for code, rev, ended in rows}, codes)

    def _loop(self) -> None:
        wait = RECONNECT_S
        while not self._stopped.is_set():
            conn = None
            try:
                conn = self._connect()
                wait = RECONNECT_S
                self._watch(conn)
            except Exception:
                _LOG.warning("the class watcher lost its database connection", exc_info=True)
                self._stopped.wait(wait)
                wait = min(wait * 2, 10.0)
                with self._lock:  # read everything again once connected: notices were missed
                    self._fresh |= set(self._subscribers)
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()

    def _connect(self) -> Any:
        if isinstance(self._backend, PostgresBackend):
            conn = self._backend._psycopg.connect(
                self._backend.url, autocommit=True, connect_timeout=10
            )
            conn.execute(f"LISTEN {CHANNEL}")
            return conn
        return self._backend.connect()  # SQLite's: autocommit (isolation_level=None)

    def _watch(self, conn: Any) -> None:
        if isinstance(self._backend, PostgresBackend):
            self._watch_postgres(conn)
        else:
            self._watch_sqlite(conn)

    def _fresh_codes(self) -> list[str]:
        with self._lock:
            return list(self._fresh)

    def _watch_sqlite(self, conn: Any) -> None:
        version = None
        while not self._stopped.is_set():
            now = conn.execute("PRAGMA data_version").fetchone()[0]
            if now != version:  # a commit somewhere since the last look: read every class
                version = now
                self._read(conn, self._codes())
            else:
                self._read(conn, self._fresh_codes())
            self._wake.wait(SQLITE_CHECK_S)
            self._wake.clear()

    def _watch_postgres(self, conn: Any) -> None:
        self._read(conn, self._codes())
        last = time.monotonic()
        while not self._stopped.is_set():
            changed: set[str] = set()
            for notice in conn.notifies(timeout=PG_WAIT_S, stop_after=1000):
                changed.add(notice.payload.partition(" ")[0])
            with self._lock:
                changed &= set(self._subscribers)
                changed |= self._fresh
            if time.monotonic() - last > PG_RECHECK_S:
                changed, last = set(self._codes()), time.monotonic()
            self._read(conn, sorted(changed))
            self._wake.clear()


def open_watcher(url: str | None = None) -> Watcher:
    """The watcher of the class store that :func:`live.store.open_store` opens with ``url`` (the
    same environment: ATLAS_CLASS_DB, else SQLite under ATLAS_CLASS_DIR)."""
    import os

    from live.store import DB_ENV, _backend  # here: the store imports this module

    return Watcher(_backend(os.environ.get(DB_ENV, "").strip() if url is None else url))
