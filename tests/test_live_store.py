"""The live class's store (live/store.py, with its schema, connections and backends) and its codes
(live/codes.py), on both databases: SQLite in a temporary folder and PostgreSQL in a private
cluster (tests/postgres.py), a new database for each test."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

import live.schema as schema_module
import live.store as store_module
from live.attempts import FREE_TRIES, Attempts
from live.codes import (
    ALPHABET,
    CODE_LENGTH,
    digest,
    new_code,
    new_secret,
    normal_code,
    same_secret,
)
from live.inputs import NICKNAME_CHARS
from live.records import ClassFull, Closed, NoSuchClass, NotTeacher, Student
from live.schema import MIGRATIONS
from live.store import Store, open_store
from tests.postgres import new_database, private_cluster

ROOT = Path(__file__).resolve().parents[1]
LESSON = "01-bottleneck"
ENV = (
    store_module.DB_ENV,
    store_module.DIR_ENV,
    store_module.HOURS_ENV,
    store_module.MAX_STUDENTS_ENV,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[str]:
    with private_cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/classes.sqlite3"
    return new_database(request.getfixturevalue("pg_cluster"))


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    opened = open_store(db_url)
    yield opened
    opened.close()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch):
    """Set the store's clock: ``clock(t)``."""

    def set_to(when: float) -> None:
        monkeypatch.setattr(store_module, "_now", lambda: when)

    return set_to


def _count(store: Store, table: str) -> int:
    row = store._db.run(lambda tx: tx.one(f"SELECT COUNT(*) FROM {table}"), write=False)
    assert row is not None
    return int(row[0])


def _other_code(code: str) -> str:
    return next(candidate for candidate in ("BCDFGH", "ZXWVTS") if candidate != code)


def _at_once(calls: list[Callable[[], object]]) -> list[BaseException]:
    """Run ``calls`` in threads that start together; what they raised."""
    failed: list[BaseException] = []
    start = threading.Barrier(len(calls))

    def run(call: Callable[[], object]) -> None:
        start.wait()
        try:
            call()
        except BaseException as exc:  # returned to the test
            failed.append(exc)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failed


def _closed(store: Store, code: str, student: Student, step: int) -> None:
    """An answer to ``step`` is refused (Closed) and changes nothing."""
    before = store.my_answer(code, student.id, step)
    with pytest.raises(Closed):
        store.answer(code, student.id, step, 9)
    assert store.my_answer(code, student.id, step) == before


# --- codes --------------------------------------------------------------------------------------


def test_alphabet_has_no_look_alikes_and_codes_use_all_of_it():
    assert len(set(ALPHABET)) == len(ALPHABET) == 19
    assert ALPHABET.isalpha() and ALPHABET.isupper() and ALPHABET.isascii()
    assert not set("AEILOUY") & set(ALPHABET)  # no vowels (no words), no look-alikes
    codes = [new_code() for _ in range(400)]
    assert all(len(code) == CODE_LENGTH and set(code) <= set(ALPHABET) for code in codes)
    assert set("".join(codes)) == set(ALPHABET)  # every letter drawn (misses one: ~1e-33)
    assert len(set(codes)) >= 399


def test_normal_code_accepts_what_people_type_and_rejects_the_rest():
    assert normal_code("bcd-fgh") == "BCDFGH"
    assert normal_code(" Bcd Fgh ") == "BCDFGH"
    assert normal_code("B-C-D F\tG-H") == "BCDFGH"
    wrong = ["", "BCDFG", "BCDFGHJ", "BCDFGI", "BCDFGL", "BCDFGA", "BCD0GH", "BÇDFGH", "BCD_FG"]
    wrong.append("B" * 99)
    assert [normal_code(code) for code in wrong] == [None] * len(wrong)


def test_code_odds_are_those_security_md_states():
    assert len(ALPHABET) ** CODE_LENGTH == 47_045_881
    assert "47,045,881" in (ROOT / "SECURITY.md").read_text(encoding="utf-8")


