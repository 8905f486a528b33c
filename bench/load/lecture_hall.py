"""A lecture hall under load (``make load SCENARIO=lecture-hall``): ``students`` (300) join one
class within :data:`RAMP_S` seconds (each at a random moment of it), follow the teacher's ten
moves of :data:`bench.load.live_script.PLAN` and answer its four questions, as phones do with the
class's event stream: each headless student holds its page's websocket and the stream
``/live/events`` (:mod:`serve.class_events`), and asks its page to rerun (the
listener's trigger, as ``app_pages/lessons/follow_events.py``'s script sends it) only when the
stream's revision differs from the one its page was drawn at. Nothing runs on a timer.

A quarter of them (every :data:`RECONNECTING`-th) take the slowest path: right after joining they
drop both connections and open the join link again (their link carries their token: a phone that
slept, a refresh), and again after their first saved answer, when the page must show the same
student with that answer saved. Each is timed (``rejoin``) and checked.

Measured, besides the live class's figures (:mod:`bench.load.live_class`): each student's join
(from its arrival to its page following the class: the page, the health checks, the websocket's
first run, the join), the rejoins and whether each came back as the same student with its answer,
the events received and the fragment reruns they asked for, and from the store: the students the
class counts (one per student who joined: a retried join that made a second would show here) and
the answers stored against those the pages called saved.

The replicas share PostgreSQL (a private cluster started for the run, Debian's binaries, unless
``ATLAS_CLASS_DB`` names one), as a hall's replicas on several machines would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field

from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench.load import protocol
from bench.load.client import Session
from bench.load.hall_stream import listen
from bench.load.live_outcome import LiveOutcome
from bench.load.live_script import LESSON, POLL_S, QUESTIONS, STUDENT_TIMEOUT_S
from bench.load.live_students import CAPTION, Student, answer, guess_key
from bench.load.live_teacher import answers_in, start_class, teach
from bench.load.metrics import ServerWatch
from bench.load.scenarios import CUT_OFF, FAILURES, Sample, timed
from live.store import DB_ENV, MAX_STUDENTS_ENV, open_store

RAMP_S = 60.0  # the students arrive within this many seconds
RECONNECTING = 4  # every 4th student takes the slowest path (drops and opens its link again)
JOINING_AT_ONCE = 100  # at most this many students of the harness opening the page at once
FOLLOW_KEY = "join_follow_"  # the listener's key, before the class code
KILL_AFTER_SHARE = 0.5  # --kill-replica: killed once this share of the class has answered
KILL_WAIT_S = 20.0  # or after this many seconds of the vote
BACK_FLOOR_S = 5.0  # every student cut off is back on the current step within this
BACK_TRIES, BACK_RETRY_S = 5, 0.5  # a page cut off opens its link again up to 5 times
BARE_PAGE = "bare"  # --bare: bench/load/bare_join.py, the stack's floor


@dataclass
class HallOutcome(LiveOutcome):
    """The live class's figures and the hall's own."""

    joins: list[float] = field(default_factory=list)  # arrival -> page following, per student
    rejoins: list[float] = field(default_factory=list)
    rejoins_same: int = 0  # came back as the same student (its number)
    rejoins_answer_shown: int = 0  # and, after an answer, with it saved
    rejoins_after_answer: int = 0
    asks: int = 0  # page reruns the listeners asked for
    joined_harness: int = 0
    joined_store: int = -1  # the students the class counts in the store
    # --kill-replica: when one replica was killed (monotonic s; None: not killed), at which step,
    # and for each student whose page was on it, the seconds until its page was back on the
    # class's step (through nginx, on a replica that lives), with its answer where it had one
    killed_at: float | None = None
    kill_step: int = 0
    cut_off: int = 0
    back: list[float] = field(default_factory=list)
    back_with_answer: int = 0
    answered_when_cut: int = 0
    page: str = "atlas"  # the students' page: the atlas's join page, or BARE_PAGE


@dataclass(frozen=True)
class Kill:
    """``kill -9`` of one replica during the first vote (``--kill-replica``): the teacher's page
    is opened on the first replica directly (so the class goes on: a teacher's page that died
    would need its own link, which is not what is measured), the last replica is killed."""

    replica_urls: tuple[str, ...]
    pids: tuple[int, ...]


@dataclass
class HallStudent(Student):
    """A student whose page listens to the class's event stream."""

    me: str = ""
    shown_number: int | None = None  # the student number its page shows
    follow_id: str = ""  # the listener's element id and its fragment
    fragment: str = ""
    drawn: int | None = None  # the revision its page was drawn at
    latest: int | None = None  # the stream's latest revision
    asked: int | None = None
    asks: int = 0
    counted: set[int] = field(default_factory=set)  # steps whose answer was counted as saved

    def see(self, msg: ForwardMsg) -> None:
        super().see(msg)
        found = protocol.find_text(msg, CAPTION)
        if found is not None:
            self.shown_number = int(found.group(1))
        if protocol.element_type_of(msg) == "bidi_component":
            proto = msg.delta.new_element.bidi_component
            key = protocol.key_of(proto.id) or ""
            if key.startswith(FOLLOW_KEY) and proto.WhichOneof("data") == "json":
                self.follow_id, self.fragment = proto.id, msg.delta.fragment_id
                self.drawn = json.loads(proto.json).get("revision")
                self.check()

    def check(self) -> None:
        """As the browser's listener: ask once for each revision the page was not drawn at."""
        behind = None not in (self.latest, self.drawn) and self.latest > self.drawn
        if not behind or self.asked == self.latest:
            return
        self.asked = self.latest
        self.ask()

    def ask(self) -> None:
        if not self.follow_id:
            return
        self.asks += 1
        value = {"why": "changed", "revision": self.latest, "n": self.asks}
        state = WidgetState(id=_make_trigger_id(self.follow_id, "events"))
        state.json_trigger_value = json.dumps([{"event": "moved", "value": value}])
        task = asyncio.get_running_loop().create_task(self.session.trigger(state, self.fragment))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())


