"""The peer-instruction loop in real Chromium, served as a class is (two app processes behind nginx
sharing one class store, the fixture of tests/test_browser_live_class.py): a teacher at a
projector (classroom mode, through nginx) and three students, one on each replica directly and
one through nginx, so that the teacher's moves reach pages served by both processes. The class
votes alone on where "noir" looks, the teacher closes the vote, shows the split, starts a
discussion round (each phone names the group to talk to), opens a second vote and reveals: the
projector shows both splits side by side and the share that changed to the model's answer, each
phone the student's two answers, the model's and the class's split in words and as a chart."""

from __future__ import annotations

import pytest

from live.store import open_store
from tests import test_browser_live_class as live_class
from tests.browser_helpers import wait_still
from tests.test_browser_live_class import FOLLOW_S, _answer, _next, _remembered

# the live class test's fixtures: two replicas behind nginx; the browser without remembered classes
class_served, class_memory = live_class.served, live_class.browser_memory

pytestmark = pytest.mark.browser
FIRST = ("dog", "dog", "black")  # alone: a third chose the model's answer (black)
SECOND = ("black", "dog", "black")  # after the discussion: Ann changed to it


def _button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def _on_every(students, text: str) -> None:
    for student in students:
        student.get_by_text(text, exact=False).first.wait_for(timeout=FOLLOW_S)


def test_vote_split_discussion_revote_reveal_across_two_replicas(
    class_served, browser, class_memory, screenshots
):
    served, _said = class_served
    teacher = browser.new_page(viewport={"width": 1280, "height": 720})
    teacher.set_default_timeout(60_000)
    teacher.goto(f"{served.url}/lessons?classroom=true")
    teacher.locator(".st-key-live_start_bahdanau").get_by_role(
        "button", name="Start a class"
    ).first.click()
    teacher.wait_for_function("new URLSearchParams(location.search).get('class')")
    code = teacher.evaluate("new URLSearchParams(location.search).get('class')")

    students = []
    cookie = f"atlas_student_{code}"
    # one student on each replica directly, one through nginx
    for name, url in zip(("Ann", "Bo", "Cy"), (*served.replica_urls, served.url), strict=True):
        student = browser.new_page(viewport={"width": 390, "height": 844})
        student.set_default_timeout(60_000)
        student.goto(f"{url}/join?code={code}")
        student.get_by_label("Nickname (optional)").fill(name)
        student.get_by_role("button", name="Join").click()
        student.get_by_text("Step 1 of 6").first.wait_for()
        me = student.evaluate("new URLSearchParams(location.search).get('me')")
        assert _remembered(class_memory, cookie) == me  # written: now cleared for the next
        class_memory.clear_cookies(name=cookie)  # student, as if on another device
        students.append(student)
    teacher.get_by_text("3 joined", exact=False).wait_for(timeout=FOLLOW_S)
    _button(teacher, "Hide the join code").click()
    _next(teacher, 2)  # where does "noir" look?

    _on_every(students, "Step 2 of 6")
    for student, word in zip(students, FIRST, strict=True):
        wait_still(student)
        _answer(student, word)
    teacher.get_by_text("3 of 3 answered").wait_for(timeout=FOLLOW_S)

    _button(teacher, "Close voting").click()
    _on_every(students, "Voting is closed.")
    assert students[0].locator("[data-testid=stButtonGroup]").count() == 0  # no more voting
    teacher.get_by_text("Suggestion for the next move", exact=False).click()
    teacher.get_by_text("33% chose the model's answer, under 35 %", exact=False).wait_for()

    _button(teacher, "Show the split").click()
    teacher.get_by_text("dog: 2 (67%)", exact=False).wait_for()
    _on_every(students, "dog: 2 (67%)")
    wait_still(students[0])
    assert students[0].locator(".js-plotly-plot").count() == 1  # the split, and no answer
    assert students[0].get_by_text("Right!", exact=False).count() == 0

    _button(teacher, "Start a discussion").click()
    teacher.get_by_text("chose dog (2): find someone who chose black").wait_for()
    teacher.get_by_text("chose black (1): find someone who chose dog").wait_for()
    students[0].get_by_text(
        "You chose dog. Find a neighbour who chose black", exact=False
    ).wait_for(timeout=FOLLOW_S)
    students[2].get_by_text(
        "You chose black. Find a neighbour who chose dog", exact=False
    ).wait_for(timeout=FOLLOW_S)

    _button(teacher, "Second vote").click()
    for student, first, word in zip(students, FIRST, SECOND, strict=True):
        student.get_by_text(f"Second vote. Your first answer: {first}.", exact=False).wait_for(
            timeout=FOLLOW_S
        )
        wait_still(student)
        _answer(student, word)
    teacher.get_by_text("3 of 3 answered · second vote").wait_for(timeout=FOLLOW_S)

    _button(teacher, "Reveal the answer").click()
    teacher.get_by_text(
        "1 of 3 students who voted twice (33%) changed to the model's answer", exact=False
    ).wait_for()
    teacher.get_by_text("1 of 3 answers (33%) chose the model's top choice").wait_for()
    teacher.get_by_text("2 of 3 answers (67%) chose the model's top choice").wait_for()
    wait_still(teacher)
    assert teacher.locator(".js-plotly-plot").count() >= 2  # both splits side by side
    first_box, second_box = (
        teacher.locator(".js-plotly-plot").nth(i).bounding_box() for i in range(2)
    )
    assert first_box["x"] + first_box["width"] <= second_box["x"] + 1  # beside, not under
    teacher.screenshot(path=str(screenshots / "class-peer-reveal.png"))

    ann = students[0]
    ann.get_by_text(
        "Your first answer: dog · your second answer: black · the model's answer: black",
        exact=False,
    ).wait_for(timeout=FOLLOW_S)
    ann.get_by_text("Right!", exact=False).wait_for()
    ann.get_by_text("The class, first vote: ", exact=False).wait_for()
    ann.get_by_text("The class, second vote: ", exact=False).wait_for()
    wait_still(ann)
    assert ann.locator(".js-plotly-plot").count() >= 1  # the split as a chart too
    ann.screenshot(path=str(screenshots / "class-peer-student.png"))
    students[1].get_by_text("your second answer: dog", exact=False).wait_for(timeout=FOLLOW_S)

    store = open_store()
    try:
        assert store.tally(code, 2).answered == 3  # each counted once per vote
        assert store.tally(code, 2, 2).answered == 3
        assert len(store.both_votes(code, 2)) == 3
    finally:
        store.close()
    for page in (teacher, *students):
        page.close()
