"""The live class's state store: classes, their students and their answers, in a database that
every app process shares, behind typed methods (the pages never see SQL).

SQLite in WAL mode, one file under ``ATLAS_CLASS_DIR``, by default; PostgreSQL (psycopg 3) when
``ATLAS_CLASS_DB`` names one. Both run the same statements (SQLite has PostgreSQL's upsert,
``ON CONFLICT ... DO UPDATE``, and ``RETURNING``): a small ``_Backend`` says what differs
(placeholders, row locks, how a connection opens, begins a transaction and breaks). The schema is
``MIGRATIONS`` (version N is ``MIGRATIONS[N-1]``), brought up to date once when a store opens, under
a lock that a second process opening at the same moment waits on.

Connections: a small lock-protected pool (``_Pool``) of open connections, lent to one call at a
time, from any thread: Streamlit runs every rerun in a new thread, so nothing is kept per thread.
Measured against a connection per call, the pool makes a call several times faster on both
databases, since opening a connection costs more than the call (SQLite: the file, its WAL index
and the pragmas; PostgreSQL: a server process and its start-up). A PostgreSQL connection that
broke (a restarted server) is dropped with the idle ones, and the call runs once more on a new one.

Every change is committed before its method returns, SQLite with ``synchronous=FULL``: an answer
that the page called saved survives the app being killed, and power loss as far as the database
promises. Secrets are kept as their sha256 only (the teacher's key, each student's token).
"""

from __future__ import annotations

import abc
import contextlib
import logging
import os
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import astuple, dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from live.codes import digest, new_code, new_secret, normal_code, same_secret

_LOG = logging.getLogger(__name__)
_T = TypeVar("_T")

DB_ENV = "ATLAS_CLASS_DB"  # a postgresql:// (or postgres://) URL; unset: SQLite
DIR_ENV = "ATLAS_CLASS_DIR"  # SQLite's folder
HOURS_ENV = "ATLAS_CLASS_HOURS"  # a class expires this many hours after it starts
MAX_STUDENTS_ENV = "ATLAS_CLASS_MAX_STUDENTS"
DEFAULT_DIR = Path(__file__).resolve().parents[1] / "runs" / "classes"
SQLITE_FILE = "classes.sqlite3"
DEFAULT_HOURS, HOURS_RANGE = 12, (1, 168)
DEFAULT_MAX_STUDENTS, MAX_STUDENTS_RANGE = 200, (1, 2000)
NICKNAME_CHARS = 24
CHOICES = 64  # an answer is a choice 0..63
POOL_SIZE = 8  # connections a process has open at most
POOL_WAIT_S = 10.0  # how long a call waits for a free connection before it fails
BUSY_TIMEOUT_MS = 5000  # SQLite: how long a write waits for another process's write
CODE_TRIES = 20  # new codes tried when a code is taken
_MIGRATION_LOCK = 0x61746C61735F6C76  # PostgreSQL advisory lock key ("atlas_lv")

MIGRATIONS: list[str] = [
    # 1: classes, their students (numbered 1, 2, 3 ... in join order) and answers (one per
    # student and step: the last one counts). Deleting a class deletes its students and answers.
    """
    CREATE TABLE classes (
        code TEXT PRIMARY KEY,
        lesson TEXT NOT NULL,
        step INTEGER NOT NULL,
        revealed BOOLEAN NOT NULL,
        ended BOOLEAN NOT NULL,
        revision INTEGER NOT NULL,
        teacher TEXT NOT NULL, -- sha256 of the teacher key
        created DOUBLE PRECISION NOT NULL,
        expires DOUBLE PRECISION NOT NULL,
        joined INTEGER NOT NULL -- how many students joined: the last number given
    );
    CREATE INDEX classes_by_expiry ON classes (expires);
    CREATE TABLE students (
        code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        token TEXT NOT NULL UNIQUE, -- sha256 of the student's token
        nickname TEXT NOT NULL,
        PRIMARY KEY (code, number) -- also the index of a class's students
    );
    CREATE TABLE answers (
        code TEXT NOT NULL,
        step INTEGER NOT NULL,
        student INTEGER NOT NULL,
        choice INTEGER NOT NULL CHECK (choice BETWEEN 0 AND 63),
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (code, step, student), -- also the index of answers by (code, step)
        FOREIGN KEY (code, student) REFERENCES students (code, number) ON DELETE CASCADE
    )
    """,
]