async def open_link(
    st: HallStudent, url: str, code: str, out: HallOutcome, *, reconnect: bool = False
) -> bool:
    """Drop the page and open the student's own link again (a phone that slept, a reload); True
    when it came back as the same student. With ``reconnect``, the page's websocket was lost and
    the browser's page brings it back as Streamlit's frontend does (the same cookies, the health
    checks, a new websocket; not the page's HTML again)."""
    number = st.shown_number
    old = st.session
    await old.close()
    if reconnect:
        st.session = old.reconnection()
    else:
        st.session = Session(url, "join", f"code={code}&me={st.me}", STUDENT_TIMEOUT_S)
    st.session.on_message = st.see
    st.follow_id = ""
    start = time.monotonic()
    if not await timed(st.session, "student", "rejoin", st.session.open, out):
        return False
    same = st.shown_number == number and number is not None
    if not reconnect:  # a reconnection after the kill is timed as the page's way back
        out.rejoins.append(time.monotonic() - start)
        out.rejoins_same += same
    if not same:
        out.samples.append(Sample("student", "rejoin", None, "came back as another student"))
    return same


async def attend(
    st: HallStudent,
    url: str,
    code: str,
    gate: asyncio.Semaphore,
    stop: asyncio.Event,
    think: tuple[float, float],
    out: HallOutcome,
    ramp: float = RAMP_S,
) -> None:
    """Arrive, join, listen, answer each question once; the slowest path reconnects twice."""
    s = st.session
    s.on_message = st.see
    stream: asyncio.Task | None = None
    slow = st.number % RECONNECTING == 0
    try:
        await asyncio.sleep(st.rng.uniform(0, ramp))
        arrived = time.monotonic()
        async with gate:
            ok = await timed(s, "student", "open", s.open, out)
            if ok:
                s.stage("join_code", code)
                s.stage("join_name", f"s{st.number}")
                ok = await timed(s, "student", "join", lambda: s.click("join_submit"), out)
        st.me = dict(urllib.parse.parse_qsl(s.query)).get("me", "")
        st.joined = ok and st.step is not None and bool(st.me)
        if not st.joined:
            out.samples.append(Sample("student", "join", None, "the page did not follow"))
            return
        out.joins.append(time.monotonic() - arrived)
        out.joined_harness += 1
        out.shown.append(st.shown)
        if slow:
            await open_link(st, url, code, out)
        stream = asyncio.create_task(listen(st, url, code, out))
        st.ready.set()
        again = slow
        while not stop.is_set():
            try:
                await st.session.listen(POLL_S)
                if st.session.unfinished_for() > STUDENT_TIMEOUT_S:
                    raise TimeoutError(
                        f"a run of the page unfinished after {STUDENT_TIMEOUT_S:g} s"
                    )
                step = st.step
                drawn = guess_key(code, step) in st.session.drawn
                if step in QUESTIONS and step not in st.answered and drawn:
                    await answer(st, code, think, out)
                    if step in st.saved:
                        st.counted.add(step)
                    if again and step in st.saved:
                        again = False
                        await rejoin_after_answer(st, url, code, step, out)
            except CUT_OFF:
                if out.killed_at is None:
                    raise
                await back_after_kill(st, url, code, out)
    except FAILURES as exc:
        out.samples.append(Sample("student", "follow", None, f"{type(exc).__name__}: {exc}"[:200]))
    finally:
        st.following = False
        st.ready.set()
        if stream is not None:
            stream.cancel()
        out.asks += st.asks
        await st.session.close()


