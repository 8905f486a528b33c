"""The live class under load (``make load SCENARIO=live-class``): the pure parts (a page's words
in a delta, the step a student's page shows, the fragments' timers as the browser keeps them, a
form's staged fields, the waits and the table), and one small class against a served app: a
teacher's ten moves followed by four students, every answer saved and in the store."""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
import threading
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.exceptions import InvalidHandshake

from bench.load import live_script, protocol
from bench.load.__main__ import parse_load_args
from bench.load.client import Session
from bench.load.live_outcome import LiveOutcome, Move, waits
from bench.load.live_script import PLAN, plan_steps
from bench.load.live_students import SAVED, shown_step
from bench.load.report import Run, live_figures, live_row, table
from bench.load.scenarios import Sample
from tests.browser_helpers import in_own_thread

ROOT = Path(__file__).resolve().parents[1]
CAPTION = "Class ABCDEF · you are student 3 · s3 · Self\\-attention, heads and the √d\\_k · {where}"


def delta(kind: str, **fields: object) -> ForwardMsg:
    msg = ForwardMsg()
    proto = getattr(msg.delta.new_element, kind)
    for name, value in fields.items():
        setattr(proto, name, value)
    return msg


def run_msg(kind: str, run: str, fragments: tuple[str, ...] = ()) -> ForwardMsg:
    """A ``new_session`` or ``script_finished`` of run ``run`` (of ``fragments`` only, if any)."""
    msg = ForwardMsg()
    if kind == "new_session":
        msg.new_session.page_script_hash = "page"
    else:
        msg.script_finished = (
            ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
            if fragments
            else ForwardMsg.FINISHED_SUCCESSFULLY
        )
    msg.metadata.run.script_run_id = run
    msg.metadata.run.fragment_ids.extend(fragments)
    return msg


def auto_rerun(fragment: str, interval: float = 1.0) -> ForwardMsg:
    msg = ForwardMsg()
    msg.auto_rerun.fragment_id, msg.auto_rerun.interval = fragment, interval
    return msg


# ---------------------------------------------------------------- a page's words


def test_text_is_found_in_markdown_captions_alerts_and_headings_only():
    caption = delta("markdown", body=CAPTION.format(where="Step 4 of 6"))
    saved = delta("alert", body="Saved: **previous token**. You can change it until …")
    button = delta("button", id="$$ID-1-join_submit", label="Join")
    assert protocol.text_in(caption).startswith("Class ABCDEF")
    assert protocol.find_text(saved, SAVED) is not None
    revealed = delta(
        "alert", body="You chose **previous token**. Right!"
    )  # only for a stored answer
    assert protocol.find_text(revealed, SAVED) is not None
    missed = delta("alert", body="You did not answer this one.")
    assert protocol.find_text(missed, SAVED) is None
    assert protocol.text_in(delta("heading", body="Join a class")) == "Join a class"
    assert protocol.text_in(button) is None and protocol.find_text(button, "Join") is None
    assert protocol.text_in(ForwardMsg()) is None  # not a delta


def test_the_step_a_students_page_shows_is_read_from_its_caption():
    assert shown_step(delta("markdown", body=CAPTION.format(where="Step 4 of 6"))) == 4
    assert shown_step(delta("markdown", body=CAPTION.format(where="Summary"))) == 7
    teacher_nav = delta("markdown", body="**Self-attention** · Step 2 of 6")
    assert shown_step(teacher_nav) is None
    assert shown_step(delta("alert", body="Saved: **Step 2 of 6**")) is None


def test_the_plan_follows_the_shipped_lesson():
    lesson = tomllib.loads((ROOT / "lessons" / "05-self-attention.toml").read_text())
    assert lesson["id"] == live_script.LESSON and len(lesson["step"]) == live_script.STEPS
    questions = tuple(i for i, s in enumerate(lesson["step"], start=1) if "question" in s)
    assert questions == live_script.QUESTIONS
    assert plan_steps() == [2, 3, 4, 5, 6, 7, 6, 5, 4, 3] and len(PLAN) == 10


# ---------------------------------------------------------------- the fragments' timers


def test_fragment_timers_run_as_the_browsers_do():
    timers = protocol.AutoReruns()
    timers.note(auto_rerun("f1"), now=0.0)
    assert timers.next_due() == 1.0 and timers.due(0.5) == []
    assert timers.due(1.0) == ["f1"] and timers.next_due() == 2.0
    timers.note(auto_rerun("f1"), now=1.5)  # the same timer again: kept, not restarted
    assert timers.next_due() == 2.0
    assert timers.due(7.3) == ["f1"] and timers.next_due() == 8.3  # late: no catching up
    timers.note(run_msg("new_session", "r2", fragments=("f1",)), now=8.0)  # a fragment's run
    assert timers.next_due() == 8.3
    timers.note(run_msg("new_session", "r3"), now=8.0)  # the page's run: drawn anew
    assert timers.next_due() is None
    timers.note(auto_rerun("f2", 2.0), now=9.0)
    stop = ForwardMsg()
    stop.stop_auto_rerun.fragment_ids.append("f2")
    timers.note(stop, now=9.5)
    assert timers.next_due() is None


