"""A live class under AppTest, with the shipped models and a real SQLite store: the teacher starts
a class on a lesson, a student joins by code, follows the teacher's step, answers (saved only once
committed), changes the answer, sees the reveal; the teacher's counts, reveal, summary, CSV,
teacher link and delete; bad codes, links and keys get clear messages; nicknames stay text."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from app_pages.lessons import class_shared
from app_pages.lessons.schema import load_folder, parse_lesson
from app_pages.lessons.teacher import Lead, answers_csv
from live import attempts
from tests.app_helpers import charts, check_path, open_app

pytestmark = pytest.mark.checkpoints
LESSONS = "app_pages/lessons/lessons.py"
JOIN = "app_pages/lessons/join.py"
ROOT = Path(__file__).resolve().parents[1]


def _teacher(step: int = 1):
    at = open_app(LESSONS, {"lesson": "bahdanau", "step": str(step)})
    at.button(key="live_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    code, key = at.session_state["live_leads"]
    assert at.query_params["class"] == code and key not in str(dict(at.query_params))
    return at, code, key


def _student(code: str, name: str = ""):
    at = open_app(JOIN, {"code": code})
    at.text_input(key="join_name").input(name)
    at.button[0].click().run()  # the form's Join
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["code"] == code and at.query_params["me"]
    return at


def _text(at) -> str:
    kinds = ("markdown", "caption", "info", "success", "warning", "error")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def _go(at, step: int):
    at.query_params["step"] = str(step)
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_class_from_join_to_reveal(db, chart_path: str):
    teacher, code, key = _teacher()
    assert any(e.key == "live_hide_join" for e in teacher.button)  # the join card is up
    info = db.get_class(code)
    assert info.lesson == "bahdanau" and info.step == 1 and not info.revealed
    ann = _student(code, "Ann <b>x</b>")
    assert "Step 1 of" in _text(ann) and "student 1" in _text(ann) and "Ann" in _text(ann)
    _go(teacher, 2)  # the question: which English word does noir look at?
    assert db.get_class(code).step == 2
    ann.run()
    group = ann.button_group[0]
    words = [str(o) for o in group.options]
    assert charts(ann) == [] or all("_answer" not in (c.key or "") for c in charts(ann))
    group.set_value(words.index("dog")).run()
    me = ann.query_params["me"]
    assert db.my_answer(code, me, 2) == words.index("dog")
    assert "Saved" in _text(ann)
    ann.button_group[0].set_value(words.index("black")).run()  # changed: the last one counts
    assert db.my_answer(code, me, 2) == words.index("black")
    teacher.run()
    assert "1 of 1 answered" in _text(teacher)
    assert "black" not in "".join(json.dumps(c.figure) for c in charts(teacher))
    teacher.button(
        key=next(b.key for b in teacher.button if b.key.endswith("_class_reveal"))
    ).click()
    teacher.run()
    assert db.get_class(code).revealed
    assert "1 of 1 answers (100%) chose the model's top choice" in _text(teacher)
    ann.run()
    assert "Right!" in _text(ann)  # the student's verdict
    assert any("_spread" in (c.key or "") for c in charts(ann))
    check_path(ann, chart_path)
    assert not ann.button_group  # no guess after the reveal


def test_after_the_reveal_an_answer_is_refused_and_said_so(db):
    teacher, code, key = _teacher(2)
    bob = _student(code)
    group = bob.button_group[0]
    db.reveal(code, key)  # the teacher reveals while bob's page still shows the options
    group.set_value(0).run()
    assert db.my_answer(code, bob.query_params["me"], 2) is None
    assert "Not saved" in _text(bob) or "did not answer" in _text(bob)


def test_a_late_answers_notice_stays_with_its_question(db):
    """A "Not saved" is about the question it was sent to: at the next question the page asks
    afresh, and a pick there is saved and said so."""
    teacher, code, key = _teacher(2)
    bob = _student(code)
    db.reveal(code, key)
    bob.button_group[0].set_value(0).run()  # too late: refused, the reveal shown
    assert db.my_answer(code, bob.query_params["me"], 2) is None
    _go(teacher, 3)  # the next question (bahdanau's steps 2 and 3 ask one each)
    bob.run()
    assert bob.button_group and "Not saved" not in _text(bob)
    bob.button_group[0].set_value(0).run()
    assert db.my_answer(code, bob.query_params["me"], 3) == 0 and "Saved" in _text(bob)


def test_the_teacher_link_gives_the_controls_back_and_leaves_the_url(db):
    teacher, code, key = _teacher()
    again = open_app(LESSONS, {"lesson": "bahdanau", "step": "3", "class": code, "teacher": key})
    assert again.session_state["live_leads"] == (code, key)
    assert "teacher" not in again.query_params
    assert again.query_params["step"] == "1" and db.get_class(code).step == 1  # the class's step
    _go(again, 3)
    assert db.get_class(code).step == 3  # it leads: its step is the class's
    wrong = open_app(LESSONS, {"lesson": "bahdanau", "step": "1", "class": code, "teacher": "x"})
    assert "live_leads" not in wrong.session_state
    assert "does not open a class" in _text(wrong)
    assert db.get_class(code).step == 3  # a wrong key moved nothing


def test_bad_codes_and_links_get_messages(db):
    at = open_app(JOIN, {"code": "ab"})
    at.button[0].click().run()
    assert "6 letters" in _text(at)
    at = open_app(JOIN)
    at.text_input(key="join_code").input("zzz-zzz")
    at.button[0].click().run()
    assert "no open class with the code ZZZZZZ" in _text(at)
    teacher, code, key = _teacher()
    stale = open_app(JOIN, {"code": code, "me": "not-a-student"})
    assert "no longer belongs to an open class" in _text(stale)
    assert "me" not in stale.query_params


def test_guessing_codes_waits_longer_after_five_wrong_ones(db, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(attempts, "clock", lambda: now[0])  # the page's clock, held still
    _teacher_page, code, _key = _teacher()
    wrong = next(c for c in ("BCDFGH", "ZXWVTS") if c != code)
    at = open_app(JOIN)

    def join(typed: str) -> str:
        at.text_input(key="join_code").input(typed)
        at.button[0].click().run()
        return _text(at)

    for _ in range(4):
        assert "try again" not in join(wrong)
    assert "try again in 10 seconds" in join(wrong)  # the fifth wrong code
    assert "try again in 10 seconds" in join(code)  # even the right one waits
    assert "me" not in at.query_params and db.get_class(code).students == 0
    now[0] += 10
    assert "try again in 20 seconds" in join(wrong)  # longer after each
    now[0] += 20
    join(code)
    assert at.query_params["me"] and db.get_class(code).students == 1


def test_csv_summary_end_and_delete(db):
    teacher, code, key = _teacher(2)
    cat = _student(code, "=cmd")
    cat.button_group[0].set_value(0).run()
    db.reveal(code, key)
    lead = teacher.session_state["live_leads"]
    rows = list(csv.DictReader(io.StringIO(_csv(teacher))))
    assert len(rows) == 1 and rows[0]["student"] == "1" and rows[0]["nickname"] == "'=cmd"
    assert rows[0]["step"] == "2"
    _go(teacher, 7)  # after the last step: the class's predictions
    assert teacher.table
    teacher.button(key="live_end").click().run()
    assert db.get_class(code).ended
    cat.run()
    assert "ended the class" in _text(cat)
    teacher.button(key="live_delete").click().run()
    assert db.get_class(code) is None and "live_leads" not in teacher.session_state
    assert db.student(code, cat.query_params["me"]) is None
    cat.run()
    assert "no longer belongs" in _text(cat), lead


def _csv(at) -> str:
    store = class_shared._open()
    code, key = at.session_state["live_leads"]
    lesson = next(lesson for lesson in load_folder()[0] if lesson.id == "bahdanau")
    return answers_csv(Lead(store, code, key, store.get_class(code)), lesson)


def test_the_join_page_in_chinese(db):
    at = open_app(JOIN, first={"lang": "zh"})
    assert "输入老师展示的代码" in _text(at) and at.text_input(key="join_code").label == "课堂代码"
    at.text_input(key="join_code").input("ab")
    at.button[0].click().run()
    assert "课堂代码由 6 个字母组成" in _text(at)


def test_a_chinese_students_end_of_class_is_a_summary_not_an_aggregation(db):
    """The student's header after the last step has its own message: "Summary" as the end of a
    class, not Multi-head's "Summary" (汇总方式, the aggregation mode)."""
    teacher, code, key = _teacher()
    student = open_app(JOIN, {"code": code}, first={"lang": "zh"})
    student.button[0].click().run()
    lesson = class_shared.shipped_lessons()["bahdanau"]
    _go(teacher, len(lesson.steps) + 1)
    student.run()
    header = " ".join(c.value for c in student.caption)
    assert "总结" in header and "汇总方式" not in header, header