async def rejoin_after_answer(
    st: HallStudent, url: str, code: str, step: int, out: HallOutcome
) -> None:
    """Open the link again after a saved answer: the same student, the answer shown saved."""
    st.saved.discard(step)
    came_back = await open_link(st, url, code, out)  # cut off by a kill: counted as cut off
    out.rejoins_after_answer += 1
    if not came_back:
        return
    if step not in st.saved and st.step == step:
        await st.session.listen(5.0, lambda _msg: step in st.saved or st.step != step)
    if step in st.saved:
        out.rejoins_answer_shown += 1
    elif st.step == step:
        out.samples.append(Sample("student", "rejoin", None, f"answer not shown at step {step}"))
    else:
        st.saved.add(step)  # the teacher moved on meanwhile: the answer was saved before


async def back_after_kill(st: HallStudent, url: str, code: str, out: HallOutcome) -> None:
    """The student's page lost its replica (killed): open its link again, as the browser's
    reconnection does (through nginx, to a replica that lives), and time it from the kill to
    the page on the class's step, with the answer saved where the student had one."""
    out.cut_off += 1
    step = out.kill_step
    had = step in st.counted  # an answer the page had shown as saved before the kill
    out.answered_when_cut += had
    st.saved.discard(step)
    for attempt in range(BACK_TRIES):  # as the browser tries again while the proxy fails over
        try:
            came_back = await open_link(st, url, code, out, reconnect=True)
            break
        except CUT_OFF:
            if attempt == BACK_TRIES - 1:
                raise
            await asyncio.sleep(BACK_RETRY_S)
    if not came_back:
        return
    arrived = time.monotonic()  # the page on the step; its saved answer may follow
    if st.step == step and step in st.answered and step not in st.saved:
        await st.session.listen(BACK_FLOOR_S, lambda _msg: step in st.saved)
    if st.step == step and (step in st.saved or not had):
        out.back.append((time.monotonic() if had else arrived) - out.killed_at)
        out.back_with_answer += had
    elif had:
        out.samples.append(Sample("student", "back", None, f"answer not shown at step {step}"))
    if step in st.answered and not had:  # an answer in flight when the replica died
        if step in st.saved:
            out.answers_saved += 1  # it reached the store: the page says so now
            st.counted.add(step)
        else:
            st.answered.discard(step)  # it did not: the student answers again
            out.answers_sent -= 1


