"""``make bench``: cold start, first render of every page, warm interaction latency vs. an empty page;
then the first renders and the interactions again with the browser's CPU throttled ``BENCH_SLOWER``
times (4 by default: a school laptop), each page throttled while it is timed (the app's change, the
empty pages' and the bare ``Plotly.react`` of the floor alike; ``bench.work.set_cpu_rate``).

Prints one table. Scenarios and extra timings come from ``bench/scenarios_*.py`` (see registry).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import statistics
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bench.browser import CHROMIUM, launch_chromium
from bench.phases import phase_rows
from bench.register import RENDERED, SCENARIOS, TIMINGS, Row, Scenario, print_table
from bench.scenarios_floor import bare_react, floor_rows
from bench.work import BrowserWork, server_cpu_ms, set_cpu_rate
from serve.launch import SERVER_PIDS, streamlit_server

TRIES = int(os.environ.get("BENCH_TRIES", "20"))  # warm tries per scenario (after one warm-up)
# The same measures again on a CPU this many times slower (a school laptop's; 1 = skip), with
# fewer tries: each takes several times longer.
SLOWER = float(os.environ.get("BENCH_SLOWER", "4"))
SLOWER_TRIES = int(os.environ.get("BENCH_SLOWER_TRIES", "8"))
# BENCH_ONLY=anatomy,alignment: only the interaction scenarios whose names contain one of these
# words (and the empty page), without the first renders and plain timings: a quick A/B check;
# with the word "phases", the Alignment and Local attention Enters cut into phases too.
ONLY = [word.strip() for word in os.environ.get("BENCH_ONLY", "").split(",") if word.strip()]
BENCH_DIR = Path(__file__).resolve().parent


def load_scenarios() -> None:
    """Import every ``bench/scenarios_*.py`` so that they register themselves."""
    for module in pkgutil.iter_modules([str(BENCH_DIR)]):
        if module.name.startswith("scenarios_"):
            importlib.import_module(f"bench.{module.name}")


def first_render(browser, url: str, rate: float = 1) -> float:
    """Seconds from navigation to a finished script with every chart drawn (fresh context, so
    plotly.js is parsed again), on a CPU ``rate`` times slower."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    set_cpu_rate(context.new_cdp_session(page), rate)
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function(RENDERED, timeout=120_000)
    elapsed = time.perf_counter() - start
    context.close()
    return elapsed


@dataclass
class Tab:
    """An open page, its main-thread meter, the process id of the server behind it, and the
    (main-thread ms, server CPU ms) used so far, read at the start of each change and at the end."""

    page: object
    work: BrowserWork
    pid: int
    marks: list[tuple[float, float]] = field(default_factory=list)

    def mark(self) -> None:
        """Read both meters on the settled page."""
        self.page.wait_for_function(RENDERED, timeout=120_000)
        self.marks.append((self.work.busy_ms(), server_cpu_ms(self.pid)))

    def work_per_change(self) -> tuple[list[float], list[float]]:
        """(main-thread ms, server CPU ms) of each change between marks, the warm-up's left out."""
        steps = list(zip(self.marks, self.marks[1:], strict=False))[1:]
        return [b[0] - a[0] for a, b in steps], [b[1] - a[1] for a, b in steps]


