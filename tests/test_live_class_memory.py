"""A live class remembered by the browser, under AppTest (which has no browser: the cookies a
browser would send are played by replacing ``ui.browser_memory.browser_cookies``): the teacher's
controls come back in a new session (a reload, a replica that died) at the class's step and in
classroom mode, never with the key on the page or in the URL; a page showing a class it does not
lead says so; ending or deleting the class forgets it; a student who opens the join page again
is the same student with the same answers, and the class does not grow. Then two join defects: a
code with vowels is refused with the letters named, and a nickname pasted too long keeps its
first characters and says so."""

from __future__ import annotations

import pytest

from app_pages.lessons.teacher import TEACHER_COOKIE
from live.inputs import NICKNAME_CHARS
from tests.app_helpers import open_app
from ui import browser_memory

pytestmark = pytest.mark.checkpoints
LESSONS = "app_pages/lessons/lessons.py"
JOIN = "app_pages/lessons/join.py"
CLASSROOM = {"classroom": "true"}  # the projector's URL says so (the toggle is bound to it)


@pytest.fixture()
def cookies(monkeypatch) -> dict[str, str]:
    """The cookies "the browser" sends when a session opens: fill the dict, then open the app."""
    jar: dict[str, str] = {}
    monkeypatch.setattr(browser_memory, "browser_cookies", lambda: jar)
    return jar


def _written(at) -> dict:
    """What the page told the browser to remember this session (name -> value, None: cleared)."""
    return (
        dict(at.session_state[browser_memory.WRITTEN])
        if browser_memory.WRITTEN in at.session_state
        else {}
    )


def _text(at) -> str:
    kinds = ("markdown", "caption", "info", "success", "warning", "error")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def _teacher(step: int = 1):
    at = open_app(LESSONS, {"lesson": "bahdanau", "step": str(step)}, first=CLASSROOM)
    _ok(at.button(key="live_start").click().run())
    code, key = at.session_state["live_leads"]
    return at, code, key


def _projector(code: str, step: int = 1):
    """The projector's page as a reload (or the other replica) opens it: its URL, a new session."""
    params = {"lesson": "bahdanau", "step": str(step), "class": code}
    return open_app(LESSONS, params, first=CLASSROOM)


def test_the_teachers_browser_brings_the_controls_back(db, cookies):
    teacher, code, key = _teacher()
    assert _written(teacher)[TEACHER_COOKIE] == f"{code}.{key}"
    db.set_step(code, key, 2)  # the class moved on before the page was lost
    cookies[TEACHER_COOKIE] = f"{code}.{key}"
    back = _projector(code, 1)
    assert back.session_state["live_leads"] == (code, key)
    assert back.query_params["step"] == "2" and db.get_class(code).step == 2  # the class's step
    assert back.session_state["classroom"] is True  # still the projector's mode
    assert any((b.key or "").endswith("_class_reveal") for b in back.button)  # the controls
    assert key not in _text(back) and key not in str(dict(back.query_params))
    assert "not the teacher" not in _text(back)
    assert TEACHER_COOKIE not in _written(back)  # the browser holds it: not sent again


def test_a_page_that_does_not_lead_the_class_says_so(db, cookies):
    teacher, code, key = _teacher()
    other = _projector(code)  # another browser: no cookie
    assert "live_leads" not in other.session_state
    assert f"This browser is not the teacher of class {code}" in str(
        [w.value for w in other.warning]
    )
    cookies[TEACHER_COOKIE] = f"{code}.not-the-key"  # a cookie with a wrong key: no controls
    wrong = _projector(code)
    assert "live_leads" not in wrong.session_state
    assert _written(wrong)[TEACHER_COOKIE] is None  # forgotten
    assert "not the teacher" in _text(wrong)


def test_ending_and_deleting_the_class_forget_it(db, cookies):
    teacher, code, key = _teacher()
    _ok(teacher.button(key="live_end").click().run())
    assert _written(teacher)[TEACHER_COOKIE] is None
    cookies[TEACHER_COOKIE] = f"{code}.{key}"  # a cookie the browser kept: the class ended
    later = _projector(code)
    assert "live_leads" not in later.session_state and "has ended" in _text(later)
    again, code2, key2 = _teacher()
    _ok(again.button(key="live_delete").click().run())
    assert db.get_class(code2) is None
    assert _written(again)[TEACHER_COOKIE] is None


def test_a_student_who_opens_the_join_page_again_is_the_same_student(db, cookies):
    teacher, code, key = _teacher(2)
    ann = open_app(JOIN, {"code": code})
    ann.text_input(key="join_name").input("Ann")
    _ok(ann.button[0].click().run())
    me = ann.query_params["me"]
    assert _written(ann)["atlas_student_" + code] == me
    ann.button_group[0].set_value(1).run()
    assert db.my_answer(code, me, 2) == 1
    cookies["atlas_student_" + code] = me
    rescanned = _ok(open_app(JOIN, {"code": code}))  # the QR code again: no `me` in the link
    assert rescanned.query_params["me"] == me and "student 1" in _text(rescanned)
    assert "Saved" in _text(rescanned)  # with the answer
    assert "atlas_student_" + code not in _written(rescanned)  # the browser holds it already
    typed = _ok(open_app(JOIN))  # the bare join page, the code typed, Join pressed again
    typed.text_input(key="join_code").input(code)
    typed.text_input(key="join_name").input("Ann again")
    _ok(typed.button[0].click().run())
    assert typed.query_params["me"] == me
    assert db.get_class(code).students == 1  # the projector's count did not grow
    cookies.clear()  # another browser: a new student
    _ok(open_app(JOIN, {"code": code}).button[0].click().run())
    assert db.get_class(code).students == 2


def test_a_code_with_vowels_names_them():
    at = open_app(JOIN)
    at.text_input(key="join_code").input("AEIOUX")
    at.button[0].click().run()
    error = str([e.value for e in at.error])
    assert "no vowels" in error and "A, E, I, O, U cannot be in one" in error


def test_a_long_nickname_keeps_its_first_characters(db):
    teacher, code, key = _teacher()
    name = "Alexandra-Konstantinopoulou the Third"
    at = open_app(JOIN, {"code": code})
    at.text_input(key="join_name").input(name)  # refused whole with max_chars, as the browser did
    _ok(at.button[0].click().run())
    student = db.student(code, at.query_params["me"])
    assert student.nickname == name[:NICKNAME_CHARS]
    assert f"at most {NICKNAME_CHARS} characters" in _text(at)
