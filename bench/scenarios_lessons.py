"""Lessons: the time from the presenter's key (→ next, ← back) to the new step drawn, for each
lesson: what a class waits for. The page walks the lesson forward to its last step and back
again (a question's step shows its options; it is not answered here).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from app_pages.lessons.schema import load_folder
from bench.register import RENDERED, Scenario, register


def _position(i: int, n: int) -> int:
    """The step (1-based) after change i of a walk 1 -> n -> 1 -> ... (every change moves)."""
    cycle = 2 * (n - 1)
    k = (i + 1) % cycle
    return 1 + (k if k < n else cycle - k)


LISTENING = "() => !!document.querySelector('[data-presenter-keys=\"on\"]')"


def _step_shown(url: str) -> int:
    """The step in the page's address (1 when none)."""
    return int(parse_qs(urlparse(url).query).get("step", ["1"])[0])


def _scenario(lesson_id: str, n: int) -> Scenario:
    def interact(page, i: int) -> None:  # a playwright Page
        before = _position(i - 1, n) if i else 1
        shown = _step_shown(page.url)
        if shown != before:  # a page opened afresh (the bare redraw's capture)
            page.goto(page.url.replace(f"step={shown}", f"step={before}"))
            page.wait_for_function(RENDERED, timeout=120_000)
        page.wait_for_function(LISTENING, timeout=120_000)  # app_pages/lessons/keys.py
        page.mouse.click(2, 700)  # the page has the focus, not a box
        page.keyboard.press("ArrowRight" if _position(i, n) > before else "ArrowLeft")

    def redrawn(i: int) -> str:
        step = _position(i, n)
        return f"""() => {{
          if (new URLSearchParams(location.search).get('step') !== '{step}') return false;
          const app = document.querySelector('[data-testid="stApp"]');
          if (!app || app.dataset.testScriptState !== 'notRunning') return false;
          if (document.querySelector('[data-stale="true"]')) return false;
          const charts = [...document.querySelectorAll('.js-plotly-plot')];
          return charts.every(gd => gd._fullLayout && gd.querySelector('.main-svg'));
        }}"""

    return Scenario(
        name=f"lesson {lesson_id} (→/← -> step drawn)",
        url_path=f"lessons?lesson={lesson_id}&step=1",
        interact=interact,
        redrawn=redrawn,
    )


for _lesson in load_folder()[0]:
    register(_scenario(_lesson.id, len(_lesson.steps)))
