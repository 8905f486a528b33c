"""The live class's state store: classes, their students and their answers, in a database that
every app process shares, behind typed methods (the pages never see SQL).

SQLite in WAL mode, one file under ``ATLAS_CLASS_DIR``, by default; PostgreSQL (psycopg 3) when
``ATLAS_CLASS_DB`` names one (:mod:`live.backends` says what differs). The schema and its
migrations are :mod:`live.schema`; connections, their pool and the transactions
:mod:`live.connections`; what the methods return and raise :mod:`live.records`; what people type,
cleaned, :mod:`live.inputs`.

Every change is committed before its method returns: an answer that the page called saved
survives the app being killed. Secrets are kept as their sha256 only (the teacher's key, each
student's token).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import astuple
from functools import partial
from pathlib import Path

from live.backends import Backend, PostgresBackend, SQLiteBackend
from live.codes import digest, new_code, new_secret, same_secret
from live.connections import Database, Tx
from live.inputs import check_choice, check_step, clean_nickname, stored_code
from live.notify import publish
from live.records import (
    STAGES,
    AnswerRow,
    ClassFull,
    ClassInfo,
    Closed,
    NoSuchClass,
    NotTeacher,
    Student,
    Tally,
)
from live.schema import migrate

_LOG = logging.getLogger(__name__)

DB_ENV = "ATLAS_CLASS_DB"  # a postgresql:// (or postgres://) URL; unset: SQLite
DIR_ENV = "ATLAS_CLASS_DIR"  # SQLite's folder
HOURS_ENV = "ATLAS_CLASS_HOURS"  # a class expires this many hours after it starts
MAX_STUDENTS_ENV = "ATLAS_CLASS_MAX_STUDENTS"
DEFAULT_DIR = Path(__file__).resolve().parents[1] / "runs" / "classes"
SQLITE_FILE = "classes.sqlite3"
DEFAULT_HOURS, HOURS_RANGE = 12, (1, 168)
DEFAULT_MAX_STUDENTS, MAX_STUDENTS_RANGE = 200, (1, 2000)
CODE_TRIES = 20  # new codes tried when a code is taken
MAX_LESSON_BYTES = 64_000  # a teacher's own lesson stored with a class (as the upload's limit)
ROUNDS = (1, 2)  # a question's votes: alone, then again after the discussion

_now = time.time  # the clock (tests move it)
_COLUMNS = "code, lesson, step, revealed, ended, revision, created, expires, joined, round, stage"
_OPEN_CLASS = f"SELECT {_COLUMNS} FROM classes WHERE code = ? AND expires > ?"


def _info(row: tuple) -> ClassInfo:
    code, lesson, step, revealed, ended, revision, created, expires, joined, round_, stage = row
    flags = bool(revealed), bool(ended)  # SQLite keeps booleans as 0 and 1
    return ClassInfo(
        code, lesson, step, *flags, revision, created, expires, joined, int(round_), stage
    )


class Store:
    """The live classes of every app process (see the module's docstring); safe to share between
    threads. Made by ``open_store``."""

    def __init__(self, backend: Backend, hours: int, max_students: int) -> None:
        self._db = Database(backend)
        self._hours = hours
        self._max_students = max_students
        try:
            self._db.run(lambda tx: migrate(tx, _now), write=True)
        except BaseException:
            self._db.close()
            raise

    # --- the teacher ---------------------------------------------------------------------------

    def create_class(
        self, lesson: str, step: int = 1, text: str | None = None
    ) -> tuple[ClassInfo, str]:
        """A new class on ``lesson`` at ``step``, and its teacher key (a secret for the teacher's
        link: only its digest is stored). ``text``: a teacher's own lesson file (the pages
        checked it), kept with the class for the students' pages and deleted with it; None for
        a lesson that ships with the atlas."""
        check_step(step)
        if not lesson:
            raise ValueError("a class needs a lesson")
        if text is not None and (not text or len(text.encode()) > MAX_LESSON_BYTES):
            raise ValueError(f"a class's own lesson has 1 to {MAX_LESSON_BYTES} bytes")
        key = new_secret()
        for _ in range(CODE_TRIES):
            make = partial(
                self._insert_class, code=new_code(), lesson=lesson, step=step, key=key, text=text
            )
            try:
                return self._db.run(make, write=True), key
            except self._db.backend.integrity_errors:  # the code is taken: another one
                continue
        raise RuntimeError(f"no free class code in {CODE_TRIES} tries")

    def _insert_class(
        self, tx: Tx, code: str, lesson: str, step: int, key: str, text: str | None
    ) -> ClassInfo:
        now = _now()
        mine = tx.one(f"{_OPEN_CLASS} AND teacher = ?", (code, now, digest(key)))
        if mine is not None:  # a retry after a commit whose answer was lost: that class
            return _info(mine)
        tx.run("DELETE FROM classes WHERE expires <= ?", (now,))  # with their rows; frees codes
        info = ClassInfo(code, lesson, step, False, False, 0, now, now + self._hours * 3600.0, 0)
        tx.run(
            f"INSERT INTO classes ({_COLUMNS}, teacher, lesson_text)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*astuple(info), digest(key), text),  # the fields in _COLUMNS' order
        )
        return info

    def is_teacher(self, code: str, key: str) -> bool:
        row = self._db.run(
            lambda tx: tx.one(
                "SELECT teacher FROM classes WHERE code = ? AND expires > ?",
                (stored_code(code), _now()),
            ),
            write=False,
        )
        return row is not None and same_secret(key, row[0])

    def _lead(self, tx: Tx, code: str, key: str, lock: str = "NO KEY UPDATE") -> ClassInfo:
        """The class, for its teacher only (NoSuchClass, NotTeacher)."""
        row = tx.one(
            f"SELECT teacher, {_COLUMNS} FROM classes WHERE code = ? AND expires > ?",
            (stored_code(code), _now()),
            lock=lock,
        )
        if row is None:
            raise NoSuchClass(code)
        if not same_secret(key, row[0]):
            raise NotTeacher(code)
        return _info(row[1:])

    def _change(
        self,
        code: str,
        key: str,
        change: str,
        params: tuple = (),
        ended_too: bool = False,
        unrevealed: bool = False,
    ) -> ClassInfo:
        """Apply the teacher's ``change`` (SET clauses), revision + 1; Closed on an ended class
        unless ``ended_too``, and on a revealed step when ``unrevealed``."""

        def work(tx: Tx) -> ClassInfo:
            info = self._lead(tx, code, key)
            if info.ended and not ended_too:
                raise Closed(f"the class {info.code} has ended")
            if info.revealed and unrevealed:
                raise Closed(f"the class {info.code} has revealed step {info.step}")
            row = tx.one(
                f"UPDATE classes SET {change}, revision = revision + 1 WHERE code = ?"
                f" RETURNING {_COLUMNS}",
                (*params, info.code),
            )
            assert row is not None  # locked (PostgreSQL) or in a write transaction (SQLite)
            changed = _info(row)
            publish(tx, self._db.backend, changed.code, changed.revision)  # the pages learn it
            return changed

        return self._db.run(work, write=True)

    def set_step(self, code: str, key: str, step: int) -> ClassInfo:
        """Move the class to ``step``, not revealed, its first vote open (Closed once the class
        ended)."""
        check_step(step)
        return self._change(
            code, key, "step = ?, revealed = FALSE, round = 1, stage = 'vote'", (step,)
        )

    def reveal(self, code: str, key: str) -> ClassInfo:
        """Reveal the current step's answers: no more answers to it."""
        return self._change(code, key, "revealed = TRUE")

    def set_stage(self, code: str, key: str, stage: str) -> ClassInfo:
        """The current round's stage (``STAGES``): 'vote' opens it again, 'closed' closes the
        voting, 'split' shows the class its split, 'discuss' starts the discussion round.
        Closed after the reveal or the end; ValueError for another stage."""
        if stage not in STAGES:
            raise ValueError(f"a stage is one of {', '.join(STAGES)}")
        return self._change(code, key, "stage = ?", (stage,), unrevealed=True)

    def second_vote(self, code: str, key: str) -> ClassInfo:
        """Open the current question's second vote (round 2); the first stays as it was.
        Closed after the reveal or the end."""
        return self._change(code, key, "round = 2, stage = 'vote'", unrevealed=True)

    def end_class(self, code: str, key: str) -> ClassInfo:
        """End the class: nobody joins or answers any more; the answers stay for the CSV."""
        return self._change(code, key, "ended = TRUE", ended_too=True)

    def delete_class(self, code: str, key: str) -> None:
        """Remove the class with its students and answers."""

        def work(tx: Tx) -> None:
            info = self._lead(tx, code, key, lock="UPDATE")
            tx.run("DELETE FROM classes WHERE code = ?", (info.code,))
            publish(tx, self._db.backend, info.code, -1)

        self._db.run(work, write=True)

    def answers(self, code: str, key: str) -> list[AnswerRow]:
        """Every answer (the last per student, step and round), by step, student and round: the
        teacher's CSV."""

        def work(tx: Tx) -> list[AnswerRow]:
            info = self._lead(tx, code, key, lock="")
            return tx.all(
                "SELECT a.step, a.student, s.nickname, a.choice, a.at, a.round FROM answers a"
                " JOIN students s ON s.code = a.code AND s.number = a.student"
                " WHERE a.code = ? ORDER BY a.step, a.student, a.round",
                (info.code,),
            )

        return [AnswerRow(*row) for row in self._db.run(work, write=False)]

    # --- anyone with the code ------------------------------------------------------------------

    def get_class(self, code: str) -> ClassInfo | None:
        """The class, or None when there is none with this code or it expired."""
        row = self._db.run(lambda tx: tx.one(_OPEN_CLASS, (stored_code(code), _now())), write=False)
        return None if row is None else _info(row)

    def tally(self, code: str, step: int, round: int = 1) -> Tally:
        """How the class answered ``step`` in vote ``round`` so far (NoSuchClass)."""

        def work(tx: Tx) -> tuple[tuple | None, list[tuple]]:
            row = tx.one(_OPEN_CLASS, (stored_code(code), _now()))
            counts = tx.all(
                "SELECT choice, COUNT(*) FROM answers WHERE code = ? AND step = ? AND round = ?"
                " GROUP BY choice ORDER BY choice",
                (stored_code(code), step, round),
            )
            return row, counts

        row, counts = self._db.run(work, write=False)
        if row is None:
            raise NoSuchClass(code)
        by_choice = {int(choice): int(count) for choice, count in counts}
        return Tally(step, _info(row).students, sum(by_choice.values()), by_choice, round)

    def both_votes(self, code: str, step: int) -> list[tuple[int, int]]:
        """(first, second) choice of each student who voted in both rounds of ``step``, in
        student order: what changed between the votes (no names; NoSuchClass)."""

        def work(tx: Tx) -> tuple[tuple | None, list[tuple]]:
            row = tx.one(_OPEN_CLASS, (stored_code(code), _now()))
            pairs = tx.all(
                "SELECT a.choice, b.choice FROM answers a JOIN answers b"
                " ON b.code = a.code AND b.step = a.step AND b.student = a.student"
                " WHERE a.code = ? AND a.step = ? AND a.round = 1 AND b.round = 2"
                " ORDER BY a.student",
                (stored_code(code), step),
            )
            return row, pairs

        row, pairs = self._db.run(work, write=False)
        if row is None:
            raise NoSuchClass(code)
        return [(int(first), int(second)) for first, second in pairs]

    def lesson_text(self, code: str) -> str | None:
        """The teacher's own lesson the class follows (the file's text), or None: a shipped
        lesson, or no open class with this code."""
        row = self._db.run(
            lambda tx: tx.one(
                "SELECT lesson_text FROM classes WHERE code = ? AND expires > ?",
                (stored_code(code), _now()),
            ),
            write=False,
        )
        return None if row is None else row[0]

    def purge_expired(self, now: float | None = None) -> int:
        """Delete the classes expired at ``now`` (default: now), with their rows; how many."""
        when = _now() if now is None else now
        return self._db.run(
            lambda tx: tx.run("DELETE FROM classes WHERE expires <= ?", (when,)), write=True
        )

    # --- a student -----------------------------------------------------------------------------

    def join(self, code: str, nickname: str = "") -> Student:
        """A new student of an open class, numbered in join order (NoSuchClass, ClassFull)."""
        name = clean_nickname(nickname)
        token = new_secret()

        def work(tx: Tx) -> Student:
            again = tx.one(  # a retry after a commit whose answer was lost: that student
                "SELECT number, nickname FROM students WHERE code = ? AND token = ?",
                (stored_code(code), digest(token)),
            )
            if again is not None:
                return Student(token, int(again[0]), again[1])
            row = tx.one(
                "UPDATE classes SET joined = joined + 1"
                " WHERE code = ? AND expires > ? AND NOT ended AND joined < ? RETURNING joined",
                (stored_code(code), _now(), self._max_students),
            )
            if row is None:
                info = tx.one(_OPEN_CLASS, (stored_code(code), _now()))
                if info is None or _info(info).ended:
                    raise NoSuchClass(code)
                raise ClassFull(f"the class {stored_code(code)} has {self._max_students} students")
            tx.run(
                "INSERT INTO students (code, number, token, nickname) VALUES (?, ?, ?, ?)",
                (stored_code(code), row[0], digest(token), name),
            )
            return Student(token, int(row[0]), name)

        return self._db.run(work, write=True)

    def student(self, code: str, student_id: str) -> Student | None:
        """The student with this token in this class (a reload, another replica); None if none."""
        row = self._db.run(
            lambda tx: tx.one(
                "SELECT s.number, s.nickname FROM students s JOIN classes c ON c.code = s.code"
                " WHERE s.code = ? AND s.token = ? AND c.expires > ?",
                (stored_code(code), digest(student_id), _now()),
            ),
            write=False,
        )
        return None if row is None else Student(student_id, int(row[0]), row[1])

    def answer(
        self, code: str, student_id: str, step: int, choice: int, round: int | None = None
    ) -> None:
        """Record the student's ``choice`` for ``step`` in the class's current vote (replacing
        their earlier answer to it: one per student, step and round, however often it is sent),
        committed when this returns. ``round``: the vote the student's page showed (Closed when
        the class is at another); None: the current one. ValueError, NoSuchClass, LookupError
        (no such student), Closed (voting closed, revealed, another step or round, ended)."""
        check_choice(choice)
        if round is not None and round not in ROUNDS:
            raise ValueError(f"a round is one of {ROUNDS}")

        def work(tx: Tx) -> None:
            # SHARE: waits for a reveal in progress
            row = tx.one(_OPEN_CLASS, (stored_code(code), _now()), lock="SHARE")
            if row is None:
                raise NoSuchClass(code)
            info = _info(row)
            number = tx.one(
                "SELECT number FROM students WHERE code = ? AND token = ?",
                (info.code, digest(student_id)),
            )
            if number is None:
                raise LookupError(f"no such student in the class {info.code}")
            shut = info.ended or info.revealed or info.stage != "vote"
            if shut or info.step != step or round not in (None, info.round):
                raise Closed(f"the class {info.code} takes no answer to step {step} now")
            tx.run(
                "INSERT INTO answers (code, step, round, student, choice, at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (code, step, round, student)"
                " DO UPDATE SET choice = excluded.choice, at = excluded.at",
                (info.code, step, info.round, number[0], choice, _now()),
            )

        self._db.run(work, write=True)

    def my_answer(self, code: str, student_id: str, step: int, round: int = 1) -> int | None:
        """The student's answer to ``step`` in vote ``round``, or None."""
        row = self._db.run(
            lambda tx: tx.one(
                "SELECT a.choice FROM answers a"
                " JOIN students s ON s.code = a.code AND s.number = a.student"
                " JOIN classes c ON c.code = a.code"
                " WHERE a.code = ? AND a.step = ? AND a.round = ? AND s.token = ?"
                " AND c.expires > ?",
                (stored_code(code), step, round, digest(student_id), _now()),
            ),
            write=False,
        )
        return None if row is None else int(row[0])

    def close(self) -> None:
        """Close the idle connections; the store takes no more calls."""
        self._db.close()


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