def test_the_class_summary_names_each_question_and_says_a_tie(db):
    """After the last step the teacher's table names what each question asked and, when the
    class split evenly, says it is a tie and lists the tied options; each student's table names
    the questions too."""
    lesson = class_shared.shipped_lessons()["bahdanau"]
    first = lesson.questions[0]
    teacher, code, key = _teacher(first + 1)
    students = [_student(code) for _n in range(3)]
    for choice, student in enumerate(students):
        student.button_group[0].set_value(choice).run()
    labels = [str(o) for o in students[0].button_group[0].options][:3]
    db.reveal(code, key)
    _go(teacher, len(lesson.steps) + 1)
    rows = teacher.table[0].value
    row = rows[rows["Step"] == first + 1].iloc[0]
    assert row["Question"].endswith(" →") and row["Answers"] == 3
    assert "tie" in row["Most chosen"] and all(label in row["Most chosen"] for label in labels)
    assert len(set(rows["Question"])) == len(rows)
    students[0].run()
    mine = students[0].table[0].value
    assert list(mine["Question"]) == list(rows["Question"])
    assert list(mine["Your guess"])[0] == labels[0]


def _in_order(node) -> list:
    """The page's elements in the order they are drawn (blocks walked depth first)."""
    children = getattr(node, "children", None)
    if not children:
        return [node]
    return [e for k in sorted(children) for e in _in_order(children[k])]