async def kill_during_vote(
    kill: Kill, store, code: str, students: list[HallStudent], out: HallOutcome, step: int
) -> None:
    """Wait until :data:`KILL_AFTER_SHARE` of the class has answered ``step`` (at most
    :data:`KILL_WAIT_S`), then ``kill -9`` the last replica."""
    deadline = time.monotonic() + KILL_WAIT_S
    while time.monotonic() < deadline:
        tally = await asyncio.to_thread(store.tally, code, step)
        if tally.answered >= KILL_AFTER_SHARE * len(students):
            break
        await asyncio.sleep(0.2)
    out.kill_step = step
    out.killed_at = time.monotonic()
    os.kill(kill.pids[-1], signal.SIGKILL)
    print(
        f"  killed replica {kill.replica_urls[-1]} (pid {kill.pids[-1]}) at step {step}", flush=True
    )


def joined_in_store(store, code: str) -> int:
    info = store.get_class(code)
    return -1 if info is None else info.students


async def lecture_hall(
    out: HallOutcome,
    url: str,
    watch: ServerWatch,
    students: int,
    think: tuple[float, float],
    idle: float,
    seed: int,
    ramp: float = RAMP_S,
    kill: Kill | None = None,
    *,
    teacher_url: str | None = None,
) -> HallOutcome:
    """The scenario (module docstring); with ``kill``, one replica is killed during the first
    vote (:class:`Kill`); ``teacher_url``: the teacher's page on a server of its own (--bare)."""
    rng = random.Random(seed)
    store = await asyncio.to_thread(open_store)
    out.students = students
    if teacher_url is None:
        teacher_url = kill.replica_urls[0] if kill is not None else url
    teacher = Session(teacher_url, "lessons", f"lesson={LESSON}&step=1")
    followers: list[HallStudent] = []
    stop = asyncio.Event()
    tasks: list[asyncio.Task] = []
    code = None
    try:
        code = await start_class(teacher, out)
        if code is None:
            return out
        gate = asyncio.Semaphore(JOINING_AT_ONCE)
        for number in range(1, students + 1):
            session = Session(url, "join", f"code={code}", STUDENT_TIMEOUT_S)
            followers.append(HallStudent(number, session, random.Random(rng.random())))
        tasks = [
            asyncio.create_task(attend(f, url, code, gate, stop, think, out, ramp))
            for f in followers
        ]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(ramp + 2 * STUDENT_TIMEOUT_S):
                await asyncio.gather(*(f.ready.wait() for f in followers))
        joined = [f for f in followers if f.joined]
        print(f"  {len(joined)} of {students} joined", flush=True)
        during_vote = None
        if kill is not None:

            async def during_vote(step: int) -> None:
                await kill_during_vote(kill, store, code, joined, out, step)

        await teach(teacher, store, code, joined, watch, idle, out, during_vote)
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await teacher.close()
        if code:
            out.answers_stored = await asyncio.to_thread(answers_in, store, code)
            out.joined_store = await asyncio.to_thread(joined_in_store, store, code)
        store.close()
    return out


@contextlib.contextmanager
def hall_store() -> Iterator[None]:
    """PostgreSQL for the replicas started inside: ``ATLAS_CLASS_DB`` if set, else a private
    cluster for the run (tests/postgres.py's); room for every student."""
    before = {name: os.environ.get(name) for name in (DB_ENV, MAX_STUDENTS_ENV)}
    os.environ[MAX_STUDENTS_ENV] = "2000"
    try:
        if os.environ.get(DB_ENV, "").strip():
            yield
            return
        from tests.postgres import new_database, private_cluster

        with private_cluster() as cluster:
            os.environ[DB_ENV] = new_database(cluster)
            yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
