"""The two databases the class store runs on, and only what differs between them: how a
connection opens, begins a transaction and breaks, which placeholders and row locks exist, and
which lock the schema is migrated under.

Both run the same statements (SQLite has PostgreSQL's upsert, ``ON CONFLICT ... DO UPDATE``, and
``RETURNING``), written with ``?`` placeholders. SQLite: one file in WAL mode with
``synchronous=FULL``, so that a committed answer survives the app being killed, and power loss as
far as the database promises. PostgreSQL: psycopg 3, imported only where it is used.
"""

from __future__ import annotations

import abc
import contextlib
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

_LOG = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000  # SQLite: how long a write waits for another process's write
_MIGRATION_LOCK = 0x61746C61735F6C76  # PostgreSQL advisory lock key ("atlas_lv")


class Backend(abc.ABC):
    """What differs between the databases; the statements are written with ``?`` placeholders."""

    row_locks = False  # whether SELECT ... FOR UPDATE exists (SQLite: a write locks the file)
    integrity_errors: tuple[type[Exception], ...] = ()

    @abc.abstractmethod
    def connect(self) -> Any:
        """A new connection to the database."""

    @abc.abstractmethod
    def begin(self, conn: Any, write: bool) -> None:
        """Start a transaction (``write``: one that will write)."""

    def commit(self, conn: Any) -> None:
        conn.commit()

    def rollback(self, conn: Any) -> None:
        with contextlib.suppress(Exception):  # a broken connection: it is dropped anyway
            conn.rollback()

    def broken(self, conn: Any) -> bool:
        return False

    def lock_migrations(self, conn: Any) -> None:
        """Hold, until the transaction ends, the lock under which the schema is migrated."""
        return None  # SQLite: BEGIN IMMEDIATE already holds the file's one write lock

    def sql(self, statement: str) -> str:
        return statement


class SQLiteBackend(Backend):
    """One SQLite file, shared by every app process on this machine."""

    integrity_errors = (sqlite3.IntegrityError,)

    def __init__(self, path: Path) -> None:
        self.path = path

    def connect(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions, begin() says which kind
        conn = sqlite3.connect(
            self.path,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,  # lent to one thread at a time by the pool
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _use_wal(conn)
        conn.execute("PRAGMA synchronous = FULL")  # each commit reaches the disk
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def begin(self, conn: sqlite3.Connection, write: bool) -> None:
        # A write takes the write lock first (waiting busy_timeout for it), never midway, where a
        # reader turned writer would fail at once on a changed snapshot.
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    def commit(self, conn: sqlite3.Connection) -> None:
        conn.execute("COMMIT")

    def rollback(self, conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            conn.execute("ROLLBACK")


def _use_wal(conn: sqlite3.Connection) -> None:
    """Put the file in WAL mode (it stays so). While another connection does that, SQLite says
    "locked" at once, without waiting busy_timeout: so try again until busy_timeout has passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            break
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.005)
    if mode != "wal":  # a file system without shared memory, say: still correct, slower
        _LOG.warning("the class database is not in WAL mode (journal_mode=%s)", mode)


class PostgresBackend(Backend):
    """A PostgreSQL database, shared by app processes on several machines."""

    row_locks = True

    def __init__(self, url: str) -> None:
        import psycopg  # only where PostgreSQL is used

        self._psycopg = psycopg
        self.url = url
        self.integrity_errors = (psycopg.IntegrityError,)

    def connect(self) -> Any:
        conn = self._psycopg.connect(self.url, autocommit=False, connect_timeout=10)
        # said, not left to the server's default: begin() relies on it
        conn.isolation_level = self._psycopg.IsolationLevel.READ_COMMITTED
        return conn

    def begin(self, conn: Any, write: bool) -> None:
        """A write: nothing (psycopg begins a transaction with its first statement). A read:
        none at all, each statement committed on its own (autocommit), which saves the
        ``BEGIN`` and ``COMMIT`` round trips: at READ COMMITTED, the isolation the store uses,
        every statement of a transaction reads its own snapshot anyway, so a read sees the same
        rows either way (and a read takes no row locks). Switched only while the connection is
        idle, between calls."""
        if conn.autocommit == write:
            conn.autocommit = not write

    def broken(self, conn: Any) -> bool:
        return bool(conn.broken or conn.closed)

    def lock_migrations(self, conn: Any) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))

    def sql(self, statement: str) -> str:
        return statement.replace("?", "%s")