def test_a_timers_rerun_names_its_fragment():
    msg = BackMsg()
    msg.ParseFromString(protocol.rerun_msg([], page_hash="h", query="code=X", fragment_id="f1"))
    client = msg.rerun_script
    assert (client.fragment_id, client.is_auto_rerun, client.query_string) == ("f1", True, "code=X")
    whole = BackMsg()
    whole.ParseFromString(protocol.rerun_msg([], page_hash="h"))
    assert (whole.rerun_script.fragment_id, whole.rerun_script.is_auto_rerun) == ("", False)


def test_full_runs_and_fragment_runs_are_told_apart():
    assert protocol.full_run(run_msg("new_session", "r1"))
    assert not protocol.full_run(run_msg("script_finished", "r1", ("f1",)))
    assert protocol.run_id(run_msg("script_finished", "r9")) == "r9"
    assert not protocol.full_run(delta("markdown", body="x"))


def test_a_value_goes_with_the_next_run_and_is_dropped_when_its_widget_is_not_drawn():
    s = Session("http://127.0.0.1:1", "join", auto_rerun=True)
    seen: list[ForwardMsg] = []
    s.on_message = seen.append
    pills = delta("button_group", id="$$ID-1-join_guess_ABCDEF_2")
    pills.delta.new_element.button_group.options.add(content="previous token")
    for msg in (
        run_msg("new_session", "r1"),
        pills,
        auto_rerun("f1"),
        run_msg("script_finished", "r1"),
    ):
        s._note(msg)
    assert s.drawn == {"join_guess_ABCDEF_2"} and s.timers.next_due() is not None
    assert s.unfinished_for() == 0.0  # the page's run finished
    s.stage("join_guess_ABCDEF_2", "previous token")
    assert [w.id for w in s._current_states()] == ["$$ID-1-join_guess_ABCDEF_2"]
    for msg in (run_msg("new_session", "r2", ("f1",)), run_msg("script_finished", "r2", ("f1",))):
        s._note(msg)  # a fragment's run draws nothing: the value stays
    assert len(s._current_states()) == 1
    s._note(run_msg("new_session", "r3"))
    assert s.unfinished_for() > 0 and s.timers.next_due() is None  # running, timers cleared
    s._note(run_msg("script_finished", "r3"))  # the page's run without the pills
    assert s.drawn == frozenset() and s._current_states() == []
    assert len(seen) == 8  # every message went to on_message


# ---------------------------------------------------------------- waits and the table


def outcome(shown: list[list[tuple[int, float]]], sent: int = 8, stored: int = 8) -> LiveOutcome:
    moves = [Move(1, 2, 10.0, 10.1), Move(2, 3, 20.0, 20.1)]
    return LiveOutcome(
        samples=[Sample("student", "answer", 0.05)],
        moves=moves,
        shown=shown,
        students=len(shown),
        answers_sent=sent,
        answers_saved=sent,
        answers_stored=stored,
        idle_seconds=20.0,
        idle_cpu_s=3.0,
    )


def test_each_move_is_timed_from_the_click_and_from_the_teachers_run():
    shown = [[(1, 5.0), (2, 10.5), (3, 21.0)], [(1, 5.0), (2, 12.0), (3, 20.05)]]
    got = [x for pair in waits(outcome(shown).moves, shown) for x in pair]
    assert got == pytest.approx([0.5, 0.4, 2.0, 1.9, 1.0, 0.9, 0.05, -0.05])
    missed = waits(outcome(shown).moves, [[(1, 5.0), (3, 21.0)]])  # never showed step 2
    assert math.isinf(missed[0][0]) and missed[1] == pytest.approx((1.0, 0.9))


def test_the_live_row_reports_the_floors():
    good = [[(2, 10.5), (3, 21.0)], [(2, 11.0), (3, 20.5)]]
    run = Run("live-class", 2, outcome(good), {}, 60.0)
    figures = live_figures(run.outcome)
    assert figures["max"] == pytest.approx(1.0) and figures["cpu_per_s"] == pytest.approx(0.15)
    assert figures["cpu_per_follower_ms"] == pytest.approx(75.0)
    row = live_row(run, moves_planned=2)
    assert (row["shown"], row["max"], row["met"], row["followed"]) == ("4/4", "1,000", "met", 2)
    assert row["answers"] == "8 / 8 / 8"
    lost = live_row(Run("live-class", 2, outcome(good, stored=7), {}, 60.0), moves_planned=2)
    assert lost["met"] == "missed"
    slow = [[(2, 13.5), (3, 21.0)], [(2, 11.0), (3, 20.5)]]  # 3.5 s: over the max
    assert live_row(Run("live-class", 1, outcome(slow), {}, 60.0), moves_planned=2)["met"] == (
        "missed"
    )
    never = [[(3, 21.0)], [(2, 11.0), (3, 20.5)]]
    row = live_row(Run("live-class", 1, outcome(never), {}, 60.0), moves_planned=2)
    assert (row["shown"], row["max"], row["met"]) == ("3/4", "never", "missed")
    assert row["followed"] == 1


