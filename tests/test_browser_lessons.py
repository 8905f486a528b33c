"""A lesson in real Chromium, moved by the presenter's keys alone (→ PageDown Space forward,
← PageUp back), a question answered from the keyboard and revealed, in English and Chinese; the
answer's chart is not on the page before the reveal."""

from __future__ import annotations

import pytest

from tests.browser_helpers import wait_still

pytestmark = pytest.mark.browser


def _at_step(page, step: int) -> None:
    page.wait_for_function(f"new URLSearchParams(location.search).get('step') === '{step}'")
    page.locator("[data-testid=stButton]").first.wait_for()


def _ready(page) -> None:
    page.locator("[data-testid=stMainBlockContainer]").wait_for()
    page.locator("[data-testid=stButton]").first.wait_for()


@pytest.mark.parametrize(
    ("lang", "reveal", "guess"),
    [("en", None, "black"), ("zh", None, "dog")],
)
def test_a_lesson_by_keyboard_with_a_prediction(page, app_url, screenshots, lang, reveal, guess):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.set_default_timeout(45_000)
    page.goto(f"{app_url}/lessons?lesson=bahdanau&step=1&classroom=true&lang={lang}")
    _ready(page)
    page.locator(".js-plotly-plot, [data-testid=stPlotlyChart]").first.wait_for()
    page.mouse.click(5, 400)  # the page has the focus, no box
    page.keyboard.press("ArrowRight")
    _at_step(page, 2)
    pill = page.locator("[data-testid=stButtonGroup] button").filter(
        has=page.get_by_text(guess, exact=True)
    )
    pill.wait_for()
    assert page.locator(".js-plotly-plot").count() == 0  # the answer is not drawn yet
    if lang == "en":
        page.screenshot(path=str(screenshots / "lessons-question.png"))
    pill.focus()
    page.keyboard.press("Enter")  # pick the guess
    commit = page.locator("[data-testid=stBaseButton-primary]").filter(has_not_text="→").last
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stBaseButton-primary]')]"
        ".some(b => !b.disabled && !b.textContent.includes('→'))"
    )
    commit.focus()
    page.keyboard.press("Enter")  # commit: the reveal
    page.locator(".js-plotly-plot").first.wait_for()
    page.locator(
        "[data-testid=stAlertContentSuccess], [data-testid=stAlertContentInfo]"
    ).first.wait_for()
    if lang == "en":
        wait_still(page)
        page.screenshot(path=str(screenshots / "lessons-reveal.png"))
    page.mouse.click(5, 700)
    page.keyboard.press("PageDown")
    _at_step(page, 3)
    page.keyboard.press(" ")
    _at_step(page, 4)
    page.keyboard.press("PageUp")
    _at_step(page, 3)
    page.keyboard.press("ArrowLeft")
    _at_step(page, 2)
    # the guess was kept: step 2 shows its reveal again, not the question
    page.locator(".js-plotly-plot").first.wait_for()
    for step in range(3, 8):
        page.keyboard.press("ArrowRight")
        _at_step(page, step)
    page.locator("[data-testid=stTable]").wait_for()  # the summary of the predictions


OWN_LESSON = """
id = "mine"
title = "My <b>own</b> lesson"
summary = "Written by a teacher."

[[step]]
title = "One row"
text = "Where does **noir** look? <script>alert(1)</script>"
view = "alignment"
sentence = "A black cat."
"""


def test_a_teachers_own_lesson_is_uploaded_checked_and_shown_as_text(page, app_url, tmp_path):
    page.set_default_timeout(45_000)
    frames: list[tuple[str, int]] = []  # the websocket's frames, for a failure's message
    page.on(
        "websocket",
        lambda ws: (
            ws.on("framesent", lambda f: frames.append(("sent", len(f)))),
            ws.on("framereceived", lambda f: frames.append(("received", len(f)))),
            ws.on("close", lambda _ws: frames.append(("closed", 0))),
        ),
    )
    page.goto(f"{app_url}/lessons")
    page.get_by_text("Your own lesson").click()
    broken = tmp_path / "broken.toml"
    broken.write_text(OWN_LESSON.replace('view = "alignment"', 'view = "nowhere"'))
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(str(broken))
    error = page.locator("[data-testid=stAlertContentError]").filter(has_text="broken.toml")
    error.wait_for()
    assert "nowhere" in error.inner_text() and "step 1" in error.inner_text()
    own = tmp_path / "mine.toml"
    own.write_text(OWN_LESSON)
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(str(own))
    page.locator("[data-testid=stAlertContentSuccess]").wait_for()
    page.get_by_text("My <b>own</b> lesson", exact=False).first.wait_for()  # shown literally
    page.locator(".st-key-les_start_mine button").click()  # its own card in the list
    page.wait_for_function("new URLSearchParams(location.search).get('lesson') === 'mine'")
    page.locator(".js-plotly-plot").first.wait_for()
    page.get_by_text("<script>alert(1)</script>", exact=False).wait_for()  # text, not a tag
    assert page.locator("script:text('alert(1)')").count() == 0
    page.reload()  # a new session: the browser keeps the lesson, checked again
    page.locator(".js-plotly-plot").first.wait_for()
    page.get_by_text("<script>alert(1)</script>", exact=False).wait_for()
    page.goto(f"{app_url}/lessons")
    page.locator(".st-key-les_start_mine button").wait_for()
    wait_still(page)  # the rerun that read the lesson back has finished: its buttons stay put
    page.get_by_text("Your own lesson").click()
    before = len(frames)
    page.locator(".st-key-les_remove_mine button").click()
    # two waits, so that a failure says which part did not happen: the server ran the click
    # (its own button went), then the list lost the lesson's card
    try:
        page.locator(".st-key-les_remove_mine").wait_for(state="detached")
    except Exception as exc:  # what the websocket carried after the click says where it stopped
        raise AssertionError(
            f"Remove did not run; websocket after the click: {frames[before:][:40]}"
        ) from exc
    page.locator(".st-key-les_start_mine").wait_for(state="detached")
    page.reload()  # removed from this browser too
    page.locator(".st-key-les_start_bahdanau button").wait_for()
    page.wait_for_timeout(1_000)  # time for a saved lesson to come back, were there one
    assert page.locator(".st-key-les_start_mine").count() == 0
