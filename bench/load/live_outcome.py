"""What the live class under load measured (:mod:`bench.load.live_class`): the teacher's moves,
when each student's page showed each step, the answers and the idle window's CPU; and the wait of
each (move, student) from those, which the report's table (:mod:`bench.load.report`) is read on."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.load.scenarios import Outcome


@dataclass(frozen=True)
class Move:
    """One teacher move: its number (1-10), the step it moved the class to, and when (monotonic
    seconds) the click was sent and the teacher's run finished."""

    number: int
    step: int
    start: float
    end: float


@dataclass
class LiveOutcome(Outcome):
    """The live class's raw figures: the moves, each student's page's steps with when it first
    showed each (monotonic seconds; one list per student who joined), the answers, and the idle
    window's CPU seconds."""

    moves: list[Move] = field(default_factory=list)
    shown: list[list[tuple[int, float]]] = field(default_factory=list)
    students: int = 0  # asked to join
    answers_sent: int = 0
    answers_saved: int = 0  # the page called saved ("Saved:", or "You chose" at the reveal)
    answers_stored: int = -1  # in the store after the run (-1: not read)
    idle_seconds: float = math.nan
    idle_cpu_s: float = math.nan  # the replicas' CPU seconds over the idle window
    fragment_reruns: int = 0  # sent by the students' timers
    events: int = 0  # revisions the students' event streams delivered
    streams_refused: int = 0  # event streams the server refused (the page polls then)


def waits(
    moves: Sequence[Move], shown: Sequence[Sequence[tuple[int, float]]]
) -> list[tuple[float, float]]:
    """For each (move, student): seconds from the click, and from the end of the teacher's run,
    until the student's page first showed the move's step (before the next move's click);
    ``inf`` for a page that never did."""
    out = []
    for i, move in enumerate(moves):
        until = moves[i + 1].start if i + 1 < len(moves) else math.inf
        for steps in shown:
            when = next((t for s, t in steps if s == move.step and move.start <= t < until), None)
            if when is None:
                out.append((math.inf, math.inf))
            else:
                out.append((when - move.start, when - move.end))
    return out