_now = time.time  # the clock (tests move it)
_COLUMNS = "code, lesson, step, revealed, ended, revision, created, expires, joined"
_OPEN_CLASS = f"SELECT {_COLUMNS} FROM classes WHERE code = ? AND expires > ?"


@dataclass(frozen=True)
class ClassInfo:
    """What anyone with the class's code may know."""

    code: str
    lesson: str
    step: int
    revealed: bool
    ended: bool
    revision: int  # +1 on every teacher change (step, reveal, end): followers poll this
    created: float  # unix seconds
    expires: float
    students: int  # how many joined


@dataclass(frozen=True)
class Student:
    id: str  # the student's secret token (only the student's own browser has it)
    number: int  # anonymous number in the class, 1, 2, 3 ... in join order
    nickname: str


@dataclass(frozen=True)
class Tally:
    step: int
    joined: int
    answered: int
    counts: dict[int, int]  # choice -> how many students chose it (their last answer)


@dataclass(frozen=True)
class AnswerRow:
    """One answer, for the teacher's CSV."""

    step: int
    student: int
    nickname: str
    choice: int
    at: float


class NoSuchClass(LookupError):
    """No open class has this code (never made, deleted, expired; for joining: also ended)."""


class NotTeacher(PermissionError):
    """The teacher key does not match the class."""


class ClassFull(RuntimeError):
    """The class has ATLAS_CLASS_MAX_STUDENTS students already."""


class Closed(RuntimeError):
    """Not open for this: an answer to a step that is not the current one, after the reveal or
    after the class ended; moving or revealing an ended class."""


class _Backend(abc.ABC):
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


class _SQLite(_Backend):
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


class _Postgres(_Backend):
    row_locks = True

    def __init__(self, url: str) -> None:
        import psycopg  # only where PostgreSQL is used

        self._psycopg = psycopg
        self.url = url
        self.integrity_errors = (psycopg.IntegrityError,)

    def connect(self) -> Any:
        return self._psycopg.connect(self.url, autocommit=False, connect_timeout=10)

    def begin(self, conn: Any, write: bool) -> None:
        """Nothing: psycopg begins a transaction with the first statement."""

    def broken(self, conn: Any) -> bool:
        return bool(conn.broken or conn.closed)

    def lock_migrations(self, conn: Any) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))

    def sql(self, statement: str) -> str:
        return statement.replace("?", "%s")


class _Pool:
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


class _Tx:
    """The statements of one transaction."""

    def __init__(self, conn: Any, backend: _Backend) -> None:
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


def _migrate(tx: _Tx) -> None:
    """Apply the migrations this database lacks, under the migration lock."""
    tx.lock_migrations()
    tx.run(
        "CREATE TABLE IF NOT EXISTS schema_version"
        " (version INTEGER PRIMARY KEY, applied DOUBLE PRECISION NOT NULL)"
    )
    current = (tx.one("SELECT MAX(version) FROM schema_version") or (None,))[0] or 0
    if current > len(MIGRATIONS):
        raise RuntimeError(
            f"the class database has schema version {current}, newer than this app's"
            f" {len(MIGRATIONS)}: update the app"
        )
    for version in range(current + 1, len(MIGRATIONS) + 1):
        for statement in MIGRATIONS[version - 1].split(";"):
            if statement.strip():
                tx.run(statement)
        tx.run("INSERT INTO schema_version (version, applied) VALUES (?, ?)", (version, _now()))
        _LOG.info("class database migrated to schema version %d", version)


def _info(row: tuple) -> ClassInfo:
    code, lesson, step, revealed, ended, revision, created, expires, joined = row
    flags = bool(revealed), bool(ended)  # SQLite keeps booleans as 0 and 1
    return ClassInfo(code, lesson, step, *flags, revision, created, expires, joined)


def _code(raw: str) -> str:
    """The code as stored, or "" (no class has it) when ``raw`` cannot be a code."""
    return normal_code(raw) or ""


def _clean_nickname(raw: str) -> str:
    """Plain text of at most NICKNAME_CHARS characters: spaces of any kind as one space, other
    control and format characters (and unpaired surrogates) removed, stripped."""
    kept = (
        " " if char.isspace() else char
        for char in raw[: NICKNAME_CHARS * 8]
        if char.isspace() or not unicodedata.category(char).startswith("C")
    )
    return " ".join("".join(kept).split())[:NICKNAME_CHARS].strip()