def _card_before_step(at, title: str) -> bool:
    drawn = _in_order(at.main)
    card = next(i for i, e in enumerate(drawn) if getattr(e, "key", None) == "live_hide_join")
    step = next(i for i, e in enumerate(drawn) if title in str(getattr(e, "value", "")))
    return card < step


def test_the_join_card_leaves_the_top_once_the_class_moves_on(db):
    """On a projector the join card pushed the step and its reveal below the first screen: it is
    above the step while the class gathers (the first step, before a reveal), under it after."""
    lesson = class_shared.shipped_lessons()["bahdanau"]
    teacher, code, key = _teacher()
    assert _card_before_step(teacher, lesson.steps[0].title)
    asked = lesson.questions[0] + 1
    _go(teacher, asked)
    assert not _card_before_step(teacher, lesson.steps[asked - 1].title)  # still there, under
    db.reveal(code, key)
    teacher.run()
    assert not _card_before_step(teacher, lesson.steps[asked - 1].title)


def test_a_class_starts_from_the_list_and_from_a_lessons_outline(db):
    at = open_app(LESSONS)
    at.button(key="live_start_anatomy").click().run()
    code, _key = at.session_state["live_leads"]
    assert at.query_params["lesson"] == "anatomy" and at.query_params["step"] == "1"
    assert db.get_class(code).lesson == "anatomy"
    assert not [b for b in at.button if (b.key or "").startswith("live_start")]  # one at a time


# --- the peer-instruction loop ------------------------------------------------------------------

LOOP = "les_class_bahdanau_1"  # the teacher's keys on step 2's question


def _teacher_does(at, move: str):
    at.button(key=f"{LOOP}_class_{move}").click().run()
    assert not at.exception, [e.value for e in at.exception]


def _bold_ticks(at) -> list[str]:
    return [
        t for c in charts(at) for t in c.figure["layout"]["yaxis"].get("ticktext", []) if "<b>" in t
    ]


