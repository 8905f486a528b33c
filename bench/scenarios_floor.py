"""What a change can cost at best here, and how far each interaction is from it.

The floor of a change is the sum of two references, both timed right after each try of a scenario
in the same browser (so that they see the same background load): the empty page with the app's
settings (``bench/scenarios_core.py``) and the bare-page ``Plotly.react`` of the very figures the
change redraws, outside Streamlit (:class:`BareReact`). Those figures are read from the page
itself (each chart's ``data`` and ``layout``) after two changes, and only the charts that differ
between them are redrawn, in a blank page with the ``plotly`` package's plotly.js, at the size the
page drew them. ``bench/run.py`` times them; ``floor_rows`` reports, for every interaction
scenario, its p50 against the p50 of that sum and the browser main-thread time per change.

It also registers the Alignment page's Enter timed until *every* chart is updated (the script has
finished, nothing is stale, no chart is still drawing), not only the heatmap.
"""

from __future__ import annotations

import json
import statistics

from bench.register import ALL_UPDATED, RENDERED, SCENARIOS, Row, Scenario, register
from bench.scenarios_core import _tick_is, _typed
from bench.scenarios_translation import _enter_sentence, _heatmap_shows
from bench.work import set_cpu_rate

REACTS = 15  # timed redraws per scenario, after two warm-ups
# Each chart's figure as the page holds it (typed arrays as lists) and its drawn size.
CAPTURE = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => JSON.parse(
  JSON.stringify({data: gd.data, layout: gd.layout, width: gd._fullLayout.width,
    height: gd._fullLayout.height}, (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v)))"""
# A blank page: draw figures `a` (and keep `b`), each in a div of the size the app drew it.
SETUP = """([a, b]) => {
  document.body.innerHTML = '';
  const fig = f => [structuredClone(f.data), {...structuredClone(f.layout), width: f.width,
    height: f.height}];
  window.bare = {a, b, fig, turn: 0, divs: a.map(f => {
    const d = document.createElement('div');
    d.style.width = f.width + 'px'; d.style.height = f.height + 'px';
    document.body.appendChild(d);
    return d;
  })};
  return Promise.all(a.map((f, k) => Plotly.newPlot(window.bare.divs[k], ...fig(f))));
}"""
# One change: Plotly.react every chart to the other figure (b, a, b...); ms, layout included.
ROUND = """async () => {
  const bare = window.bare;
  const next = (bare.turn++ % 2 ? bare.a : bare.b).map(bare.fig);
  const t = performance.now();
  for (let k = 0; k < bare.divs.length; k++) await Plotly.react(bare.divs[k], ...next[k]);
  document.body.getBoundingClientRect();
  return performance.now() - t;
}"""


def _all_charts_updated(i: int) -> str:
    return f"() => ({_heatmap_shows(i)})() && {ALL_UPDATED}"


ALIGNMENT_ALL = register(
    Scenario(
        name="alignment (Enter -> all charts updated, 15 words, greedy)",
        url_path="alignment?aln_beam=1",
        interact=_enter_sentence,
        redrawn=_all_charts_updated,
    )
)


# The same four charts with nothing else on the page and no model (bench/chart_app.py): what
# this design costs at least for that change, whatever the page around the charts does.
LOWER_BOUND_WORDS = "w{i} " + "a man in a blue shirt plays " * 2  # 15 words, as the Enter's


def _lower_bound_updated(i: int) -> str:
    return f"() => ({_tick_is(f'w{i}')})() && {ALL_UPDATED}"


_typed(
    "lower bound: text box + the Alignment page's 4 charts (all updated, 15 words)",
    "?figure=alignment",
    "Text",
    lambda i: LOWER_BOUND_WORDS.format(i=i).strip(),
    _lower_bound_updated,
    script="bench/chart_app.py",
)


def _figures_after(page, scenario: Scenario, i: int) -> list[dict]:
    """Change ``i`` made, every chart settled: the page's figures."""
    scenario.interact(page, i)
    page.wait_for_function(scenario.redrawn(i), timeout=120_000, polling=100)
    page.wait_for_function(f"() => {ALL_UPDATED}", timeout=120_000, polling=100)
    return page.evaluate(CAPTURE)


