"""serve.slots: at most N script runs work at once, the others wait their turn; a fragment run
inline inside its page's run keeps the page's slot (no deadlock)."""

from __future__ import annotations

import threading
import time

import pytest

from serve import slots


@pytest.fixture
def two_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slots, "_slots", threading.BoundedSemaphore(2))


def test_at_most_two_runs_work_at_once(two_slots) -> None:
    working, most, lock = 0, 0, threading.Lock()

    def run() -> None:
        nonlocal working, most
        with slots.script_slot():
            with lock:
                working += 1
                most = max(most, working)
            time.sleep(0.02)
            with lock:
                working -= 1

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads)
    assert most == 2


def test_nested_blocks_keep_one_slot(two_slots) -> None:
    with slots.script_slot(), slots.script_slot(), slots.script_slot():
        assert slots._held.depth == 3
        other = threading.Thread(target=lambda: slots.script_slot().__enter__())
        other.start()
        other.join(timeout=5)  # the second slot is still free
        assert not other.is_alive()
    assert slots._held.depth == 0


def test_the_number_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for raw, want in (("3", 3), ("0", 2), ("x", 2), ("", 2)):
        monkeypatch.setenv(slots.SLOTS_ENV, raw)
        assert slots._slots_wanted() == want