def test_the_peer_instruction_loop(db):
    teacher, code, key = _teacher(2)
    ann, bob, cy = (_student(code, name) for name in ("Ann", "Bob", "Cy"))
    words = [str(o) for o in ann.button_group[0].options]
    best, other = words.index("black"), words.index("dog")
    for student, choice in ((ann, other), (bob, other), (cy, best)):
        student.button_group[0].set_value(choice).run()
    teacher.run()
    assert "3 of 3 answered" in _text(teacher)
    _teacher_does(teacher, "closed")
    assert db.get_class(code).stage == "closed" and "Voting is closed" in _text(teacher)
    ann.run()
    assert not ann.button_group and "Voting is closed. Your answer: **dog**" in _text(ann)
    suggestion = teacher.expander[-1]
    assert "Suggestion" in suggestion.label and "33% chose the model's answer, under 35" in _text(
        teacher
    )
    _teacher_does(teacher, "split")
    for page in (teacher, ann):
        page.run()
        assert "dog: 2 (67%)" in _text(page) and "black: 1 (33%)" in _text(page)
        assert any(c.key.endswith("_split_1") for c in charts(page))
        assert _bold_ticks(page) == []  # the split never says which is the model's
        assert all("_answer" not in (c.key or "") for c in charts(page))
    _teacher_does(teacher, "discuss")
    assert "chose **dog** (2): find someone who chose **black**" in _text(teacher)
    assert "chose **black** (1): find someone who chose **dog**" in _text(teacher)
    cy.run()
    assert "You chose **black**. Find a neighbour who chose **dog**" in _text(cy)
    _teacher_does(teacher, "second")
    assert (db.get_class(code).round, db.get_class(code).stage) == (2, "vote")
    ann.run()
    assert "Your first answer: **dog**" in _text(ann)
    assert ann.button_group[0].value is None  # a fresh vote
    ann.button_group[0].set_value(best).run()  # changed her mind
    bob.run()  # his page follows the teacher (the class's revision changed)
    bob.button_group[0].set_value(other).run()
    me = ann.query_params["me"]
    assert (db.my_answer(code, me, 2), db.my_answer(code, me, 2, 2)) == (other, best)
    teacher.run()
    assert "2 of 3 answered" in _text(teacher) and "second vote" in _text(teacher)
    _teacher_does(teacher, "reveal")
    assert {c.key for c in charts(teacher)} >= {f"{LOOP}_split_1", f"{LOOP}_split_2"}
    assert "1 of 2 students who voted twice (50%) changed to the model's answer" in _text(teacher)
    ann.run()
    shown = _text(ann)
    assert "Your first answer: **dog** · your second answer: **black**" in shown
    assert "the model's answer: **black**" in shown and "Right!" in shown
    assert "The class, first vote: " in shown and "The class, second vote: " in shown
    assert "black: 1 (50%)" in shown and any("_spread" in (c.key or "") for c in charts(ann))
    rows = list(csv.DictReader(io.StringIO(_csv(teacher))))
    by_student = {row["nickname"]: row for row in rows}
    assert len(rows) == 3
    assert (by_student["Ann"]["first_choice"], by_student["Ann"]["second_choice"]) == (
        "dog",
        "black",
    )
    assert by_student["Ann"]["choice"] == "black" and by_student["Ann"]["matched"] == "1"
    assert (by_student["Cy"]["first_choice"], by_student["Cy"]["second_choice"]) == ("black", "")


def test_a_teachers_own_lesson_is_followed_and_deleted_with_the_class(db):
    data = (ROOT / "lessons" / "01-bottleneck.toml").read_bytes()
    data = data.replace(b'id = "bottleneck"', b'id = "my-own"').replace(
        b'title = "The bottleneck: one', b'title = "Mine: one', 1
    )
    own = parse_lesson(data, "mine.toml")
    at = open_app(LESSONS)
    at.session_state["les_uploaded"] = {own.id: own}
    at.query_params["lesson"] = own.id
    at.query_params["step"] = "1"
    at.run()
    at.button(key="live_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    code, key = at.session_state["live_leads"]
    assert db.get_class(code).lesson == "my-own" and db.lesson_text(code) == own.text
    student = _student(code)
    assert "Mine\\: one vector" in _text(student)  # its own title, from the class store
    at.button(key="live_delete").click().run()
    assert db.lesson_text(code) is None and db.get_class(code) is None
