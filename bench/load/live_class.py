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
as the browser does: it listens to the class's event stream and asks its page to rerun when the
revision changes (:func:`bench.load.hall_stream.listen`; any ``run_every`` fragment a page still
has is kept running, :class:`bench.load.protocol.AutoReruns`), and what the server sends tells
which step the page shows (its caption: "Step k of 6", "Summary"). On a question step, before the reveal and the
first time it sees it, a student thinks ``think`` seconds and picks one of the pills at random
(a seeded RNG), then waits for the page to call it saved: "Saved: ...", or, when the teacher
revealed before the page's run drew that line (the last answer lets the teacher reveal at once),
the reveal's "You chose ...", which the page shows only for an answer in the store. A student
whose request goes unanswered, or whose page's run never finishes, for :data:`STUDENT_TIMEOUT_S`
s stops there (an error; its page no longer follows, as a browser's would not).

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

The script and its waits (the names in capitals) are :mod:`bench.load.live_script`; the students
:mod:`bench.load.live_students`, the teacher :mod:`bench.load.live_teacher`, the figures
:mod:`bench.load.live_outcome`; this module runs them together.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import tempfile
import urllib.parse
from collections.abc import Iterator
from functools import partial

from bench.load.client import Session
from bench.load.hall_stream import listen
from bench.load.lecture_hall import HallStudent
from bench.load.live_outcome import LiveOutcome
from bench.load.live_script import JOIN_WAIT_S, JOINING_AT_ONCE, LESSON, STEPS, STUDENT_TIMEOUT_S
from bench.load.live_students import Student, follow
from bench.load.live_teacher import answers_in, start_class, teach
from bench.load.metrics import ServerWatch
from bench.load.scenarios import FAILURES
from live.store import DB_ENV, DIR_ENV, open_store


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
            followers.append(HallStudent(number, session, random.Random(rng.random())))
        tasks = [
            asyncio.create_task(
                follow(f, code, gate, stop, think, out, partial(listening, f, url, code, out))
            )
            for f in followers
        ]
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


async def listening(st: HallStudent, url: str, code: str, out: LiveOutcome) -> None:
    """The page's listener (:func:`bench.load.hall_stream.listen`) once it has joined."""
    st.me = dict(urllib.parse.parse_qsl(st.session.query)).get("me", "")
    await listen(st, url, code, out)


async def warm_up(lesson_urls: list[str], join_urls: list[str], join_query: str = "") -> None:
    """The lesson's every step opened once on each of ``lesson_urls`` and the join page (with
    ``join_query``) on each of ``join_urls`` (the models loaded, the views' caches warm), so that
    the first move is timed on a running server."""
    for url in lesson_urls:
        lesson = Session(url, "lessons", f"lesson={LESSON}&step=1")
        try:
            await lesson.open()
            for _ in range(STEPS):
                await lesson.click("les_next")
        except FAILURES as exc:
            print(f"warm-up of {url}: {type(exc).__name__}: {exc}")
        finally:
            await lesson.close()
    for url in join_urls:
        page = Session(url, "join", join_query)
        try:
            await page.open()
        except FAILURES as exc:
            print(f"warm-up of {url}: {type(exc).__name__}: {exc}")
        finally:
            await page.close()