def _check_choice(choice: int) -> None:
    if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < CHOICES:
        raise ValueError(f"a choice is a whole number from 0 to {CHOICES - 1}, not {choice!r}")


def _check_step(step: int) -> None:
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError(f"a step is a whole number from 0, not {step!r}")


class Store:
    """The live classes of every app process (see the module's docstring); safe to share between
    threads. Made by ``open_store``."""

    def __init__(self, backend: _Backend, hours: int, max_students: int) -> None:
        self._backend = backend
        self._pool = _Pool(backend.connect, POOL_SIZE)
        self._hours = hours
        self._max_students = max_students
        try:
            self._run(_migrate, write=True)
        except BaseException:
            self._pool.close()
            raise

    # --- transactions --------------------------------------------------------------------------

    def _run(self, work: Callable[[_Tx], _T], *, write: bool) -> _T:
        """``work`` in one transaction, committed when this returns; run once more on a new
        connection when the connection turned out broken (a restarted or cut-off server)."""
        retry = True
        while True:
            conn = self._pool.take(fresh=not retry)
            broken = False
            try:
                return self._transact(conn, work, write)
            except Exception:
                broken = self._backend.broken(conn)
                if not (broken and retry):
                    raise
                _LOG.warning("a class database connection broke: running the call again")
                retry = False
            finally:
                self._pool.give(conn, broken)

    def _transact(self, conn: Any, work: Callable[[_Tx], _T], write: bool) -> _T:
        self._backend.begin(conn, write)
        try:
            result = work(_Tx(conn, self._backend))
            self._backend.commit(conn)
        except BaseException:
            self._backend.rollback(conn)
            raise
        return result

    # --- the teacher ---------------------------------------------------------------------------

    def create_class(self, lesson: str, step: int = 1) -> tuple[ClassInfo, str]:
        """A new class on ``lesson`` at ``step``, and its teacher key (a secret for the teacher's
        link: only its digest is stored)."""
        _check_step(step)
        if not lesson:
            raise ValueError("a class needs a lesson")
        key = new_secret()
        for _ in range(CODE_TRIES):
            make = partial(self._insert_class, code=new_code(), lesson=lesson, step=step, key=key)
            try:
                return self._run(make, write=True), key
            except self._backend.integrity_errors:  # the code is taken: another one
                continue
        raise RuntimeError(f"no free class code in {CODE_TRIES} tries")

    def _insert_class(self, tx: _Tx, code: str, lesson: str, step: int, key: str) -> ClassInfo:
        now = _now()
        tx.run("DELETE FROM classes WHERE expires <= ?", (now,))  # with their rows; frees codes
        info = ClassInfo(code, lesson, step, False, False, 0, now, now + self._hours * 3600.0, 0)
        tx.run(
            f"INSERT INTO classes ({_COLUMNS}, teacher) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*astuple(info), digest(key)),  # the fields in _COLUMNS' order
        )
        return info

    def is_teacher(self, code: str, key: str) -> bool:
        row = self._run(
            lambda tx: tx.one(
                "SELECT teacher FROM classes WHERE code = ? AND expires > ?", (_code(code), _now())
            ),
            write=False,
        )
        return row is not None and same_secret(key, row[0])

    def _lead(self, tx: _Tx, code: str, key: str, lock: str = "NO KEY UPDATE") -> ClassInfo:
        """The class, for its teacher only (NoSuchClass, NotTeacher)."""
        row = tx.one(
            f"SELECT teacher, {_COLUMNS} FROM classes WHERE code = ? AND expires > ?",
            (_code(code), _now()),
            lock=lock,
        )
        if row is None:
            raise NoSuchClass(code)
        if not same_secret(key, row[0]):
            raise NotTeacher(code)
        return _info(row[1:])

    def _change(
        self, code: str, key: str, change: str, params: tuple = (), ended_too: bool = False
    ) -> ClassInfo:
        """Apply the teacher's ``change`` (SET clauses), revision + 1; Closed on an ended class
        unless ``ended_too``."""

        def work(tx: _Tx) -> ClassInfo:
            info = self._lead(tx, code, key)
            if info.ended and not ended_too:
                raise Closed(f"the class {info.code} has ended")
            row = tx.one(
                f"UPDATE classes SET {change}, revision = revision + 1 WHERE code = ?"
                f" RETURNING {_COLUMNS}",
                (*params, info.code),
            )
            assert row is not None  # locked (PostgreSQL) or in a write transaction (SQLite)
            return _info(row)

        return self._run(work, write=True)

    def set_step(self, code: str, key: str, step: int) -> ClassInfo:
        """Move the class to ``step``, not revealed (Closed once the class ended)."""
        _check_step(step)
        return self._change(code, key, "step = ?, revealed = FALSE", (step,))

    def reveal(self, code: str, key: str) -> ClassInfo:
        """Reveal the current step's answers: no more answers to it."""
        return self._change(code, key, "revealed = TRUE")

    def end_class(self, code: str, key: str) -> ClassInfo:
        """End the class: nobody joins or answers any more; the answers stay for the CSV."""
        return self._change(code, key, "ended = TRUE", ended_too=True)

    def delete_class(self, code: str, key: str) -> None:
        """Remove the class with its students and answers."""

        def work(tx: _Tx) -> None:
            info = self._lead(tx, code, key, lock="UPDATE")
            tx.run("DELETE FROM classes WHERE code = ?", (info.code,))

        self._run(work, write=True)

    def answers(self, code: str, key: str) -> list[AnswerRow]:
        """Every answer (the last per student and step), by step and student: the teacher's CSV."""

        def work(tx: _Tx) -> list[AnswerRow]:
            info = self._lead(tx, code, key, lock="")
            return tx.all(
                "SELECT a.step, a.student, s.nickname, a.choice, a.at FROM answers a"
                " JOIN students s ON s.code = a.code AND s.number = a.student"
                " WHERE a.code = ? ORDER BY a.step, a.student",
                (info.code,),
            )

        return [AnswerRow(*row) for row in self._run(work, write=False)]

    # --- anyone with the code ------------------------------------------------------------------

    def get_class(self, code: str) -> ClassInfo | None:
        """The class, or None when there is none with this code or it expired."""
        row = self._run(lambda tx: tx.one(_OPEN_CLASS, (_code(code), _now())), write=False)
        return None if row is None else _info(row)

    def tally(self, code: str, step: int) -> Tally:
        """How the class answered ``step`` so far (NoSuchClass)."""

        def work(tx: _Tx) -> tuple[tuple | None, list[tuple]]:
            row = tx.one(_OPEN_CLASS, (_code(code), _now()))
            counts = tx.all(
                "SELECT choice, COUNT(*) FROM answers WHERE code = ? AND step = ?"
                " GROUP BY choice ORDER BY choice",
                (_code(code), step),
            )
            return row, counts

        row, counts = self._run(work, write=False)
        if row is None:
            raise NoSuchClass(code)
        by_choice = {int(choice): int(count) for choice, count in counts}
        return Tally(step, _info(row).students, sum(by_choice.values()), by_choice)

    def purge_expired(self, now: float | None = None) -> int:
        """Delete the classes expired at ``now`` (default: now), with their rows; how many."""
        when = _now() if now is None else now
        return self._run(
            lambda tx: tx.run("DELETE FROM classes WHERE expires <= ?", (when,)), write=True
        )

    # --- a student -----------------------------------------------------------------------------

    def join(self, code: str, nickname: str = "") -> Student:
        """A new student of an open class, numbered in join order (NoSuchClass, ClassFull)."""
        name = _clean_nickname(nickname)
        token = new_secret()

        def work(tx: _Tx) -> Student:
            row = tx.one(
                "UPDATE classes SET joined = joined + 1"
                " WHERE code = ? AND expires > ? AND NOT ended AND joined < ? RETURNING joined",
                (_code(code), _now(), self._max_students),
            )
            if row is None:
                info = tx.one(_OPEN_CLASS, (_code(code), _now()))
                if info is None or _info(info).ended:
                    raise NoSuchClass(code)
                raise ClassFull(f"the class {_code(code)} has {self._max_students} students")
            tx.run(
                "INSERT INTO students (code, number, token, nickname) VALUES (?, ?, ?, ?)",
                (_code(code), row[0], digest(token), name),
            )
            return Student(token, int(row[0]), name)

        return self._run(work, write=True)

    def student(self, code: str, student_id: str) -> Student | None:
        """The student with this token in this class (a reload, another replica); None if none."""
        row = self._run(
            lambda tx: tx.one(
                "SELECT s.number, s.nickname FROM students s JOIN classes c ON c.code = s.code"
                " WHERE s.code = ? AND s.token = ? AND c.expires > ?",
                (_code(code), digest(student_id), _now()),
            ),
            write=False,
        )
        return None if row is None else Student(student_id, int(row[0]), row[1])

    def answer(self, code: str, student_id: str, step: int, choice: int) -> None:
        """Record the student's ``choice`` for ``step`` (replacing an earlier one), committed when
        this returns. ValueError, NoSuchClass, LookupError (no such student), Closed."""
        _check_choice(choice)

        def work(tx: _Tx) -> None:
            row = tx.one(_OPEN_CLASS, (_code(code), _now()), lock="SHARE")  # waits for a reveal
            if row is None:
                raise NoSuchClass(code)
            info = _info(row)
            number = tx.one(
                "SELECT number FROM students WHERE code = ? AND token = ?",
                (info.code, digest(student_id)),
            )
            if number is None:
                raise LookupError(f"no such student in the class {info.code}")
            if info.ended or info.revealed or info.step != step:
                raise Closed(f"the class {info.code} takes no answer to step {step} now")
            tx.run(
                "INSERT INTO answers (code, step, student, choice, at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (code, step, student)"
                " DO UPDATE SET choice = excluded.choice, at = excluded.at",
                (info.code, step, number[0], choice, _now()),
            )

        self._run(work, write=True)

    def my_answer(self, code: str, student_id: str, step: int) -> int | None:
        """The student's answer to ``step``, or None."""
        row = self._run(
            lambda tx: tx.one(
                "SELECT a.choice FROM answers a"
                " JOIN students s ON s.code = a.code AND s.number = a.student"
                " JOIN classes c ON c.code = a.code"
                " WHERE a.code = ? AND a.step = ? AND s.token = ? AND c.expires > ?",
                (_code(code), step, digest(student_id), _now()),
            ),
            write=False,
        )
        return None if row is None else int(row[0])

    def close(self) -> None:
        """Close the idle connections; the store takes no more calls."""
        self._pool.close()