def test_the_live_class_has_a_table_of_its_own():
    server = {"cpu_percent": 40.0, "rss_start_mb": 600.0, "rss_end_mb": 610.0}
    server |= {"rss_peak_mb": 620.0, "tracebacks": 0}
    run = Run("live-class", 1, outcome([[(2, 10.5), (3, 21.0)]]), server, 60.0)
    text = table([run], "a note")
    assert text.startswith("a note\n\nLive class:\n")
    assert "| replicas | joined | followed all | moves | pages shown | p50 ms |" in text
    assert "| 1 | 1/1 | 1 | 2/10 | 2/10 | 750 | " in text
    assert "the slowest page per move (s, moves 1-2): 0.50, 1.00" in text
    assert "| scenario |" not in text  # no other scenario ran


def test_live_class_sizes():
    args = parse_load_args(["--scenario", "live-class"])
    assert (args.sessions, args.replicas, args.idle, args.think) == (60, [1, 2], 20.0, (0.5, 3.0))
    quick = parse_load_args(["--scenario", "live-class", "--quick"])
    assert quick.sessions == 6 and quick.idle < 20 and quick.replicas == [1, 2]
    other = parse_load_args(["--scenario", "burst"])
    assert (other.sessions, other.replicas) == (30, [1])
    with pytest.raises(SystemExit):
        parse_load_args(["--scenario", "live-class", "--idle", "100000"])


def test_a_reconnection_keeps_the_browsers_cookies_and_does_not_load_the_page_again():
    """After a lost websocket the page's own script asks the health checks and opens a websocket
    again, with the browser's cookies (the proxy's affinity); it does not load the HTML again."""
    seen: list[tuple[str, str]] = []

    class Server(BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append((self.path, self.headers.get("Cookie") or ""))
            self.send_response(200)
            if self.path == "/":
                self.send_header("Set-Cookie", "atlas_replica=r1; Path=/")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        page = Session(base, "join", "code=BCDFGH&me=x", timeout=5)
        with pytest.raises(InvalidHandshake):  # no websocket here
            in_own_thread(asyncio.run, page.open())
        opened = [
            "/_stcore/health",
            "/_stcore/host-config",
            "/_stcore/stream",
        ]  # then the websocket
        assert [path for path, _ in seen] == ["/", *opened]
        seen.clear()
        again = page.reconnection()
        assert (again.base, again.page, again.query) == (base, "join", "code=BCDFGH&me=x")
        with pytest.raises(InvalidHandshake):
            in_own_thread(asyncio.run, again.open())
        assert [path for path, _ in seen] == opened
        assert all("atlas_replica=r1" in cookie for _, cookie in seen)
    finally:
        server.shutdown()


# ---------------------------------------------------------------- a small class, served


@pytest.mark.checkpoints  # serves the app on its shipped models
def test_a_small_live_class_follows_every_move_and_keeps_every_answer(tmp_path: Path):
    # its own process, as `make load` runs it; one process, no proxy; a fresh class store
    args = ["--scenario", "live-class", "--quick", "--sessions", "4", "--replicas", "1"]
    args += ["--idle", "2", "--think", "0.1,0.5", "--out", str(tmp_path)]
    env = {k: v for k, v in os.environ.items() if k not in ("ATLAS_CLASS_DB", "ATLAS_CLASS_DIR")}
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Live class:" in done.stdout
    assert "| 1 | 4/4 | 4 | 10/10 | 40/40 |" in done.stdout  # every student showed every move
    (written,) = tmp_path.glob("load-*.json")
    (data,) = json.loads(written.read_text())
    assert data["scenario"] == "live-class" and data["students"] == 4
    assert [m["step"] for m in data["moves"]] == plan_steps()
    assert not [s for s in data["samples"] if s["error"]]
    assert data["answers_sent"] == data["answers_saved"] == data["answers_stored"] == 4 * 4
    moves = [Move(**m) for m in data["moves"]]
    pairs = waits(moves, [[tuple(p) for p in shown] for shown in data["shown"]])
    assert len(pairs) == 40 and all(0 < a < 30 for a, _ in pairs)
    assert data["fragment_reruns"] == 0  # no timer: the pages listen to the class's stream
    assert data["events"] >= 4 * 10 and data["streams_refused"] == 0  # every move, to each
    assert data["idle_cpu_s"] >= 0 and data["tracebacks"] == 0