class BareReact:
    """A blank page in the bench's browser holding the figures that a change of ``scenario``
    redraws (read from its page after two changes; only the charts that differ), with the
    chart component's plotly.js. ``round()`` redraws them all with ``Plotly.react``: timed
    right after each try of the scenario, it sees the same background load."""

    def __init__(self, browser, url: str, scenario: Scenario) -> None:
        from atlas_plotly import ensure_plotly_js

        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            page = context.new_page()
            page.goto(f"{url}/{scenario.url_path}")
            page.wait_for_function(RENDERED, timeout=120_000)
            a, b = (_figures_after(page, scenario, i) for i in (1000, 1001))
        finally:
            context.close()
        if len(a) == len(b):  # the charts a change redraws; all of them if the layout changed
            pairs = [(x, y) for x, y in zip(a, b, strict=True) if json.dumps(x) != json.dumps(y)]
            a, b = [x for x, _ in pairs], [y for _, y in pairs]
        self.charts = len(a)
        self.page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        self.page.add_script_tag(path=str(ensure_plotly_js()))  # the component's bundle
        self.page.evaluate(SETUP, [a, b])
        self.cdp = self.page.context.new_cdp_session(self.page)  # its CPU's speed

    def round(self, rate: float = 1) -> float:
        """ms to redraw every chart with the other change's figure, on a CPU ``rate`` times
        slower."""
        set_cpu_rate(self.cdp, rate)
        try:
            return self.page.evaluate(ROUND)
        finally:
            set_cpu_rate(self.cdp, 1)

    def close(self) -> None:
        self.page.context.close()


def bare_react(browser, url: str, scenario: Scenario) -> BareReact | None:
    """The scenario's :class:`BareReact`, or None (a baseline, or the figures could not be read)."""
    if scenario.baseline:
        return None
    try:
        return BareReact(browser, url, scenario)
    except Exception as err:  # the floor row says so; the scenario is still measured
        print(f"bare Plotly.react for {scenario.name!r} failed: {type(err).__name__}: {err}")
        return None


def floor_rows(out) -> list[Row]:
    """Per interaction scenario measured (``out``: bench.run.Measured): p50 against the floor,
    the p50 of (the empty page with the app's settings + the bare Plotly.react of the charts it
    redraws), both timed right after each try, and the browser main-thread time per change."""
    bases = [s for s in SCENARIOS if s.baseline and not s.server_args]
    rows = []
    for scenario in SCENARIOS:
        if scenario.baseline or scenario.name not in out.times or not bases:
            continue
        name = f"floor: {scenario.name}"
        reacts = out.react.get(scenario.name)
        empties = out.paired.get((scenario.name, bases[0].name))
        if not reacts or not empties or len(reacts) != len(empties):
            rows.append(Row(name, "FAILED", "no bare Plotly.react timings"))
            continue
        p50 = statistics.median(out.times[scenario.name]) * 1000
        floor = statistics.median(e * 1000 + r for e, r in zip(empties, reacts, strict=True))
        browser_ms = statistics.mean(out.browser_ms.get(scenario.name) or [float("nan")])
        rows.append(
            Row(
                name,
                f"{p50 / floor:.2f}x",
                f"p50 {p50:.0f} ms vs {floor:.0f} ms = empty page (app's settings) "
                f"{statistics.median(empties) * 1000:.0f} ms + bare Plotly.react of its "
                f"{out.react_charts[scenario.name]} changed chart(s) "
                f"{statistics.median(reacts):.1f} ms (p50s, each try's pair summed); browser main "
                f"thread {browser_ms:.0f} ms per change",
            )
        )
    return rows
