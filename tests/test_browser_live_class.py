"""A live class in real Chromium, served as a class is: two app processes behind nginx sharing one
class store. A teacher at a projector (1280x720, classroom mode) and three students (one on a
phone, 390x844) go through a lesson with two questions: join by code, follow the teacher's step,
answer, reveal with the right spread. Then the replica that serves them is killed (SIGKILL)
mid-question: every saved answer is still in the store, the students' pages come back on the
other replica as the same students with their answers, and the teacher takes the controls back
with the saved teacher link and goes on from the same step."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from deploy import serve_class
from live.store import open_store
from tests.browser_helpers import wait_still
from tests.legibility import check_page
from tests.requirements_env import need

pytestmark = pytest.mark.browser
FOLLOW_S = 15_000  # ms a page may take to follow: the polling is 1 s, the machine may be busy
GUESSES = ("black", "black", "dog")  # the three students' guesses at "noir"
SECOND = ("grass", "green", "green")  # and at "verte" (step 3)


def _established(port: int) -> int:
    """Connections established to 127.0.0.1:``port`` (from /proc/net/tcp): who a replica serves."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        if state == "01" and int(local.split(":")[1], 16) == port:
            count += 1
    return count


@pytest.fixture()
def served(tmp_path, monkeypatch):
    try:
        serve_class.nginx_binary()
    except FileNotFoundError as exc:
        need(False, str(exc))
    monkeypatch.setenv("ATLAS_CLASS_DIR", str(tmp_path / "classes"))
    with serve_class.serve_class(2, run_dir=tmp_path / "run") as running:
        yield running


def _step(page, step: int) -> None:
    page.wait_for_function(f"new URLSearchParams(location.search).get('step') === '{step}'")


def _answer(page, word: str) -> None:
    """One click on the answer ``word``; the page says it is saved. (A student's page that went
    blank after an answer was Streamlit's fragment race, mended in ui.errors.fragment.)"""
    page.locator("[data-testid=stButtonGroup] button").filter(has_text=word).first.click()
    page.get_by_text("Saved:", exact=False).wait_for(timeout=FOLLOW_S)


def _next(teacher, step: int) -> None:
    teacher.mouse.click(5, 700)  # the page has the focus, no box
    teacher.keyboard.press("ArrowRight")
    _step(teacher, step)


def test_a_class_across_two_replicas_survives_losing_one(served, browser, screenshots):
    teacher = browser.new_page(viewport={"width": 1280, "height": 720})
    teacher.set_default_timeout(60_000)
    teacher.goto(f"{served.url}/lessons?classroom=true")  # the list: a class on a lesson
    teacher.locator(".st-key-live_start_bahdanau").get_by_role(
        "button", name="Start a class"
    ).first.click()
    teacher.wait_for_function("new URLSearchParams(location.search).get('class')")
    code = teacher.evaluate("new URLSearchParams(location.search).get('class')")
    teacher.get_by_text(f"{code[:3]} {code[3:]}").wait_for()  # large, for the room to read
    teacher.locator("[data-testid=stImage] img").first.wait_for()  # the QR code
    teacher.get_by_role("button", name=f"Class {code}").click()
    with teacher.expect_download() as saved:
        teacher.get_by_role("button", name="Save the teacher link").click()
    link = Path(saved.value.path()).read_text().strip()
    key = link.split("teacher=")[1]
    assert key not in teacher.content()  # never on the projector
    teacher.keyboard.press("Escape")

    students = []
    for i, name in enumerate(("Ann", "<b>Bo</b>", "")):
        size = {"width": 390, "height": 844} if i == 0 else {"width": 1280, "height": 800}
        student = browser.new_page(viewport=size)
        student.set_default_timeout(60_000)
        student.goto(f"{served.url}/join?code={code}")
        student.get_by_label("Nickname (optional)").fill(name)
        student.get_by_role("button", name="Join").click()
        student.get_by_text("Step 1 of 6").wait_for()
        students.append(student)
    assert students[1].get_by_text("<b>Bo</b>", exact=False).count() == 1  # text, not a tag
    assert students[1].locator("b:text-is('Bo')").count() == 0

    teacher.get_by_text("3 joined", exact=False).wait_for(timeout=FOLLOW_S)
    teacher.screenshot(path=str(screenshots / "class-join.png"))
    teacher.get_by_role("button", name="Hide the join code").click()
    teacher.get_by_role("button", name="Hide the join code").wait_for(state="detached")
    wait_still(teacher)
    chart = teacher.locator(".js-plotly-plot").first.bounding_box()  # the step's heatmap
    assert chart["y"] >= 0 and chart["y"] + chart["height"] <= 720, chart  # whole, first screen
    _next(teacher, 2)  # the first question: where does "noir" look?
    for student, word in zip(students, GUESSES, strict=True):
        student.get_by_text("Step 2 of 6").wait_for(timeout=FOLLOW_S)
        wait_still(student)  # step 1's chart gone with the rerun that brought step 2
        assert student.locator(".js-plotly-plot").count() == 0  # no answer before the reveal
        _answer(student, word)
    teacher.get_by_text("3 of 3 answered").wait_for(timeout=FOLLOW_S)
    teacher.get_by_role("button", name="Reveal the answer").click()
    teacher.get_by_text("2 of 3 answers (67%) chose the model's top choice").wait_for()
    wait_still(teacher)
    teacher.screenshot(path=str(screenshots / "class-reveal.png"))
    assert not check_page(teacher, classroom=True)  # the spread, legible at the projector
    students[0].get_by_text("Right!", exact=False).wait_for(timeout=FOLLOW_S)
    wait_still(students[0])
    students[0].screenshot(path=str(screenshots / "class-student.png"))
    assert not check_page(students[0], classroom=False)  # and on the phone
    students[2].get_by_text("Not quite.", exact=False).wait_for(timeout=FOLLOW_S)

    _next(teacher, 3)  # the second question
    for student, word in zip(students, SECOND, strict=True):
        student.get_by_text("Step 3 of 6").wait_for(timeout=FOLLOW_S)
        _answer(student, word)

    ports = [int(url.rsplit(":", 1)[1]) for url in served.replica_urls]
    serving = max(range(2), key=lambda i: _established(ports[i]))
    assert _established(ports[serving]) > 0
    os.kill(served.pids[serving], signal.SIGKILL)  # the replica dies mid-question
    store = open_store()
    try:
        assert store.tally(code, 2).answered == 3 and store.tally(code, 3).answered == 3
        assert store.get_class(code).step == 3
    finally:
        store.close()

    teacher.goto(link)  # saved at step 1: the class's own step comes back
    _step(teacher, 3)
    assert "teacher" not in teacher.url  # the key left the address bar
    teacher.get_by_role("button", name="Reveal the answer").click()
    teacher.get_by_text("of 3 answers", exact=False).wait_for()
    for student, word in zip(students, SECOND, strict=True):  # live again, the same students
        student.get_by_text("Again the adjective", exact=False).wait_for(timeout=FOLLOW_S)
        student.get_by_text(f"You chose {word}", exact=False).wait_for()
    for page in (teacher, *students):
        page.close()
