"""The class's change notices (live/notify.py) on both databases: a watcher learns of the
teacher's move, reveal, end and delete from another store (another process's, as far as the
database can tell), one read per process for all its subscribers; and the store's retry after a
commit whose answer was lost makes no second student and no second class."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import live.notify as notify
from live.notify import Seen, Watcher, open_watcher
from live.store import Store, open_store
from tests.postgres import new_database, private_cluster

LESSON = "01-bottleneck"
WAIT_S = 30.0  # the longest wait for a notice: a state, not a speed (a busy machine is slow)


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[str]:
    with private_cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/classes.sqlite3"
    return new_database(request.getfixturevalue("pg_cluster"))


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    opened = open_store(db_url)
    yield opened
    opened.close()


@pytest.fixture
def watcher(db_url: str, store: Store) -> Iterator[Watcher]:
    opened = open_watcher(db_url)  # after the store: the schema exists
    yield opened
    opened.close()


class Inbox:
    """What a subscriber was told, in order."""

    def __init__(self) -> None:
        self.got: queue.Queue[Seen | None] = queue.Queue()

    def __call__(self, seen: Seen | None) -> None:
        self.got.put(seen)

    def next(self) -> Seen | None:
        return self.got.get(timeout=WAIT_S)

    def until(self, wanted: Seen | None) -> None:
        """Wait for ``wanted`` (notices in between are allowed: revisions only grow)."""
        while (seen := self.next()) != wanted:
            assert seen is not None, f"told the class is gone, waiting for {wanted}"


def test_a_subscriber_is_told_the_revision_then_each_change(store: Store, watcher: Watcher):
    info, key = store.create_class(LESSON)
    inbox = Inbox()
    stop = watcher.subscribe(info.code, inbox)
    assert inbox.next() == Seen(0, False)
    moved = store.set_step(info.code, key, 2)
    inbox.until(Seen(moved.revision, False))
    revealed = store.reveal(info.code, key)
    inbox.until(Seen(revealed.revision, False))
    ended = store.end_class(info.code, key)
    inbox.until(Seen(ended.revision, True))
    store.delete_class(info.code, key)
    inbox.until(None)
    stop()
    assert watcher.watched() == 0


def test_an_answer_or_a_join_tells_nobody(store: Store, watcher: Watcher):
    info, key = store.create_class(LESSON, step=2)
    inbox = Inbox()
    watcher.subscribe(info.code, inbox)
    assert inbox.next() == Seen(0, False)
    student = store.join(info.code)
    store.answer(info.code, student.id, 2, 1)
    moved = store.set_step(info.code, key, 3)  # a marker: everything before it was read
    assert inbox.next() == Seen(moved.revision, False)


def test_every_subscriber_of_a_class_is_told_and_no_other_class(store: Store, watcher: Watcher):
    one, key = store.create_class(LESSON)
    other, other_key = store.create_class(LESSON)
    inboxes = [Inbox() for _ in range(50)]
    for inbox in inboxes:
        watcher.subscribe(one.code, inbox)
    elsewhere = Inbox()
    watcher.subscribe(other.code, elsewhere)
    assert all(inbox.next() == Seen(0, False) for inbox in inboxes)
    assert elsewhere.next() == Seen(0, False)
    moved = store.set_step(one.code, key, 4)
    for inbox in inboxes:
        inbox.until(Seen(moved.revision, False))
    later = store.set_step(other.code, other_key, 2)
    assert elsewhere.next() == Seen(later.revision, False)  # nothing of the first class before


def test_a_late_subscriber_is_told_at_once_what_is_known(store: Store, watcher: Watcher):
    info, key = store.create_class(LESSON)
    first = Inbox()
    watcher.subscribe(info.code, first)
    first.next()
    moved = store.set_step(info.code, key, 2)
    first.until(Seen(moved.revision, False))
    late = Inbox()
    watcher.subscribe(info.code, late)
    assert late.next() == Seen(moved.revision, False)


def test_an_unknown_class_is_gone(store: Store, watcher: Watcher):
    inbox = Inbox()
    watcher.subscribe("BCDFGH", inbox)
    assert inbox.next() is None


def test_sqlite_reads_only_when_something_was_committed(tmp_path: Path, monkeypatch):
    url = f"sqlite:///{tmp_path}/classes.sqlite3"
    store = open_store(url)
    info, key = store.create_class(LESSON)
    watcher = open_watcher(url)
    reads: list[int] = []
    real = Watcher._read

    def counted(self, conn, codes):
        if codes:
            reads.append(len(codes))
        return real(self, conn, codes)

    monkeypatch.setattr(Watcher, "_read", counted)
    inboxes = [Inbox() for _ in range(20)]
    for inbox in inboxes:
        watcher.subscribe(info.code, inbox)
        inbox.next()
    settled = threading.Event()
    settled.wait(10 * notify.SQLITE_CHECK_S)  # idle: no commit, no read
    before = len(reads)
    settled.wait(10 * notify.SQLITE_CHECK_S)
    assert len(reads) == before
    store.set_step(info.code, key, 2)
    for inbox in inboxes:
        inbox.until(Seen(1, False))
    assert all(n == 1 for n in reads)  # one query for the class, whatever its subscribers
    watcher.close()
    store.close()


def test_postgresql_watcher_reconnects_and_reads_what_it_missed(pg_cluster: str):
    import psycopg

    url = new_database(pg_cluster)
    store = open_store(url)
    watcher = open_watcher(url)
    info, key = store.create_class(LESSON)
    inbox = Inbox()
    watcher.subscribe(info.code, inbox)
    assert inbox.next() == Seen(0, False)
    with psycopg.connect(url, autocommit=True) as admin:  # cut the watcher's connection
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND query LIKE 'LISTEN%'"
        )
    moved = store.set_step(info.code, key, 5)
    inbox.until(Seen(moved.revision, False))
    watcher.close()
    store.close()


def _lose_the_first_commits_answer(store: Store, monkeypatch) -> None:
    """The next commit reaches the database, then its connection breaks before the answer."""
    backend = store._db.backend
    lost = {"armed": True, "broken": False}
    commit, broken = backend.commit, backend.broken

    def commit_then_break(conn) -> None:
        commit(conn)
        if lost["armed"]:
            lost["armed"], lost["broken"] = False, True
            raise OSError("the connection broke after the commit")

    def is_broken(conn) -> bool:
        if lost["broken"]:
            lost["broken"] = False
            return True
        return broken(conn)

    monkeypatch.setattr(backend, "commit", commit_then_break)
    monkeypatch.setattr(backend, "broken", is_broken)


def test_a_join_retried_after_a_lost_commit_is_one_student(store: Store, monkeypatch):
    info, _ = store.create_class(LESSON)
    _lose_the_first_commits_answer(store, monkeypatch)
    student = store.join(info.code, "ann")
    assert store.get_class(info.code).students == 1
    assert store.student(info.code, student.id) == student


def test_a_class_created_again_after_a_lost_commit_is_one_class(store: Store, monkeypatch):
    _lose_the_first_commits_answer(store, monkeypatch)
    info, key = store.create_class(LESSON)
    assert store.is_teacher(info.code, key)
    count = store._db.run(lambda tx: tx.one("SELECT COUNT(*) FROM classes"), write=False)
    assert count[0] == 1