def test_wrong_codes_wait_longer_after_the_free_tries():
    tries = Attempts()
    for _ in range(FREE_TRIES - 1):
        tries = tries.failed(100.0)
        assert tries.wait(100.0) == 0
    waits = []
    for _ in range(8):
        tries = tries.failed(100.0)
        waits.append(tries.wait(100.0))
    assert waits[:3] == [10, 20, 40] and waits[-1] == 600  # doubled, then capped
    assert tries.wait(100.0 + 600) == 0 and tries.wait(100.0 + 599.5) == 1


def test_secrets_are_random_and_kept_as_digests():
    one, two = new_secret(), new_secret()
    assert one != two and len(one) == 32
    assert digest(one) != one and len(digest(one)) == 64
    assert same_secret(one, digest(one)) and not same_secret(two, digest(one))


# --- classes and their teacher ------------------------------------------------------------------


def test_create_and_get(store: Store):
    info, key = store.create_class(LESSON, step=2)
    assert (info.lesson, info.step, info.revealed, info.ended) == (LESSON, 2, False, False)
    assert (info.revision, info.students) == (0, 0)
    assert info.expires - info.created == pytest.approx(12 * 3600)
    assert normal_code(info.code) == info.code
    assert store.get_class(info.code) == info
    assert store.get_class(info.code.lower()) == info
    assert store.get_class(_other_code(info.code)) is None
    assert store.get_class("nonsense") is None
    assert key not in str(info) and store.is_teacher(info.code, key)
    assert not store.is_teacher(info.code, new_secret())


def test_a_taken_code_is_drawn_again(store: Store, monkeypatch: pytest.MonkeyPatch):
    first, _ = store.create_class(LESSON)
    drawn = iter([first.code, first.code, _other_code(first.code)])
    monkeypatch.setattr(store_module, "new_code", lambda: next(drawn))
    second, key = store.create_class(LESSON)
    assert second.code == _other_code(first.code)
    assert store.is_teacher(second.code, key) and not store.is_teacher(first.code, key)


def test_expired_classes_vanish_and_are_purged(store: Store, clock):
    old, old_key = store.create_class(LESSON)
    student = store.join(old.code)
    clock(old.created + 3600)
    new, _ = store.create_class(LESSON)
    clock(old.expires + 1)
    assert store.get_class(old.code) is None
    assert store.student(old.code, student.id) is None
    assert not store.is_teacher(old.code, old_key)
    with pytest.raises(NoSuchClass):
        store.join(old.code)
    with pytest.raises(NoSuchClass):
        store.set_step(old.code, old_key, 2)
    assert store.get_class(new.code) is not None
    assert store.purge_expired(now=old.expires + 1) == 1
    assert _count(store, "classes") == 1 and _count(store, "students") == 0
    clock(new.expires + 1)
    store.create_class(LESSON)  # a new class: the expired ones go
    assert _count(store, "classes") == 1
    assert store.purge_expired(now=new.expires + 13 * 3600) == 1
    assert _count(store, "classes") == 0


@pytest.mark.parametrize(("hours", "expected"), [("2", 2), ("168", 168), ("0", 12), ("1.5", 12)])
def test_hours_from_the_environment(
    db_url: str, monkeypatch: pytest.MonkeyPatch, caplog, hours: str, expected: int
):
    monkeypatch.setenv(store_module.HOURS_ENV, hours)
    with caplog.at_level(logging.WARNING, logger="live.store"):
        opened = open_store(db_url)
    info, _ = opened.create_class(LESSON)
    opened.close()
    assert info.expires - info.created == pytest.approx(expected * 3600)
    assert (store_module.HOURS_ENV in caplog.text) == (expected == 12)


def test_a_wrong_key_changes_nothing(store: Store):
    info, key = store.create_class(LESSON)
    wrong = new_secret()
    for change in (
        lambda code, k: store.set_step(code, k, 3),
        lambda code, k: store.reveal(code, k),
        lambda code, k: store.end_class(code, k),
        lambda code, k: store.delete_class(code, k),
        lambda code, k: store.answers(code, k),
    ):
        with pytest.raises(NotTeacher):
            change(info.code, wrong)
        with pytest.raises(NotTeacher):
            change(info.code, key[:-1])
        with pytest.raises(NoSuchClass):
            change(_other_code(info.code), key)
    assert store.get_class(info.code) == info


