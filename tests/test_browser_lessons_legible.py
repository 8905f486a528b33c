"""Every step of every lesson, and every question's reveal, judged legible (tests/legibility.py)
and accessible (tests/accessibility.py: axe-core, every chart named and described) at a
projector's 1280x720 in classroom mode (English) and on a phone (390x844, Chinese), with the
step's main chart whole on the first screen at the projector; the lesson walked by keyboard
alone, its questions answered and committed with Tab and Enter."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app_pages.lessons.schema import load_folder
from tests.accessibility import access_problems
from tests.browser_helpers import wait_still
from tests.legibility import check_page

pytestmark = pytest.mark.browser
LESSONS, _ERRORS = load_folder()
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
MAIN_CHART_BOX = """() => {
  const main = document.querySelector('[data-testid="stMain"]') || document;
  const gd = main.querySelector('.js-plotly-plot .main-svg');
  if (!gd) return null;
  const r = gd.getBoundingClientRect();
  return [r.top, r.bottom];
}"""


@dataclass(frozen=True)
class Setup:
    name: str
    width: int
    height: int
    lang: str
    classroom: bool


# the right edges of the charts that reach past the page's main column (a part scrolls sideways)
WIDER_THAN_THE_PAGE = """() => {
  const edge = document.querySelector('[data-testid=stMainBlockContainer]')
    .getBoundingClientRect().right;
  return [...document.querySelectorAll('.js-plotly-plot')]
    .map(e => Math.round(e.getBoundingClientRect().right)).filter(r => r > edge + 1);
}"""
# the end-of-lesson table: any part of it that scrolls sideways or reaches past the window
TABLE_CUT = """() => [...document.querySelectorAll('[data-testid=stTable], [data-testid=stTable] *')]
  .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible'
    || e.getBoundingClientRect().right > window.innerWidth + 1)
  .map(e => `${e.tagName}: ${e.scrollWidth} > ${e.clientWidth}, right ${Math.round(e.getBoundingClientRect().right)}`)"""
SETUPS = [Setup("projector", 1280, 720, "en", True), Setup("phone", 390, 844, "zh", False)]


def _judge(page, setup: Setup, where: str) -> list[str]:
    wait_still(page, quiet_ms=800, sized=True)  # nor a chart drawn again at another size
    problems = [f"{where}: error shown" for _e in page.locator(ERRORS).all()]
    problems += [f"{where}: {line}" for line in check_page(page, classroom=setup.classroom)]
    problems += [f"{where}: {line}" for line in access_problems(page, setup.lang)]
    box = page.evaluate(MAIN_CHART_BOX)
    if setup.classroom and box is not None and (box[0] < 0 or box[1] > setup.height + 1):
        problems.append(
            f"{where}: main chart spans {box[0]:.0f}-{box[1]:.0f} px, not all on screen"
        )
    wide = page.evaluate(WIDER_THAN_THE_PAGE)
    if setup.classroom and wide:  # at a projector nobody scrolls a chart sideways
        problems.append(f"{where}: charts wider than the page's column (right edges {wide})")
    return problems


def tab_to(page, target, limit: int = 120) -> None:
    """Press Tab until ``target`` (a locator) has the keyboard's focus."""
    for _ in range(limit):
        if target.evaluate("e => e === document.activeElement"):
            return
        page.keyboard.press("Tab")
    pytest.fail(f"the keyboard never reached {target}")


def _reveal(page) -> None:
    """Answer the step's question and commit it with the keyboard alone: Tab to the first option,
    Enter, Tab to the commit button, Enter."""
    option = page.locator("[data-testid=stButtonGroup] button").first
    tab_to(page, option)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stBaseButton-primary]')]"
        ".some(b => !b.disabled && !b.textContent.includes('→'))"
    )
    commit = page.locator("[data-testid=stBaseButton-primary]").filter(has_not_text="→").last
    tab_to(page, commit)
    page.keyboard.press("Enter")
    page.locator(
        "[data-testid=stAlertContentSuccess], [data-testid=stAlertContentInfo]"
    ).first.wait_for()


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: s.name)
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.id)
def test_every_step_is_legible_all_the_way_by_keyboard(page, app_url, setup: Setup, lesson):
    """The lesson from its first step to its summary with the presenter's → key alone (a
    question answered on the way), each step and each reveal judged."""
    page.set_viewport_size({"width": setup.width, "height": setup.height})
    page.set_default_timeout(60_000)
    mode = "&classroom=true" if setup.classroom else ""
    page.goto(f"{app_url}/lessons?lesson={lesson.id}&step=1&lang={setup.lang}{mode}")
    problems: list[str] = []
    for step in range(1, len(lesson.steps) + 1):
        page.wait_for_function(f"new URLSearchParams(location.search).get('step') === '{step}'")
        page.locator("[data-testid=stButton]").first.wait_for()
        where = f"{lesson.id} step {step}"
        problems += _judge(page, setup, where)
        if lesson.steps[step - 1].question is not None:
            _reveal(page)
            problems += _judge(page, setup, f"{where} (revealed)")
        page.mouse.click(2, setup.height - 2)  # the page has the focus, not a box or a button
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"new URLSearchParams(location.search).get('step') === '{len(lesson.steps) + 1}'"
    )
    page.locator("[data-testid=stTable]").wait_for()  # the predictions, in one table
    wait_still(page, quiet_ms=800)
    cut = page.evaluate(TABLE_CUT)
    if cut:  # every column in view, on a phone too: nothing scrolls sideways
        problems.append(f"{lesson.id} summary: the table's columns past the screen: {cut}")
    assert not problems, "\n".join(problems)
