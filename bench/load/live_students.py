"""The students of the live class under load (:mod:`bench.load.live_class`, whose docstring
tells the whole scenario): each joins with a nickname and follows the class as a phone's browser
does, reading the step its page shows from the caption, and answers each question once."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load import protocol
from bench.load.client import LoadError, Session
from bench.load.live_outcome import LiveOutcome
from bench.load.live_script import POLL_S, QUESTIONS, SAVE_WAIT_S, STEPS, STUDENT_TIMEOUT_S
from bench.load.scenarios import FAILURES, Sample, timed

CAPTION = re.compile(
    r"^Class \w+ · you are student (\d+)\b.* · (?:Step (\d+) of (\d+)|Summary)$", re.DOTALL
)
SAVED = re.compile(r"^(?:Saved|You chose)\b")  # before the reveal, or in it


def shown_step(msg: ForwardMsg, steps: int = STEPS) -> int | None:
    """The step the join page's caption in ``msg`` shows (``steps`` + 1: the summary); None when
    ``msg`` is not that caption."""
    text = protocol.text_in(msg)
    return None if text is None else step_in(text, steps)


def step_in(text: str, steps: int = STEPS) -> int | None:
    """:func:`shown_step` of an element's text."""
    found = CAPTION.search(text)
    if found is None:
        return None
    return int(found.group(2)) if found.group(2) else steps + 1


@dataclass
class Student:
    """One follower: its number in the harness, its session, its page's steps (shared with the
    outcome), what it answered and what its page called saved."""

    number: int
    session: Session
    rng: random.Random
    shown: list[tuple[int, float]] = field(default_factory=list)
    step: int | None = None
    answered: set[int] = field(default_factory=set)
    saved: set[int] = field(default_factory=set)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    joined: bool = False
    following: bool = True  # False once its connection failed or timed out
    said: str = ""  # the last text the page showed (an error says it: what came instead)

    def see(self, msg: ForwardMsg) -> None:
        """What the page shows: a new step (noted with the time), or the answer saved."""
        text = protocol.text_in(msg)  # read once: every message of every student comes here
        if text is None:
            return
        self.said = text
        step = step_in(text)
        if step is not None:
            if step != self.step:
                self.shown.append((step, time.monotonic()))
            self.step = step
        elif self.step in self.answered and SAVED.search(text):
            self.saved.add(self.step)


def guess_key(code: str, step: int) -> str:
    """The widget key of the pills that answer ``step`` on the join page."""
    return f"join_guess_{code}_{step}"


async def join(st: Student, code: str, gate: asyncio.Semaphore, out: LiveOutcome) -> bool:
    """Open /join?code=CODE, type the nickname and join; True when the page then follows."""
    s = st.session
    async with gate:
        if not await timed(s, "student", "open", s.open, out):
            return False

        async def submit() -> float:
            s.stage("join_code", code)
            s.stage("join_name", f"s{st.number}")
            return await s.click("join_submit")

        if not await timed(s, "student", "join", submit, out):
            return False
    if st.step is None:
        out.samples.append(Sample("student", "join", None, "the page did not follow the class"))
        return False
    return True


async def answer(st: Student, code: str, think: tuple[float, float], out: LiveOutcome) -> None:
    """On a question step not answered yet: think, pick a pill at random, wait for it saved."""
    s, step = st.session, st.step
    await s.listen(st.rng.uniform(*think))
    key = guess_key(code, step)
    if st.step != step or key not in s.drawn:  # the teacher moved on or revealed meanwhile
        return
    label = st.rng.choice(s.widget(key).options)
    st.answered.add(step)
    out.answers_sent += 1
    if not await timed(s, "student", "answer", lambda: s.set(key, label), out):
        return
    if step not in st.saved:
        await s.listen(SAVE_WAIT_S, lambda _msg: step in st.saved)
    if step in st.saved:
        out.answers_saved += 1
    else:
        last = " ".join(st.said.split()[:4])  # its first words: the same for every such page
        out.samples.append(
            Sample("student", "answer", None, f"not shown as saved at step {step} (last: {last!r})")
        )


async def follow(
    st: Student,
    code: str,
    gate: asyncio.Semaphore,
    stop: asyncio.Event,
    think: tuple[float, float],
    out: LiveOutcome,
    listen: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Join, then follow the class until ``stop``, answering each question once; ``listen``:
    what the page's listener does meanwhile (a task from the join on)."""
    s = st.session
    s.on_message = st.see
    stream: asyncio.Task | None = None
    try:
        st.joined = await join(st, code, gate, out)
        if st.joined:
            out.shown.append(st.shown)
            if listen is not None:
                stream = asyncio.create_task(listen())
        st.ready.set()
        while st.joined and not stop.is_set():
            await s.listen(POLL_S)
            if s.unfinished_for() > STUDENT_TIMEOUT_S:
                raise LoadError(f"a run of the page unfinished after {STUDENT_TIMEOUT_S:g} s")
            step = st.step
            if step in QUESTIONS and step not in st.answered and guess_key(code, step) in s.drawn:
                await answer(st, code, think, out)
    except FAILURES as exc:
        out.samples.append(Sample("student", "follow", None, f"{type(exc).__name__}: {exc}"[:200]))
    finally:
        st.following = False
        st.ready.set()
        if stream is not None:
            stream.cancel()
        out.fragment_reruns += s.fragment_reruns
        await s.close()
