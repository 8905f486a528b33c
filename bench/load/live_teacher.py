"""The teacher of the live class under load (:mod:`bench.load.live_class`, whose docstring tells
the whole scenario): starts a class, makes the moves of the script, reveals each question once
every student answered, and reads the class store from this process to check each move."""

from __future__ import annotations

import asyncio
import math
import time
import urllib.parse
from collections.abc import Awaitable, Callable

from bench.load.client import Session
from bench.load.live_outcome import LiveOutcome, Move
from bench.load.live_script import (
    ANSWER_WAIT_S,
    GAP_S,
    LESSON,
    PLAN,
    POLL_S,
    QUESTIONS,
    SEEN_WAIT_S,
    SUMMARY,
    plan_steps,
)
from bench.load.live_students import Student
from bench.load.metrics import ServerWatch
from bench.load.scenarios import Sample, timed
from live.records import NoSuchClass
from live.store import Store


async def wait_for(check: Callable[[], Awaitable[bool]], seconds: float) -> bool:
    """Poll ``check()`` (a coroutine function) every POLL_S until true or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_S)
    return True


def showed(st: Student, step: int, since: float) -> bool:
    """Whether ``st``'s page has shown ``step`` since ``since``."""
    return any(s == step and when >= since for s, when in st.shown)


async def everyone_shows(students: list[Student], step: int, since: float) -> bool:
    """Wait until every student still following has shown ``step`` since ``since``."""

    async def check() -> bool:
        return all(showed(st, step, since) for st in students if st.following)

    return await wait_for(check, SEEN_WAIT_S)


async def everyone_answered(store: Store, code: str, step: int, students: list[Student]) -> bool:
    """Wait until every student still following has answered ``step`` and the store holds every
    answer sent to it (read from the store: the teacher's "n of n answered")."""

    async def check() -> bool:
        if not all(step in st.answered for st in students if st.following):
            return False
        tally = await asyncio.to_thread(store.tally, code, step)
        return tally.answered >= sum(step in st.answered for st in students)

    return await wait_for(check, ANSWER_WAIT_S)


async def idle_window(watch: ServerWatch, seconds: float, out: LiveOutcome) -> None:
    """Nothing but following for ``seconds``: the replicas' CPU seconds over it."""
    cpu, start = (watch.cpu() if watch.pids else math.nan), time.monotonic()
    await asyncio.sleep(seconds)
    out.idle_seconds = time.monotonic() - start
    out.idle_cpu_s = (watch.cpu() - cpu) if watch.pids else math.nan


async def move(
    t: Session, number: int, by: int, step: int, store: Store, code: str, out: LiveOutcome
) -> bool:
    """One click of the teacher's; False when it failed. The store must have the new step."""
    name = "next" if by > 0 else "back"
    start = time.monotonic()
    if not await timed(t, "teacher", name, lambda: t.click(f"les_{name}"), out):
        return False
    out.moves.append(Move(number, step, start, time.monotonic()))
    info = await asyncio.to_thread(store.get_class, code)
    if info is None or info.step != step:
        got = "no class" if info is None else f"step {info.step}"
        out.samples.append(Sample("teacher", name, None, f"the store has {got}, not step {step}"))
    return True


async def teach(
    t: Session,
    store: Store,
    code: str,
    students: list[Student],
    watch: ServerWatch,
    idle: float,
    out: LiveOutcome,
    during_vote: Callable[[int], Awaitable[None]] | None = None,
) -> None:
    """The ten moves, each question revealed once every student answered, and the idle window
    on the summary; ``during_vote(step)`` is awaited once, during the first question's vote."""
    for number, (by, step) in enumerate(zip(PLAN, plan_steps(), strict=True), start=1):
        if not await move(t, number, by, step, store, code, out):
            return
        await everyone_shows(students, step, out.moves[-1].start)
        shown = sum(showed(st, step, out.moves[-1].start) for st in students)
        print(f"  move {number} to step {step}: shown by {shown} of {len(students)}", flush=True)
        if by > 0 and step in QUESTIONS:
            if during_vote is not None:
                await during_vote(step)
                during_vote = None
            await everyone_answered(store, code, step, students)
            reveal = f"les_class_{LESSON}_{step - 1}_class_reveal"
            if not await timed(t, "teacher", "reveal", lambda k=reveal: t.click(k), out):
                return
            await asyncio.sleep(GAP_S)
        if by > 0 and step == SUMMARY:
            await idle_window(watch, idle, out)
        await asyncio.sleep(GAP_S)


async def start_class(t: Session, out: LiveOutcome) -> str | None:
    """Open the lesson and start a class; its code (None when that failed)."""
    if not await timed(t, "teacher", "open", t.open, out):
        return None
    if not await timed(t, "teacher", "start", lambda: t.click("live_start"), out):
        return None
    code = dict(urllib.parse.parse_qsl(t.query)).get("class")
    if not code:
        out.samples.append(Sample("teacher", "start", None, "no class code in the address"))
    return code


def answers_in(store: Store, code: str) -> int:
    """The answers the store holds for the class's questions."""
    try:
        return sum(store.tally(code, step).answered for step in QUESTIONS)
    except NoSuchClass:
        return 0