def _open(browser, url: str) -> Tab:
    """A rendered page in its own context (its own renderer process, so its meter is its own)."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    page.wait_for_function(RENDERED, timeout=120_000)
    parts = urlsplit(url)
    return Tab(page, BrowserWork(page), SERVER_PIDS.get(f"{parts.scheme}://{parts.netloc}", 0))


def _interact(tab: Tab, scenario: Scenario, i: int, rate: float) -> float:
    """Seconds from change number i to its redraw, on a CPU ``rate`` times slower, starting from
    a settled page (the previous run finished and every chart drawn, as when a person reads the
    result before typing again)."""
    tab.mark()
    tab.work.throttle(rate)
    start = time.perf_counter()
    scenario.interact(tab.page, i)
    tab.page.wait_for_function(scenario.redrawn(i), timeout=120_000, polling="raf")
    elapsed = time.perf_counter() - start
    tab.work.throttle(1)
    return elapsed


@dataclass
class Measured:
    """Per scenario: latencies (s) and CPU work per change (ms), each reference's latencies
    paired with the scenario's tries, and why a scenario failed."""

    times: dict[str, list[float]] = field(default_factory=dict)
    browser_ms: dict[str, list[float]] = field(default_factory=dict)
    server_ms: dict[str, list[float]] = field(default_factory=dict)
    paired: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    # bare Plotly.react of the charts each change redraws (ms, per try; bench/scenarios_floor.py)
    react: dict[str, list[float]] = field(default_factory=dict)
    react_charts: dict[str, int] = field(default_factory=dict)

    def add_work(self, name: str, tab: Tab) -> None:
        """The work per change read from a page's meters once its tries are done."""
        tab.mark()
        self.browser_ms[name], self.server_ms[name] = tab.work_per_change()


def interaction_latencies(browser, urls: dict[tuple, str], tries: int, rate: float) -> Measured:
    """``tries`` warm interactions per scenario (after one warm-up), each followed by one on every
    empty reference page, so that all see the same background load; on a CPU ``rate`` times
    slower, one page at a time (the one timed).

    Only the scenario's page and the references are open at a time, as for a person with one tab:
    other heavy pages open in the same browser share its renderer and skew every figure. One
    failure does not stop the rest.
    """
    bases = [s for s in SCENARIOS if s.baseline]
    empties = {b.name: _open(browser, f"{urls[b.server]}/{b.url_path}") for b in bases}
    out = Measured()
    count = 0  # the empty pages' change number (each must differ from the last)
    for scenario in SCENARIOS:
        if scenario.baseline:
            continue
        try:
            tab = _open(browser, f"{urls[scenario.server]}/{scenario.url_path}")
        except Exception as err:  # reported in the table
            out.errors[scenario.name] = f"page did not render: {type(err).__name__}"
            continue
        out.times[scenario.name] = []
        bare = bare_react(browser, urls[scenario.server], scenario)
        for i in range(tries + 1):
            try:
                elapsed = _interact(tab, scenario, i, rate)
            except Exception as err:  # reported in the table
                out.errors[scenario.name] = f"try {i} failed: {type(err).__name__}"
                break
            references = {b.name: _interact(empties[b.name], b, count, rate) for b in bases}
            react = bare.round(rate) if bare else None
            count += 1
            if i and react is not None:
                out.react.setdefault(scenario.name, []).append(react)
            if i:  # try 0 is the warm-up
                out.times[scenario.name].append(elapsed)
                for name, seconds in references.items():
                    out.times.setdefault(name, []).append(seconds)
                    out.paired.setdefault((scenario.name, name), []).append(seconds)
        if scenario.name not in out.errors:
            out.add_work(scenario.name, tab)
        tab.page.context.close()
        if bare:
            out.react_charts[scenario.name] = bare.charts
            bare.close()
    for name, empty in empties.items():
        out.add_work(name, empty)
        empty.page.context.close()
    return out


def _percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def page_rows(browser, url: str, rate: float = 1) -> list[Row]:
    """First render of home and every registered page whose file exists."""
    from ui.registry import PAGES

    rows = [Row("first render: Home", f"{first_render(browser, url, rate):.2f} s")]
    for entry in PAGES:
        if entry.exists():
            seconds = first_render(browser, f"{url}/{entry.url_path}", rate)
            rows.append(Row(f"first render: {entry.title}", f"{seconds:.2f} s"))
    return rows


def _ms(values: list[float]) -> tuple[float, float]:
    """(p50, p95) in milliseconds."""
    return statistics.median(values) * 1000, _percentile(values, 95) * 1000


