"""How many wrong class codes one browser session may try before it must wait: guessing codes
is the one way in without being shown the code, so after ``FREE_TRIES`` wrong codes each further
try waits, ``FIRST_WAIT`` seconds and then twice as long after each wrong code, up to
``MAX_WAIT``; a code that opens a class starts again. Pure (no streamlit): the join page keeps
an ``Attempts`` in its session and passes the time."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

FREE_TRIES = 5  # wrong codes before the first wait
FIRST_WAIT = 10.0  # seconds after the FREE_TRIES-th wrong code; doubled after each further one
MAX_WAIT = 600.0

clock = time.monotonic  # the join page's clock (tests set it)


@dataclass(frozen=True)
class Attempts:
    """One session's wrong codes so far and when it may try again (``clock`` seconds)."""

    wrong: int = 0
    until: float = 0.0

    def wait(self, now: float) -> int:
        """Whole seconds to wait before the next try (0: it may try now)."""
        return max(0, math.ceil(self.until - now))

    def failed(self, now: float) -> Attempts:
        """After one more wrong code at ``now``."""
        wrong = self.wrong + 1
        if wrong < FREE_TRIES:
            return Attempts(wrong)
        return Attempts(wrong, now + min(FIRST_WAIT * 2 ** (wrong - FREE_TRIES), MAX_WAIT))
