"""The accessibility judge of the browser tests: run :func:`access_problems` on a Playwright page
once it is still; it returns one line per problem, an empty list when the page passes.

1. axe-core (``bench.axe``: pinned, injected from this machine's disk) finds no violation of
   serious or critical impact among the rules tagged WCAG 2.0/2.1 A and AA (contrast, text
   alternatives, names of controls, keyboard access to what scrolls, the document's language...).
2. Every chart (``.atlas-plotly``, the chart component's element) is a figure with a name
   (``aria-label``) and a summary in words (``aria-describedby``), and the button that shows its
   numbers as a table.
3. The document declares the page's language (``lang``: zh-Hans in Chinese).
"""

from __future__ import annotations

from bench.axe import violations

CHARTS = """() => [...document.querySelectorAll('.atlas-plotly')].map((host, i) => {
  const summary = document.getElementById(host.getAttribute('aria-describedby') || '');
  return {n: i + 1, role: host.getAttribute('role'), name: host.getAttribute('aria-label') || '',
          summary: summary ? summary.textContent : '',
          numbers: !!host.querySelector('.atlas-numbers-button')};
})"""
LANG = {"en": "en", "zh": "zh-Hans"}


def chart_problems(page) -> list[str]:
    """A line for each chart without its role, name, summary or numbers button."""
    problems = []
    for chart in page.evaluate(CHARTS):
        missing = [
            what
            for what, ok in (
                ("the role figure", chart["role"] == "figure"),
                ("a name", chart["name"].strip()),
                ("a summary", chart["summary"].strip()),
                ("the numbers' button", chart["numbers"]),
            )
            if not ok
        ]
        if missing:
            problems.append(f"chart {chart['n']} {chart['name']!r} lacks {', '.join(missing)}")
    return problems


def access_problems(page, lang: str | None = None) -> list[str]:
    """Every accessibility problem of ``page`` as it is now (``lang``: the language it should
    declare, en or zh; None: not checked)."""
    problems = [f"axe: {v}" for v in violations(page)]
    problems += chart_problems(page)
    if lang is not None:
        declared = page.evaluate("document.documentElement.lang")
        if declared != LANG[lang]:
            problems.append(f"the document declares lang={declared!r}, not {LANG[lang]!r}")
    return problems