def _work(out: Measured, name: str) -> str:
    """'per change: browser main thread N ms, server CPU M ms' (means over the tries)."""
    return (
        f"per change: browser main thread {statistics.mean(out.browser_ms[name]):.0f} ms, "
        f"server CPU {statistics.mean(out.server_ms[name]):.0f} ms"
    )


def scenario_rows(
    browser, urls: dict[tuple, str], tries: int = TRIES, rate: float = 1
) -> list[Row]:
    """Warm interaction p50/p95 per scenario, next to each empty page's measured alongside it,
    and the CPU work each change cost.

    The ratio to the first reference (an empty page with Streamlit's default settings) is the
    floor's; the ratio to the others follows it."""
    out = interaction_latencies(browser, urls, tries, rate)
    bases = [s for s in SCENARIOS if s.baseline]
    rows = []
    for base in bases:
        if base.name in out.times:
            p50, p95 = _ms(out.times[base.name])
            rows.append(
                Row(
                    f"interaction: {base.name}, all tries",
                    f"p50 {p50:.0f} ms, p95 {p95:.0f} ms",
                    f"reference; {_work(out, base.name)}",
                )
            )
    for scenario in SCENARIOS:
        if scenario.baseline:
            continue
        name = f"interaction: {scenario.name}"
        if scenario.name in out.errors:
            rows.append(Row(name, "FAILED", out.errors[scenario.name]))
            continue
        p50, p95 = _ms(out.times[scenario.name])
        notes = []
        for k, base in enumerate(bases):
            b50, b95 = _ms(out.paired[scenario.name, base.name])
            what = "the empty page" if k == 0 else base.name
            notes.append(
                f"{p50 / b50:.2f}x / {p95 / b95:.2f}x {what} alongside "
                f"(p50 {b50:.0f} ms, p95 {b95:.0f} ms)"
            )
        notes.append(_work(out, scenario.name))
        rows.append(Row(name, f"p50 {p50:.0f} ms, p95 {p95:.0f} ms", "; ".join(notes)))
    return rows + floor_rows(out)  # against the empty page + the bare Plotly.react


def _slower(row: Row) -> Row:
    """A row measured on the throttled CPU, said so in its name."""
    return Row(f"{SLOWER:g}x slower CPU, {row.measure}", row.value, row.note)


def main() -> None:
    """Run every measurement and print the table."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM}")
    load_scenarios()
    if ONLY:
        SCENARIOS[:] = [s for s in SCENARIOS if s.baseline or any(w in s.name for w in ONLY)]
    app, empty = ("app.py", ()), ("bench/empty_app.py", ())
    servers_needed = sorted({s.server for s in SCENARIOS} | {app, empty})
    rows: list[Row] = []
    with sync_playwright() as playwright, ExitStack() as servers:
        browser = launch_chromium(playwright)
        urls, colds = {}, {}
        for script, args in servers_needed:  # app.py, the empty pages, the lower-bound page
            urls[script, args], colds[script, args] = servers.enter_context(
                streamlit_server(script, extra_args=args)
            )
        rows.append(Row("cold start to /_stcore/health: app.py", f"{colds[app]:.2f} s"))
        rows.append(Row("cold start to /_stcore/health: empty page", f"{colds[empty]:.2f} s"))
        if not ONLY:
            rows += page_rows(browser, urls[app])
        rows += scenario_rows(browser, urls)
        phases = not ONLY or "phases" in ONLY  # BENCH_ONLY=phases: those alone
        if phases:
            rows += phase_rows(browser, urls[app], 1)
        if SLOWER > 1:  # the same on a school laptop's CPU
            slow_rows = [] if ONLY else page_rows(browser, urls[app], SLOWER)
            slow_rows += scenario_rows(browser, urls, SLOWER_TRIES, SLOWER)
            rows += [_slower(row) for row in slow_rows]
            if phases:
                rows += phase_rows(browser, urls[app], SLOWER)
        browser.close()
    for func in [] if ONLY else TIMINGS:
        rows += func()
    print_table(rows)


if __name__ == "__main__":
    main()
