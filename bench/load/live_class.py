"""The live class under load: one scripted teacher leads lesson ``self-attention`` on the Lessons
page while ``students`` headless students follow it on /join, as a class follows on its phones.

The teacher (a :class:`Session` on /lessons) starts a class (``live_start``) and makes the ten
moves of :data:`PLAN`: forward from step 1 through the six steps to the summary (step 7), then
back to step 3 (``les_next``, ``les_back``; the teacher's step is the class's). On each question
step going forward it waits until every student still following has answered and the class
store, polled from this process (``Store.tally``, every :data:`POLL_S` s), holds every answer
sent (at most :data:`ANSWER_WAIT_S` s), then reveals. After each move it waits until every
student's page showed the new step (at most :data:`SEEN_WAIT_S` s), then :data:`GAP_S`. The
teacher's page is not followed: its counts fragment (every 2 s in a browser) is not kept running,
so the server's work is the students'.

Each student opens /join?code=CODE, types a nickname (``s1``, ``s2`` ...) and joins; then follows
as the browser does: its page's ``run_every`` fragment is rerun every second
(:class:`bench.load.protocol.AutoReruns`), and what the server sends tells which step the page
shows (its caption: "Step k of 6", "Summary"). On a question step, before the reveal and the
first time it sees it, a student thinks ``think`` seconds and picks one of the pills at random
(a seeded RNG), then waits for the page to call it saved: "Saved: ...", or, when the teacher
revealed before the page's run drew that line (the last answer lets the teacher reveal at once),
the reveal's "You chose ...", which the page shows only for an answer in the store. A student whose request goes unanswered,
or whose page's run never finishes, for :data:`STUDENT_TIMEOUT_S` s stops there (an error; its
page no longer follows, as a browser's would not).

Measured: for each (move, student), the seconds from the teacher's click (the request sent) until
the student's page showed the new step (its caption arrived), and from the end of the teacher's
run (the step was in the store by then; a student who polled in between is earlier, so this one
can be negative); answers sent, answers the page called saved, answers in the store after the run
(``Store.tally(...).answered`` over the four questions); and, after the forward pass, with every
student on the summary and no teacher move for ``idle`` seconds, the replicas' CPU seconds over
that window (:class:`bench.load.metrics.ServerWatch`).

The replicas and this process must use one class store: :func:`shared_store` gives the run a
fresh SQLite folder (``ATLAS_CLASS_DIR``, inherited by the replicas it starts), unless
``ATLAS_CLASS_DB`` names a database already (then that one). Against ``--url`` the store is the
environment's, which must be the served app's.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import random
import re
import tempfile
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load import protocol
from bench.load.client import LoadError, Session
from bench.load.metrics import ServerWatch
from bench.load.scenarios import FAILURES, Outcome, Sample, timed
from live.store import DB_ENV, DIR_ENV, NoSuchClass, Store, open_store

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
CAPTION = re.compile(
    r"^Class \w+ · you are student (\d+)\b.* · (?:Step (\d+) of (\d+)|Summary)$", re.DOTALL
)
SAVED = re.compile(r"^(?:Saved|You chose)\b")  # before the reveal, or in it


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


def shown_step(msg: ForwardMsg, steps: int = STEPS) -> int | None:
    """The step the join page's caption in ``msg`` shows (``steps`` + 1: the summary); None when
    ``msg`` is not that caption."""
    found = protocol.find_text(msg, CAPTION)
    if found is None:
        return None
    return int(found.group(2)) if found.group(2) else steps + 1


def plan_steps(start: int = 1, plan: Sequence[int] = PLAN) -> list[int]:
    """The step each move of ``plan`` goes to, from ``start``."""
    steps, step = [], start
    for by in plan:
        step += by
        steps.append(step)
    return steps


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


@contextlib.contextmanager
def shared_store() -> Iterator[None]:
    """A fresh SQLite class store for the replicas started inside (``ATLAS_CLASS_DIR``, a
    temporary folder, removed after), unless ``ATLAS_CLASS_DB`` names one already."""
    if os.environ.get(DB_ENV, "").strip():
        yield
        return
    before = os.environ.get(DIR_ENV)
    with tempfile.TemporaryDirectory(prefix="atlas-live-load-") as folder:
        os.environ[DIR_ENV] = folder
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(DIR_ENV, None)
            else:
                os.environ[DIR_ENV] = before


# -- a student -----------------------------------------------------------------------------------


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

    def see(self, msg: ForwardMsg) -> None:
        """What the page shows: a new step (noted with the time), or the answer saved."""
        step = shown_step(msg)
        if step is not None:
            if step != self.step:
                self.shown.append((step, time.monotonic()))
            self.step = step
        elif self.step in self.answered and protocol.find_text(msg, SAVED):
            self.saved.add(self.step)


def guess_key(code: str, step: int) -> str:
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
        out.samples.append(Sample("student", "answer", None, f"not shown as saved at step {step}"))


async def follow(
    st: Student,
    code: str,
    gate: asyncio.Semaphore,
    stop: asyncio.Event,
    think: tuple[float, float],
    out: LiveOutcome,
) -> None:
    """Join, then follow the class until ``stop``, answering each question once."""
    s = st.session
    s.on_message = st.see
    try:
        st.joined = await join(st, code, gate, out)
        if st.joined:
            out.shown.append(st.shown)
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
        out.fragment_reruns += s.fragment_reruns
        await s.close()


# -- the teacher ---------------------------------------------------------------------------------


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
) -> None:
    """The ten moves, each question revealed once every student answered, and the idle window
    on the summary."""
    for number, (by, step) in enumerate(zip(PLAN, plan_steps(), strict=True), start=1):
        if not await move(t, number, by, step, store, code, out):
            return
        await everyone_shows(students, step, out.moves[-1].start)
        shown = sum(showed(st, step, out.moves[-1].start) for st in students)
        print(f"  move {number} to step {step}: shown by {shown} of {len(students)}", flush=True)
        if by > 0 and step in QUESTIONS:
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


async def live_class(
    out: LiveOutcome,
    url: str,
    watch: ServerWatch,
    students: int,
    think: tuple[float, float],
    idle: float,
    seed: int,
) -> LiveOutcome:
    """The scenario: a teacher and ``students`` followers at ``url`` (module docstring)."""
    rng = random.Random(seed)
    store = await asyncio.to_thread(open_store)
    out.students = students
    teacher = Session(url, "lessons", f"lesson={LESSON}&step=1")
    followers: list[Student] = []
    stop = asyncio.Event()
    tasks: list[asyncio.Task] = []
    code = None
    try:
        code = await start_class(teacher, out)
        if code is None:
            return out
        gate = asyncio.Semaphore(JOINING_AT_ONCE)
        for number in range(1, students + 1):
            session = Session(url, "join", f"code={code}", STUDENT_TIMEOUT_S, auto_rerun=True)
            followers.append(Student(number, session, random.Random(rng.random())))
        tasks = [asyncio.create_task(follow(f, code, gate, stop, think, out)) for f in followers]
        with contextlib.suppress(TimeoutError):  # the class starts with those who joined
            async with asyncio.timeout(JOIN_WAIT_S):
                await asyncio.gather(*(f.ready.wait() for f in followers))
        joined = [f for f in followers if f.joined]
        await teach(teacher, store, code, joined, watch, idle, out)
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await teacher.close()
        if code:
            out.answers_stored = await asyncio.to_thread(answers_in, store, code)
        store.close()
    return out


async def warm_up(urls: list[str]) -> None:
    """The lesson's every step and the join page opened once on each replica (the models loaded,
    the views' caches warm), so that the first move is timed on a running server."""
    for url in urls:
        lesson = Session(url, "lessons", f"lesson={LESSON}&step=1")
        page = Session(url, "join")
        try:
            await lesson.open()
            for _ in range(STEPS):
                await lesson.click("les_next")
            await page.open()
        except FAILURES as exc:
            print(f"warm-up of {url}: {type(exc).__name__}: {exc}")
        finally:
            await lesson.close()
            await page.close()