def test_the_teacher_leads(store: Store):
    info, key = store.create_class(LESSON)
    moved = store.set_step(info.code, key, 3)
    assert (moved.step, moved.revealed, moved.revision) == (3, False, 1)
    shown = store.reveal(info.code, key)
    assert (shown.step, shown.revealed, shown.revision) == (3, True, 2)
    back = store.set_step(info.code, key, 2)
    assert (back.step, back.revealed, back.revision) == (2, False, 3)
    ended = store.end_class(info.code, key)
    assert (ended.ended, ended.revision) == (True, 4)
    assert store.get_class(info.code) == ended
    with pytest.raises(Closed):
        store.set_step(info.code, key, 4)
    with pytest.raises(Closed):
        store.reveal(info.code, key)
    with pytest.raises(ValueError):
        store.set_step(info.code, key, -1)


# --- students -----------------------------------------------------------------------------------


def test_students_are_numbered_in_join_order(store: Store):
    info, _ = store.create_class(LESSON)
    joined = [store.join(info.code, f"s{n}") for n in range(5)]
    assert [student.number for student in joined] == [1, 2, 3, 4, 5]
    assert len({student.id for student in joined}) == 5
    assert store.get_class(info.code).students == 5
    assert store.join(info.code.lower()).number == 6


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("  Ann\tLee \n", "Ann Lee"),
        ("\x00Bob\x1b[31m\x7f", "Bob[31m"),
        ("a\u202egnp.exe\u200b", "agnp.exe"),
        ("<b>Zoë</b> 🦊", "<b>Zoë</b> 🦊"),
        ("x" * 100, "x" * NICKNAME_CHARS),
        ("Bo\ud800b", "Bob"),
        ("", ""),
    ],
)
def test_nicknames_are_cleaned(store: Store, typed: str, kept: str):
    info, key = store.create_class(LESSON)
    student = store.join(info.code, typed)
    assert student.nickname == kept
    assert store.student(info.code, student.id).nickname == kept
    store.answer(info.code, student.id, 1, 0)
    assert store.answers(info.code, key)[0].nickname == kept


