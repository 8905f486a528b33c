"""A live class by keyboard and screen reader, read through the accessibility tree (ARIA roles):
a student on a phone joins with the keyboard alone, hears the teacher's move and the reveal in
the polite live region, answers with Tab and Enter, and reads the model's answer and the
class's split as text; both pages pass the accessibility judge (tests/accessibility.py)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.accessibility import access_problems
from tests.browser_helpers import wait_still

pytestmark = pytest.mark.browser
FOLLOW_MS = 20_000  # a student's page follows the teacher within this (a busy machine)


def tab_to(page, target, limit: int = 80) -> None:
    """Press Tab until ``target`` (a locator) has the keyboard's focus."""
    for _ in range(limit):
        if target.evaluate("e => e === document.activeElement"):
            return
        page.keyboard.press("Tab")
    pytest.fail(f"the keyboard never reached {target}")


def _said(page, text: str) -> None:
    """The live region says ``text`` (a screen reader reads it out, politely)."""
    page.get_by_role("status").filter(has_text=text).wait_for(state="attached", timeout=FOLLOW_MS)


def test_a_student_takes_a_class_by_keyboard_and_hears_it(browser, app_url):
    teacher = browser.new_page(viewport={"width": 1280, "height": 720})
    student = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        teacher.goto(f"{app_url}/lessons?classroom=true&lang=en")
        teacher.locator(".st-key-live_start_bahdanau").get_by_role(
            "button", name="Start a class"
        ).first.click()
        teacher.wait_for_function("new URLSearchParams(location.search).get('class')")
        code = parse_qs(urlsplit(teacher.url).query)["class"][0]

        student.goto(f"{app_url}/join?lang=en")
        box = student.get_by_role("textbox", name="Class code")
        tab_to(student, box)
        student.keyboard.type(code)
        tab_to(student, student.get_by_role("button", name="Join"))
        student.keyboard.press("Enter")
        _said(student, "Step 1 of 6: A score for every source word")

        teacher.mouse.click(5, 700)  # the page has the focus, no box
        teacher.keyboard.press("ArrowRight")  # the presenter's key: the question
        _said(student, "Step 2 of 6: Predict one row. Make your prediction.")
        options = student.locator("[data-testid=stButtonGroup] button")
        option = options.filter(has_text=re.compile(r"^black$"))
        tab_to(student, options.first)  # the group takes one Tab; its arrows move inside it
        for _ in range(options.count()):
            if option.evaluate("e => e === document.activeElement"):
                break
            student.keyboard.press("ArrowRight")
        student.keyboard.press("Enter")
        student.get_by_text("Saved:", exact=False).wait_for(timeout=FOLLOW_MS)
        wait_still(student)
        assert access_problems(student, "en") == []

        teacher.get_by_role("button", name="Reveal the answer").click()
        _said(student, "The teacher revealed the answer.")
        student.get_by_text("Right!", exact=False).wait_for(timeout=FOLLOW_MS)
        student.get_by_text("chose the model's top choice", exact=False).wait_for()
        split = student.get_by_role("figure").filter(has_text="").first
        assert split.get_attribute("aria-label")  # the class's split: a named chart
        wait_still(student)
        wait_still(teacher)
        assert access_problems(student, "en") == []
        assert access_problems(teacher, "en") == []
    finally:
        student.close()
        teacher.close()
        browser.context.clear_cookies()  # the class this browser led is not the next test's
