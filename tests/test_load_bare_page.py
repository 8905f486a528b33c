"""The stack's floor of ``make load SCENARIO=lecture-hall LOAD_ARGS=--bare``
(``bench/load/bare_join.py``), under AppTest with the shipped models and a real SQLite store: the
bare page joins, shows what the load harness reads on the atlas's join page (the caption with the
step, the question's options under the same key, "Saved" once the store holds the pick, the pick
against the model's answer after the reveal), and nothing else (no text of the step, no chart)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from bench.load.__main__ import parse_load_args
from bench.load.live_students import CAPTION, SAVED, guess_key
from tests.app_helpers import charts, open_app

pytestmark = pytest.mark.checkpoints
BARE = str(Path(__file__).resolve().parents[1] / "bench" / "load" / "bare_app.py")  # bare_join.py
LESSONS = "app_pages/lessons/lessons.py"
ATLAS_JOIN = "app_pages/lessons/join.py"


def _bare(params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(BARE, default_timeout=60)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def _joined(script: str, code: str):
    at = _bare({"code": code}) if script == BARE else open_app(script, {"code": code})
    at.text_input(key="join_name").input("Ann")
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["me"]
    return at


def _said(at) -> list[str]:
    return [str(e.value) for kind in ("caption", "success") for e in at.get(kind)]


def test_the_bare_page_shows_what_the_harness_reads_and_nothing_more(db):
    teacher = open_app(LESSONS, {"lesson": "bahdanau", "step": "2"})
    teacher.button(key="live_start").click().run()
    code, key = teacher.session_state["live_leads"]
    bare, atlas = _joined(BARE, code), _joined(ATLAS_JOIN, code)
    step = [int(m.group(2)) for m in map(CAPTION.match, _said(bare)) if m]
    assert step == [2]  # the harness's reading of the caption
    pills = bare.button_group(key=guess_key(code, 2))
    assert pills.options == atlas.button_group(key=guess_key(code, 2)).options
    assert not bare.markdown and charts(bare) == []  # no text of the step, no chart
    assert not any(SAVED.match(text) for text in _said(bare))
    pills.set_value(1).run()
    assert db.my_answer(code, bare.query_params["me"], 2) == 1
    assert any(SAVED.match(text) for text in _said(bare))
    db.reveal(code, key)
    bare.run()
    assert any(text.startswith("You chose") for text in _said(bare))  # and the model's answer
    assert not bare.button_group


def test_the_warm_up_poses_the_lesson_and_draws_nothing(db):
    at = _bare({"warm": "bahdanau"})
    assert not at.exception and not at.text_input and not at.caption


def test_bare_is_for_the_lecture_hall_on_replicas_it_starts():
    assert parse_load_args(["--scenario", "lecture-hall", "--bare"]).bare
    with pytest.raises(SystemExit):
        parse_load_args(["--scenario", "live-class", "--bare"])
    with pytest.raises(SystemExit):
        parse_load_args(["--scenario", "lecture-hall", "--bare", "--url", "http://127.0.0.1:1"])