def _backend(url: str) -> Backend:
    """The database ``url`` names: postgresql:// or postgres://, sqlite:///PATH (SQLAlchemy's
    form: sqlite:////tmp/x is /tmp/x); "": the SQLite file under ATLAS_CLASS_DIR."""
    scheme = url.partition(":")[0].lower()
    if scheme in ("postgresql", "postgres"):
        return PostgresBackend(url)
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
    elif not url:
        path = Path(os.environ.get(DIR_ENV, "").strip() or DEFAULT_DIR) / SQLITE_FILE
    else:  # the URL is not repeated: it may hold a password
        raise ValueError(f"{DB_ENV}: not a postgresql://, postgres:// or sqlite:/// URL")
    path.parent.mkdir(parents=True, exist_ok=True)
    return SQLiteBackend(path)


def open_store(url: str | None = None) -> Store:
    """The class store: ``url`` if given, else ATLAS_CLASS_DB (PostgreSQL) or SQLite under
    ATLAS_CLASS_DIR; ATLAS_CLASS_HOURS and ATLAS_CLASS_MAX_STUDENTS from the environment."""
    backend = _backend(os.environ.get(DB_ENV, "").strip() if url is None else url)
    return Store(
        backend,
        hours=_env_int(HOURS_ENV, DEFAULT_HOURS, HOURS_RANGE),
        max_students=_env_int(MAX_STUDENTS_ENV, DEFAULT_MAX_STUDENTS, MAX_STUDENTS_RANGE),
    )
