"""The script the load harness's live class plays (:mod:`bench.load.live_class`): the lesson, its
steps and questions, the teacher's ten moves, and how long each side waits for the other. One
place to read or tune what the class does; the teacher (:mod:`bench.load.live_teacher`) and the
students (:mod:`bench.load.live_students`) follow it."""

from __future__ import annotations

from collections.abc import Sequence

LESSON = "self-attention"
STEPS = 6  # lessons/05-self-attention.toml; step 7 is the summary
QUESTIONS = (2, 3, 4, 5)  # the steps with a [step.question]
SUMMARY = STEPS + 1
PLAN = ((+1,) * STEPS) + ((-1,) * 4)  # 1 → 7 (the summary), then back to 3: ten moves
POLL_S = 0.25  # how often the teacher reads the store, and a student looks at its page
ANSWER_WAIT_S = 30.0  # at most, for every student's answer to a question
SEEN_WAIT_S = 15.0  # at most, for every student's page to show a move
SAVE_WAIT_S = 10.0  # at most, for the page to call a pick saved
JOIN_WAIT_S = 120.0  # at most, for the whole class to join
GAP_S = 1.0  # between a move seen by all and the next
JOINING_AT_ONCE = 10  # students opening and joining at the same time
STUDENT_TIMEOUT_S = 30.0  # a student's request unanswered this long: its page is lost


def plan_steps(start: int = 1, plan: Sequence[int] = PLAN) -> list[int]:
    """The step each move of ``plan`` goes to, from ``start``."""
    steps, step = [], start
    for by in plan:
        step += by
        steps.append(step)
    return steps
