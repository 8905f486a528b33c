"""models.native_memory.give_back: the free pages in the middle of glibc's heap go back to the
operating system (the resident size falls), live blocks untouched."""

from __future__ import annotations

import os

import pytest

from models import native_memory

pytestmark = pytest.mark.skipif(
    native_memory._malloc_trim is None, reason="the C library has no malloc_trim (not glibc)"
)


def _resident() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_freed_heap_blocks_are_handed_back() -> None:
    # 64 KB blocks come from the heap (under the mmap threshold); freeing every other one leaves
    # 64 MB of holes between live blocks, which free() cannot hand back by itself
    blocks = [bytes([i % 250 + 1]) * (64 * 1024) for i in range(2048)]  # written: resident
    kept = blocks[1::2]
    native_memory.give_back()
    before = _resident()
    del blocks
    assert native_memory.give_back() is True
    after = _resident()
    assert before - after > 32 * 1024 * 1024
    assert all(b[:4] == bytes([(2 * i + 1) % 250 + 1]) * 4 for i, b in enumerate(kept))  # intact