def test_a_full_class_turns_students_away(db_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(store_module.MAX_STUDENTS_ENV, "3")
    small = open_store(db_url)
    info, _ = small.create_class(LESSON)
    assert [small.join(info.code).number for _ in range(3)] == [1, 2, 3]
    with pytest.raises(ClassFull):
        small.join(info.code)
    assert small.get_class(info.code).students == 3
    small.close()


def test_joins_at_the_same_moment_get_distinct_numbers(store: Store):
    info, _ = store.create_class(LESSON)
    numbers: list[int] = []

    def join_three() -> None:
        numbers.extend(store.join(info.code).number for _ in range(3))

    assert _at_once([join_three] * 12) == []
    assert sorted(numbers) == list(range(1, 37))
    assert store.get_class(info.code).students == 36


def test_no_joining_an_ended_or_unknown_class(store: Store):
    info, key = store.create_class(LESSON)
    store.end_class(info.code, key)
    with pytest.raises(NoSuchClass):
        store.join(info.code)
    with pytest.raises(NoSuchClass):
        store.join(_other_code(info.code))
    with pytest.raises(NoSuchClass):
        store.join("not a code")


def test_a_returning_student_is_the_same_student(store: Store, db_url: str):
    info, _ = store.create_class(LESSON)
    other, _ = store.create_class(LESSON)
    student = store.join(info.code, "Ann")
    assert store.student(info.code, student.id) == student == Student(student.id, 1, "Ann")
    replica = open_store(db_url)  # another app process
    assert replica.student(info.code, student.id) == student
    replica.close()
    assert store.student(info.code, new_secret()) is None
    assert store.student(other.code, student.id) is None


# --- answers ------------------------------------------------------------------------------------


def test_the_last_answer_counts(store: Store):
    info, key = store.create_class(LESSON)
    ann, bob, _cy = (store.join(info.code, name) for name in ("Ann", "Bob", "Cy"))
    store.answer(info.code, ann.id, 1, 1)
    assert store.my_answer(info.code, ann.id, 1) == 1
    store.answer(info.code, ann.id, 1, 2)
    store.answer(info.code, bob.id, 1, 2)
    assert store.my_answer(info.code, ann.id, 1) == 2
    assert store.my_answer(info.code, ann.id, 2) is None
    tally = store.tally(info.code, 1)
    assert (tally.step, tally.joined, tally.answered, tally.counts) == (1, 3, 2, {2: 2})
    store.set_step(info.code, key, 2)
    store.answer(info.code, bob.id, 2, 0)
    store.answer(info.code, ann.id, 2, 63)
    assert store.tally(info.code, 2).counts == {0: 1, 63: 1}
    assert store.tally(info.code, 3).answered == 0
    with pytest.raises(NoSuchClass):
        store.tally(_other_code(info.code), 1)


def test_a_class_answers_at_the_same_moment(store: Store):
    info, _ = store.create_class(LESSON)
    students = [store.join(info.code) for _ in range(12)]

    def answer(student: Student) -> None:
        for choice in (1, 2, student.number % 3):  # the last one counts
            store.answer(info.code, student.id, 1, choice)

    assert _at_once([partial(answer, student) for student in students]) == []
    assert store.tally(info.code, 1).counts == {0: 4, 1: 4, 2: 4}


def test_answers_close_with_the_step(store: Store):
    info, key = store.create_class(LESSON)
    ann = store.join(info.code)
    _closed(store, info.code, ann, 2)
    store.answer(info.code, ann.id, 1, 1)
    store.reveal(info.code, key)
    _closed(store, info.code, ann, 1)
    store.set_step(info.code, key, 2)
    _closed(store, info.code, ann, 1)
    store.answer(info.code, ann.id, 2, 4)
    store.end_class(info.code, key)
    _closed(store, info.code, ann, 2)
    assert [(row.step, row.choice) for row in store.answers(info.code, key)] == [(1, 1), (2, 4)]


def test_an_answer_waits_for_a_reveal_in_progress(store: Store):
    info, _ = store.create_class(LESSON)
    ann = store.join(info.code)
    backend = store._db.backend
    teacher = backend.connect()  # a reveal, begun and not yet committed
    backend.begin(teacher, write=True)
    teacher.execute(backend.sql("UPDATE classes SET revealed = TRUE WHERE code = ?"), (info.code,))
    outcome: list[BaseException | None] = []

    def answer() -> None:
        try:
            store.answer(info.code, ann.id, 1, 1)
            outcome.append(None)
        except Closed as exc:
            outcome.append(exc)

    student = threading.Thread(target=answer)
    student.start()
    student.join(timeout=0.5)
    waited = student.is_alive()
    backend.commit(teacher)
    teacher.close()
    student.join()
    assert waited and isinstance(outcome[0], Closed)
    assert store.tally(info.code, 1).answered == 0


def test_answers_need_a_known_student_and_a_choice_in_range(store: Store):
    info, _ = store.create_class(LESSON)
    other, _ = store.create_class(LESSON)
    ann = store.join(info.code)
    for student_id in (new_secret(), store.join(other.code).id):
        with pytest.raises(LookupError) as raised:
            store.answer(info.code, student_id, 1, 1)
        assert not isinstance(raised.value, NoSuchClass)
    with pytest.raises(NoSuchClass):
        store.answer(_other_code(info.code), ann.id, 1, 1)
    for choice in (-1, 64, True, 1.0, "1"):
        with pytest.raises(ValueError):
            store.answer(info.code, ann.id, 1, choice)
    store.answer(info.code, ann.id, 1, 0)
    store.answer(info.code, ann.id, 1, 63)
    assert store.tally(info.code, 1).counts == {63: 1}


def test_the_peer_instruction_loop_keeps_both_votes(store: Store):
    info, key = store.create_class(LESSON, step=2)
    ann, bob, cy = (store.join(info.code, name) for name in ("Ann", "Bob", "Cy"))
    assert (info.round, info.stage) == (1, "vote")
    for student, choice in ((ann, 0), (bob, 1), (cy, 1)):
        store.answer(info.code, student.id, 2, choice, round=1)
    store.answer(info.code, ann.id, 2, 0)  # sent again (a retry): still one answer
    assert store.tally(info.code, 2).counts == {0: 1, 1: 2}
    closed = store.set_stage(info.code, key, "closed")
    assert closed.stage == "closed" and closed.revision == info.revision + 1
    _closed(store, info.code, ann, 2)  # voting closed
    assert store.set_stage(info.code, key, "split").stage == "split"
    assert store.set_stage(info.code, key, "discuss").stage == "discuss"
    _closed(store, info.code, ann, 2)  # no vote while they discuss
    second = store.second_vote(info.code, key)
    assert (second.round, second.stage) == (2, "vote")
    with pytest.raises(Closed):  # a click from the first vote's page arrives late
        store.answer(info.code, bob.id, 2, 0, round=1)
    store.answer(info.code, ann.id, 2, 1, round=2)
    store.answer(info.code, bob.id, 2, 1, round=2)
    store.answer(info.code, bob.id, 2, 1, round=2)  # twice: counted once
    assert store.tally(info.code, 2, round=2).counts == {1: 2}
    assert store.tally(info.code, 2, round=2).round == 2
    assert store.tally(info.code, 2).counts == {0: 1, 1: 2}  # the first vote as it was
    assert store.my_answer(info.code, ann.id, 2) == 0
    assert store.my_answer(info.code, ann.id, 2, round=2) == 1
    assert store.my_answer(info.code, cy.id, 2, round=2) is None
    assert store.both_votes(info.code, 2) == [(0, 1), (1, 1)]
    rows = store.answers(info.code, key)
    assert [(r.student, r.round, r.choice) for r in rows] == [
        (1, 1, 0),
        (1, 2, 1),
        (2, 1, 1),
        (2, 2, 1),
        (3, 1, 1),
    ]
    store.reveal(info.code, key)
    for change in (partial(store.set_stage, stage="vote"), store.second_vote):
        with pytest.raises(Closed):
            change(info.code, key)
    moved = store.set_step(info.code, key, 3)  # the next question starts at its first vote
    assert (moved.round, moved.stage, moved.revealed) == (1, "vote", False)
    with pytest.raises(ValueError):
        store.set_stage(info.code, key, "shout")
    with pytest.raises(ValueError):
        store.answer(info.code, ann.id, 3, 0, round=3)
    with pytest.raises(NotTeacher):
        store.second_vote(info.code, new_secret())
    with pytest.raises(NoSuchClass):
        store.both_votes(_other_code(info.code), 2)


def test_answers_never_outnumber_the_students(store: Store):
    info, key = store.create_class(LESSON)
    students = [store.join(info.code) for _ in range(6)]

    def answer(student: Student) -> None:
        for _ in range(3):  # the same answer sent three times at once by each
            store.answer(info.code, student.id, 1, student.number % 2)

    assert _at_once([partial(answer, s) for s in students]) == []
    store.second_vote(info.code, key)
    assert _at_once([partial(answer, s) for s in students]) == []
    for round_ in (1, 2):
        assert store.tally(info.code, 1, round=round_).answered == 6
    assert _count(store, "answers") == 12


def test_a_teachers_own_lesson_is_kept_with_its_class(store: Store):
    text = 'id = "mine"\ntitle = "Mine"\n'
    info, key = store.create_class("mine", text=text)
    shipped, _ = store.create_class(LESSON)
    assert store.lesson_text(info.code) == text
    assert store.lesson_text(shipped.code) is None
    assert store.get_class(info.code).lesson == "mine"
    store.delete_class(info.code, key)
    assert store.lesson_text(info.code) is None
    for bad in ("", "x" * (store_module.MAX_LESSON_BYTES + 1)):
        with pytest.raises(ValueError):
            store.create_class("mine", text=bad)


def test_version_1_answers_become_the_first_vote(db_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(schema_module, "MIGRATIONS", MIGRATIONS[:1])
    old = open_store(db_url)
    old._db.run(
        lambda tx: [
            tx.run(
                "INSERT INTO classes (code, lesson, step, revealed, ended, revision, teacher,"
                " created, expires, joined) VALUES ('BCDFGH', ?, 2, FALSE, FALSE, 0, 'x', 0, ?, 1)",
                (LESSON, 4e9),
            ),
            tx.run(
                "INSERT INTO students (code, number, token, nickname) VALUES ('BCDFGH', 1, ?, '')",
                (digest("tok"),),
            ),
            tx.run("INSERT INTO answers VALUES ('BCDFGH', 2, 1, 5, 1.0)"),
        ],
        write=True,
    )
    old.close()
    monkeypatch.setattr(schema_module, "MIGRATIONS", MIGRATIONS)
    new = open_store(db_url)
    info = new.get_class("BCDFGH")
    assert (info.round, info.stage) == (1, "vote")
    assert new.my_answer("BCDFGH", "tok", 2) == 5
    assert new.tally("BCDFGH", 2).counts == {5: 1}
    assert new.lesson_text("BCDFGH") is None
    new.answer("BCDFGH", "tok", 2, 6)  # the primary key now holds the round
    assert new.tally("BCDFGH", 2).counts == {6: 1}
    new.close()


def test_the_teacher_gets_every_answer(store: Store):
    info, key = store.create_class(LESSON)
    ann, bob = store.join(info.code, "Ann"), store.join(info.code)
    store.answer(info.code, bob.id, 1, 3)
    store.answer(info.code, ann.id, 1, 5)
    store.set_step(info.code, key, 2)
    store.answer(info.code, ann.id, 2, 7)
    rows = store.answers(info.code, key)
    assert [(row.step, row.student, row.nickname, row.choice) for row in rows] == [
        (1, 1, "Ann", 5),
        (1, 2, "", 3),
        (2, 1, "Ann", 7),
    ]
    assert all(info.created <= row.at <= info.expires for row in rows)
    assert rows[2].at >= rows[0].at


def test_delete_removes_everything(store: Store):
    info, key = store.create_class(LESSON)
    kept, _ = store.create_class(LESSON)
    ann = store.join(info.code)
    store.answer(info.code, ann.id, 1, 2)
    store.answer(kept.code, store.join(kept.code).id, 1, 2)
    store.delete_class(info.code, key)
    assert store.get_class(info.code) is None
    assert store.student(info.code, ann.id) is None
    assert store.my_answer(info.code, ann.id, 1) is None
    with pytest.raises(NoSuchClass):
        store.tally(info.code, 1)
    with pytest.raises(NoSuchClass):
        store.delete_class(info.code, key)
    assert [_count(store, table) for table in ("classes", "students", "answers")] == [1, 1, 1]


# --- the database -------------------------------------------------------------------------------


def _versions(store: Store) -> list[int]:
    rows = store._db.run(lambda tx: tx.all("SELECT version FROM schema_version"), write=False)
    return sorted(int(row[0]) for row in rows)


def test_migrations_run_once_when_stores_open_together(db_url: str):
    opened: list[Store] = []
    assert _at_once([lambda: opened.append(open_store(db_url))] * 4) == []
    assert len(opened) == 4
    assert _versions(opened[0]) == list(range(1, len(MIGRATIONS) + 1))
    info, _ = opened[1].create_class(LESSON)
    assert opened[2].get_class(info.code) == info
    for each in opened:
        each.close()


def test_a_new_migration_is_applied_once_and_an_old_app_refuses_a_newer_schema(
    db_url: str, monkeypatch: pytest.MonkeyPatch
):
    first = open_store(db_url)
    info, _ = first.create_class(LESSON)
    first.close()
    newer = [*MIGRATIONS, "CREATE TABLE later (x INTEGER); INSERT INTO later (x) VALUES (1)"]
    monkeypatch.setattr(schema_module, "MIGRATIONS", newer)
    for _ in range(2):
        upgraded = open_store(db_url)
        assert _versions(upgraded) == list(range(1, len(newer) + 1))
        assert _count(upgraded, "later") == 1
        assert upgraded.get_class(info.code) == info
        upgraded.close()
    monkeypatch.setattr(schema_module, "MIGRATIONS", MIGRATIONS)
    with pytest.raises(RuntimeError, match="newer"):
        open_store(db_url)


def test_new_sqlite_files_opened_at_once(tmp_path: Path):
    """Switching a new file to WAL, SQLite fails at once while another connection does it (no
    busy_timeout wait): the store tries again. A race: each round catches it now and then."""
    for round_ in range(40):
        url = f"sqlite:///{tmp_path}/{round_}.sqlite3"
        assert _at_once([lambda url=url: open_store(url).close()] * 4) == []


def test_sqlite_settings(tmp_path: Path):
    opened = open_store(f"sqlite:///{tmp_path}/x.sqlite3")
    conn = opened._db.backend.connect()
    pragmas = ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
    values = [conn.execute(f"PRAGMA {name}").fetchone()[0] for name in pragmas]
    conn.close()
    opened.close()
    assert values == ["wal", 2, 5000, 1]  # synchronous 2: FULL


def test_the_sqlite_file_goes_to_the_class_folder(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(store_module.DIR_ENV, str(tmp_path / "made" / "here"))
    opened = open_store()
    opened.create_class(LESSON)
    opened.close()
    assert (tmp_path / "made" / "here" / store_module.SQLITE_FILE).is_file()
    monkeypatch.setenv(store_module.DB_ENV, "mysql://user:secret@host/db")
    with pytest.raises(ValueError) as raised:
        open_store()
    assert "secret" not in str(raised.value)


def test_postgresql_from_the_environment(pg_cluster: str, monkeypatch):
    url = new_database(pg_cluster)
    monkeypatch.setenv(store_module.DB_ENV, url.replace("postgresql://", "postgres://"))
    from_env = open_store()
    info, _ = from_env.create_class(LESSON)
    from_env.close()
    direct = open_store(url)
    assert direct.get_class(info.code) == info
    direct.close()


def test_a_broken_postgresql_connection_is_dropped_and_the_call_retried(pg_cluster: str, caplog):
    import psycopg

    url = new_database(pg_cluster)
    opened = open_store(url)
    info, _ = opened.create_class(LESSON)
    ann = opened.join(info.code)
    held = [opened._db.pool.take() for _ in range(3)]
    for conn in held:
        opened._db.pool.give(conn)  # three idle connections, soon all broken
    with psycopg.connect(url, autocommit=True) as admin:
        killed = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    assert killed and all(row[0] for row in killed)
    with caplog.at_level(logging.WARNING, logger="live.connections"):
        assert opened.get_class(info.code).students == 1
        assert len(opened._db.pool._idle) == 1  # the new one: the broken idle ones were dropped
        opened.answer(info.code, ann.id, 1, 9)
        assert opened.my_answer(info.code, ann.id, 1) == 9
    assert caplog.text.count("broke") == 1
    opened.close()


CHILD = """
import signal, sys
sys.path.insert(0, {root!r})
from live.store import open_store
store = open_store({url!r})
store.answer({code!r}, {student!r}, 1, 5)
print("saved", flush=True)
signal.pause()  # until the test kills it
"""


def test_a_saved_answer_survives_kill_9(db_url: str):
    setup = open_store(db_url)
    info, key = setup.create_class(LESSON)
    student = setup.join(info.code)
    setup.close()
    script = CHILD.format(root=str(ROOT), url=db_url, code=info.code, student=student.id)
    env = {name: value for name, value in os.environ.items() if name not in ENV}
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "saved"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    reopened = open_store(db_url)
    assert reopened.my_answer(info.code, student.id, 1) == 5
    assert [(row.student, row.choice) for row in reopened.answers(info.code, key)] == [(1, 5)]
    reopened.close()


def test_reads_run_without_a_transaction_and_writes_in_one(pg_cluster: str):
    """PostgreSQL: a read is one round trip (autocommit, no BEGIN and COMMIT), a write one
    transaction that a failure rolls back whole, whichever ran on the connection before.
    (SQLite's BEGIN and COMMIT are calls into the library, not round trips: unchanged.)"""
    store = open_store(new_database(pg_cluster))
    try:
        _reads_and_writes(store)
    finally:
        store.close()


def _reads_and_writes(store: Store) -> None:
    info, _key = store.create_class("bahdanau")
    db = store._db
    assert db.run(lambda tx: tx.one("SELECT 1"), write=False) == (1,)
    conn = db.pool.take()
    try:
        assert conn.autocommit  # the read left it so; nothing open on the server
        assert conn.info.transaction_status == conn.info.transaction_status.IDLE
    finally:
        db.pool.give(conn)

    def half_then_fail(tx) -> None:
        tx.run("UPDATE classes SET step = 5 WHERE code = ?", (info.code,))
        raise RuntimeError("midway")

    with pytest.raises(RuntimeError):
        db.run(half_then_fail, write=True)
    assert store.get_class(info.code).step == info.step  # the half-done write was rolled back
