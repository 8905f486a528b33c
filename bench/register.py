"""The bench registry: interaction scenarios (driven in Chromium) and plain timings.

Add a module ``bench/scenarios_<name>.py`` that calls ``register(Scenario(...))`` or decorates a
function with ``@timing``; ``python -m bench.run`` imports every such module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# JS expression: every chart on the page is mounted and drawn. A page's elements first show as
# skeletons while their code loads (a chart's among them: no chart element yet), and a chart
# component is an empty element until its script has run: both are waited for, so that a first
# visit is not timed as done before its charts exist. The components that draw nothing say so on
# their element once their script has run: the presenter keys (app_pages/lessons/keys.py), and
# data-draws-nothing (the document's language, the browser's memory, the saved lessons).
CHARTS_DRAWN = """(!document.querySelector('[data-testid="stSkeleton"]')
  && [...document.querySelectorAll('[data-testid="stBidiComponentRegular"]')].every(
    p => p.hasAttribute('data-presenter-keys') || p.hasAttribute('data-draws-nothing')
      || p.querySelector(':scope > .atlas-plotly .main-svg'))
  && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(
    c => c.querySelector('.main-svg')))"""
# Every chart drawn, nothing stale, no component chart still drawing (ui/plotly_component.py).
ALL_UPDATED = (
    "document.querySelector('[data-testid=\"stApp\"]')?.dataset.testScriptState === 'notRunning'"
    " && !document.querySelector('[data-stale=\"true\"], [data-drawing]')"
    f" && {CHARTS_DRAWN}"
)
# JS predicate: the script has finished and every plotly chart on the page has drawn.
RENDERED = f"""() => {{
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.dataset.testScriptState !== 'notRunning') return false;
  // a page's title, its text box, or a lesson's step row (app_pages/lessons)
  if (!document.querySelector('h1, [data-testid="stTextInput"], .st-key-les_next')) return false;
  return {CHARTS_DRAWN};
}}"""


@dataclass(frozen=True)
class Scenario:
    """One warm-interaction measurement: change an input, wait for the chart to be redrawn.

    interact(page, i) performs change number i (each change must differ from the last);
    redrawn(i) returns a JS predicate (a function source) that is true once change i is on screen.
    """

    name: str
    url_path: str  # relative to the server root, e.g. "anatomy"
    interact: Callable[[object, int], None]
    redrawn: Callable[[int], str]
    script: str = "app.py"  # the Streamlit script the server runs
    baseline: bool = False  # an empty-page reference the others are compared with
    server_args: tuple[str, ...] = ()  # extra ``streamlit run`` options for this scenario's server

    @property
    def server(self) -> tuple[str, tuple[str, ...]]:
        """Which server runs it: scenarios with the same script and options share one."""
        return self.script, self.server_args


@dataclass(frozen=True)
class Row:
    """One line of the printed table."""

    measure: str
    value: str
    note: str = ""


def print_table(rows: list[Row]) -> None:
    """A plain text table."""
    widths = [max(len(getattr(r, f)) for r in rows) for f in ("measure", "value", "note")]
    for row in rows:
        print(f"{row.measure:<{widths[0]}}  {row.value:<{widths[1]}}  {row.note}")


SCENARIOS: list[Scenario] = []
TIMINGS: list[Callable[[], list[Row]]] = []


def register(scenario: Scenario) -> Scenario:
    """Add an interaction scenario."""
    SCENARIOS.append(scenario)
    return scenario


def timing(func: Callable[[], list[Row]]) -> Callable[[], list[Row]]:
    """Decorator: add a function that measures something (e.g. model inference) and returns rows."""
    TIMINGS.append(func)
    return func
