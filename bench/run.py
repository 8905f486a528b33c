"""``make bench``: cold start, first render of every page, warm interaction latency vs. an empty page.

Prints one table. Scenarios and extra timings come from ``bench/scenarios_*.py`` (see registry).
"""

from __future__ import annotations

import importlib
import pkgutil
import statistics
import time
from pathlib import Path

from bench.registry import RENDERED, SCENARIOS, TIMINGS, Row, Scenario
from bench.server import CHROMIUM, launch_chromium, streamlit_server

TRIES = 20
BENCH_DIR = Path(__file__).resolve().parent


def load_scenarios() -> None:
    """Import every ``bench/scenarios_*.py`` so that they register themselves."""
    for module in pkgutil.iter_modules([str(BENCH_DIR)]):
        if module.name.startswith("scenarios_"):
            importlib.import_module(f"bench.{module.name}")


def first_render(browser, url: str) -> float:  # noqa: ANN001
    """Seconds from navigation to a finished script with every chart drawn (fresh context)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function(RENDERED, timeout=120_000)
    elapsed = time.perf_counter() - start
    context.close()
    return elapsed


def _open(browser, url: str):  # noqa: ANN001, ANN202
    """A rendered page in its own context."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    page.wait_for_function(RENDERED, timeout=120_000)
    return page


def _interact(page, scenario: Scenario, i: int) -> float:  # noqa: ANN001
    """Seconds from change number i to its redraw."""
    start = time.perf_counter()
    scenario.interact(page, i)
    page.wait_for_function(scenario.redrawn(i), timeout=60_000, polling="raf")
    return time.perf_counter() - start


def interaction_latencies(
    browser,  # noqa: ANN001
    urls: dict[str, str],
) -> tuple[dict[str, list[float]], dict[str, str]]:
    """TRIES warm interactions per scenario (after one warm-up each), taken round-robin so that
    the machine's background load affects every scenario, the empty reference included, alike.

    Returns (seconds per scenario, error per failed scenario); one failure does not stop the rest.
    """
    pages, errors = {}, {}
    for s in SCENARIOS:
        try:
            pages[s.name] = _open(browser, f"{urls[s.script]}/{s.url_path}")
        except Exception as err:  # noqa: BLE001 - reported in the table
            errors[s.name] = f"page did not render: {type(err).__name__}"
    times: dict[str, list[float]] = {name: [] for name in pages}
    for i in range(TRIES + 1):
        for scenario in SCENARIOS:
            if scenario.name in errors:
                continue
            try:
                elapsed = _interact(pages[scenario.name], scenario, i)
            except Exception as err:  # noqa: BLE001 - reported in the table
                errors[scenario.name] = f"try {i} failed: {type(err).__name__}"
                continue
            if i:  # try 0 is the warm-up
                times[scenario.name].append(elapsed)
    for page in pages.values():
        page.context.close()
    return times, errors


def _percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def page_rows(browser, url: str) -> list[Row]:  # noqa: ANN001
    """First render of home and every registered page whose file exists."""
    from app import PAGES  # noqa: PLC0415 - the registry; importing app runs nothing

    rows = [Row("first render: Home", f"{first_render(browser, url):.2f} s")]
    for entry in PAGES:
        if entry.exists():
            seconds = first_render(browser, f"{url}/{entry.url_path}")
            rows.append(Row(f"first render: {entry.title}", f"{seconds:.2f} s"))
    return rows


def scenario_rows(browser, urls: dict[str, str]) -> list[Row]:  # noqa: ANN001
    """Warm interaction p50/p95 per scenario and the ratio of p50s to the empty page."""
    latencies, errors = interaction_latencies(browser, urls)
    base = [latencies[s.name] for s in SCENARIOS if s.baseline and s.name not in errors]
    base_p50 = statistics.median(base[0]) if base else float("nan")
    rows = []
    for scenario in SCENARIOS:
        name = f"interaction: {scenario.name}"
        if scenario.name in errors:
            rows.append(Row(name, "FAILED", errors[scenario.name]))
            continue
        times = latencies[scenario.name]
        p50, p95 = statistics.median(times), _percentile(times, 95)
        ratio = "reference" if scenario.baseline else f"{p50 / base_p50:.2f}x empty p50"
        rows.append(Row(name, f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms", ratio))
    return rows


def print_table(rows: list[Row]) -> None:
    """A plain text table."""
    widths = [max(len(getattr(r, f)) for r in rows) for f in ("measure", "value", "note")]
    for row in rows:
        print(f"{row.measure:<{widths[0]}}  {row.value:<{widths[1]}}  {row.note}")


def main() -> None:
    """Run every measurement and print the table."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM}")
    load_scenarios()
    scripts = sorted({s.script for s in SCENARIOS} | {"app.py"})
    rows: list[Row] = []
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        with (
            streamlit_server("app.py") as (app_url, cold),
            streamlit_server("bench/empty_app.py") as (empty_url, empty_cold),
        ):
            rows.append(Row("cold start to /_stcore/health: app.py", f"{cold:.2f} s"))
            rows.append(Row("cold start to /_stcore/health: empty page", f"{empty_cold:.2f} s"))
            rows += page_rows(browser, app_url)
            urls = {"app.py": app_url, "bench/empty_app.py": empty_url}
            missing = [s for s in scripts if s not in urls]
            if missing:
                raise SystemExit(f"no server for scenario scripts {missing}")
            rows += scenario_rows(browser, urls)
        browser.close()
    for func in TIMINGS:
        rows += func()
    print_table(rows)


if __name__ == "__main__":
    main()
