"""What the class store (:mod:`live.store`) hands the pages and what it raises: typed, frozen
records (never database rows), so that a page cannot change a class by editing what it read."""

from __future__ import annotations

from dataclasses import dataclass


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
    round: int = 1  # the current step's vote: 1 (each alone) or 2 (again, after a discussion)
    stage: str = "vote"  # the current round's stage: one of STAGES


STAGES = ("vote", "closed", "split", "discuss")  # taking answers; closed; split shown; discussing


@dataclass(frozen=True)
class Student:
    """One student of a class, as the student's own page knows it."""

    id: str  # the student's secret token (only the student's own browser has it)
    number: int  # anonymous number in the class, 1, 2, 3 ... in join order
    nickname: str


@dataclass(frozen=True)
class Tally:
    """How a class answered one step so far: what the teacher's counts show."""

    step: int
    joined: int
    answered: int
    counts: dict[int, int]  # choice -> how many students chose it (their last answer)
    round: int = 1  # which vote: 1 or 2


@dataclass(frozen=True)
class AnswerRow:
    """One answer, for the teacher's CSV."""

    step: int
    student: int
    nickname: str
    choice: int
    at: float
    round: int = 1  # the first vote or the second


class NoSuchClass(LookupError):
    """No open class has this code (never made, deleted, expired; for joining: also ended)."""


class NotTeacher(PermissionError):
    """The teacher key does not match the class."""


class ClassFull(RuntimeError):
    """The class has ATLAS_CLASS_MAX_STUDENTS students already."""


class Closed(RuntimeError):
    """Not open for this: an answer to a step that is not the current one, after the reveal or
    after the class ended; moving or revealing an ended class."""
