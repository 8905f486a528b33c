"""How many script runs of this process may work at once: the others wait for a slot, in turn.

Streamlit runs every session's rerun in its own thread, and the app's work is mostly Python, which
one process runs on one core at a time: thirty reruns at once take turns on the interpreter lock
after nearly every torch operation, and each finishes late; in turn, the first answers come at
once (``make load SCENARIO=burst`` measures it; docs/deployment.md, "The burst"). Two by default,
not one: a long run (Multi-head at 512 pieces) leaves the other slot to the rest of the class.
``$ATLAS_SCRIPT_SLOTS`` sets the number.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SLOTS_ENV = "ATLAS_SCRIPT_SLOTS"
DEFAULT_SLOTS = 2


def _slots_wanted() -> int:
    """ATLAS_SCRIPT_SLOTS when it is a positive integer, else DEFAULT_SLOTS."""
    raw = os.environ.get(SLOTS_ENV, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_SLOTS


_slots = threading.BoundedSemaphore(_slots_wanted())
_held = threading.local()  # .depth: how many script_slot blocks this thread is inside


@contextmanager
def script_slot() -> Iterator[None]:
    """Hold one of the process's script slots for the block (waiting for one if all are taken).
    Re-entrant: a fragment run inline inside its page's run keeps the page's slot."""
    depth = getattr(_held, "depth", 0)
    if depth:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth = depth
        return
    with _slots:
        _held.depth = 1
        try:
            yield
        finally:
            _held.depth = 0