def _env_int(name: str, default: int, accepted: tuple[int, int]) -> int:
    """A whole number from the environment in ``accepted``; anything else: ``default``, logged."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    low, high = accepted
    if raw.isascii() and raw.isdigit() and len(raw) <= 6 and low <= int(raw) <= high:
        return int(raw)
    _LOG.warning(
        "%s=%r is not a whole number from %d to %d: using %d", name, raw[:20], low, high, default
    )
    return default


def _backend(url: str) -> _Backend:
    """The database ``url`` names: postgresql:// or postgres://, sqlite:///PATH (SQLAlchemy's
    form: sqlite:////tmp/x is /tmp/x); "": the SQLite file under ATLAS_CLASS_DIR."""
    scheme = url.partition(":")[0].lower()
    if scheme in ("postgresql", "postgres"):
        return _Postgres(url)
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
    elif not url:
        path = Path(os.environ.get(DIR_ENV, "").strip() or DEFAULT_DIR) / SQLITE_FILE
    else:  # the URL is not repeated: it may hold a password
        raise ValueError(f"{DB_ENV}: not a postgresql://, postgres:// or sqlite:/// URL")
    path.parent.mkdir(parents=True, exist_ok=True)
    return _SQLite(path)


def open_store(url: str | None = None) -> Store:
    """The class store: ``url`` if given, else ATLAS_CLASS_DB (PostgreSQL) or SQLite under
    ATLAS_CLASS_DIR; ATLAS_CLASS_HOURS and ATLAS_CLASS_MAX_STUDENTS from the environment."""
    backend = _backend(os.environ.get(DB_ENV, "").strip() if url is None else url)
    return Store(
        backend,
        hours=_env_int(HOURS_ENV, DEFAULT_HOURS, HOURS_RANGE),
        max_students=_env_int(MAX_STUDENTS_ENV, DEFAULT_MAX_STUDENTS, MAX_STUDENTS_RANGE),
    )
