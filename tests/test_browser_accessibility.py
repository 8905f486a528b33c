"""The accessibility judge (tests/accessibility.py) itself, and a chart read by keyboard and
screen reader: a broken page fails each check (low contrast, an image without a text
alternative, a chart without a name or summary, the wrong language); a good one passes; on the
Alignment page the heatmap is a named figure with its rows in words, and its numbers open as a
real table from the keyboard alone (read through the accessibility tree, by ARIA roles)."""

from __future__ import annotations

import pytest

from tests.accessibility import access_problems, chart_problems

pytestmark = pytest.mark.browser
GOOD = """<html lang="en"><head><title>Good</title></head><body><main><h1>Title</h1>
<p style="color:#0e1117">Readable text.</p>
<div class="atlas-plotly" role="figure" aria-label="A map" aria-describedby="s">
  <p id="s">Its rows in words.</p><button class="atlas-numbers-button">Numbers</button></div>
</main></body></html>"""


@pytest.fixture
def blank(browser):
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    try:
        yield context.new_page()
    finally:
        context.close()


def test_the_judge_passes_a_good_page(blank):
    blank.set_content(GOOD)
    assert access_problems(blank, "en") == []


@pytest.mark.parametrize(
    ("change", "found"),
    [
        (('style="color:#0e1117"', 'style="color:#9a9a9a"'), "color-contrast"),
        (("<h1>Title</h1>", '<h1>Title</h1><img src="data:,">'), "image-alt"),
        (('aria-describedby="s"', ""), "lacks a summary"),
        (('role="figure" aria-label="A map"', ""), "lacks the role figure, a name"),
        (('class="atlas-numbers-button"', ""), "numbers' button"),
        (('lang="en"', 'lang="en-GB"'), "declares lang='en-GB'"),
    ],
)
def test_each_check_of_the_judge_can_fail(blank, change, found):
    blank.set_content(GOOD.replace(*change))
    problems = access_problems(blank, "en")
    assert any(found in p for p in problems), problems


def test_a_chart_is_read_by_screen_reader_and_keyboard(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{app_url}/alignment?lang=en&aln_text=A+black+dog+runs.")
    heatmap = page.get_by_role("figure", name="Bahdanau (additive)")
    heatmap.wait_for()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.atlas-plotly')].every(h => h.hasAttribute('role'))"
    )
    assert chart_problems(page) == []
    summary = heatmap.evaluate(
        "h => document.getElementById(h.getAttribute('aria-describedby')).textContent"
    )
    assert "When the model writes “▁noir”, most weight is on “▁black”" in summary
    button = heatmap.get_by_role("button", name="Show the numbers as a table")
    for _ in range(60):  # Tab from the top of the page to the chart's button
        page.keyboard.press("Tab")
        if button.evaluate("b => b === document.activeElement"):
            break
    else:
        pytest.fail("the keyboard never reached the numbers' button")
    assert button.is_visible()  # out of sight until it has the focus
    page.keyboard.press("Enter")
    table = heatmap.get_by_role("table")
    table.wait_for()
    assert table.get_by_role("columnheader", name="▁black").count() == 1
    assert table.get_by_role("rowheader", name="▁noir").count() == 1
    assert heatmap.get_by_role("button", name="Hide the table").get_attribute("aria-expanded") == (
        "true"
    )
    page.keyboard.press("Enter")
    table.wait_for(state="hidden")


def test_a_screen_reader_hears_the_lesson_move_by_keyboard(page, app_url):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{app_url}/lessons?lesson=bahdanau&step=1&lang=en")
    status = page.get_by_role("status").filter(has_text="Step 1 of 6")
    status.wait_for(state="attached")
    page.locator("body").press("ArrowRight")  # the presenter's key, from anywhere but a text box
    page.get_by_role("status").filter(has_text="Step 2 of 6: Predict one row").wait_for(
        state="attached"
    )
    assert page.get_by_role("status").get_attribute("aria-live") == "polite"
