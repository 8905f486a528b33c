"""Where one change's time goes, read from the page itself: the Enter's key, the
widget's value sent to the server, the server's messages arriving, each chart's draw starting
and ending (the chart component's ``data-drawing``: ``components/atlas-plotly``), timed in the
page's own clock by an init script that wraps the websocket and watches the charts.

One change is cut into phases, the median over the tries of each:

- input: the Enter's keydown -> the widget's value sent (the browser handling the key);
- server: sent -> the rerun's last message (the script run, its messages on the way);
- Streamlit: the last message -> the first chart starting to draw (Streamlit renders the rerun's
  elements with React before the chart component's code is called);
- charts: the first draw's start -> the last draw's end, and, within it, the sum of the draws
  (``Plotly.react`` and the behaviours);
- after: the last draw's end -> the bench seeing every chart updated.

Printed by ``make bench`` for the Alignment and Local attention Enters at full speed and at
``BENCH_SLOWER``; ``python -m bench.phases [rate ...]`` prints them alone (an app server of its
own, 8 tries).
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass

from bench.register import ALL_UPDATED, RENDERED, Row, Scenario, print_table
from bench.work import set_cpu_rate

TRIES = 8
# The page's timeline: window.__phases = [[event, ms, detail], ...] since the last reset.
TIMELINE = """
(() => {
  window.__phases = [];
  const log = (event, detail) => window.__phases.push([event, performance.now(), detail]);
  const Socket = window.WebSocket;
  function Watched(...args) {
    const ws = new Socket(...args);
    ws.addEventListener("message", () => log("message"));
    const send = ws.send.bind(ws);
    ws.send = (data) => { log("sent"); send(data); };
    return ws;
  }
  Watched.prototype = Socket.prototype;
  Object.assign(Watched, Socket);
  window.WebSocket = Watched;
  document.addEventListener("keydown", (e) => { if (e.key === "Enter") log("key"); }, true);
  new MutationObserver((records) => {
    for (const r of records) log(r.target.hasAttribute("data-drawing") ? "draw" : "drawn");
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-drawing"] });
})();
"""


@dataclass(frozen=True)
class Phases:
    """One change's phases, ms (see the module's docstring)."""

    input: float
    server: float
    streamlit: float
    charts: float
    drawing: float  # the sum of the charts' draws, within ``charts``
    after: float
    messages: int

    @property
    def total(self) -> float:
        return self.input + self.server + self.streamlit + self.charts + self.after


def phases_of(events: list[list], seen: float) -> Phases:
    """The phases of one change from its timeline (``seen``: when the bench saw it done)."""
    at = {event: [t for k, t, _ in events if k == event] for event in ("key", "sent", "message")}
    key = at["key"][0]
    sent = next(t for t in at["sent"] if t >= key)
    starts = [t for k, t, _ in events if k == "draw" and t >= sent]
    ends = [t for k, t, _ in events if k == "drawn" and t >= sent]
    first = min(starts) if starts else seen
    last_message = max(t for t in at["message"] if t <= first)
    last_drawn = max(ends) if ends else first
    drawing, depth, since = 0.0, 0, 0.0  # the time some chart was drawing (overlaps once)
    for event, t, _ in sorted((e for e in events if e[0] in ("draw", "drawn")), key=lambda e: e[1]):
        if event == "draw":
            depth, since = depth + 1, since if depth else t
        elif depth:
            depth -= 1
            drawing += 0.0 if depth else t - since
    return Phases(
        input=sent - key,
        server=last_message - sent,
        streamlit=first - last_message,
        charts=last_drawn - first,
        drawing=drawing,
        after=max(seen - last_drawn, 0.0),
        messages=sum(1 for t in at["message"] if sent <= t <= first),
    )


def measure(browser, url: str, scenario: Scenario, rate: float, tries: int = TRIES) -> Phases:
    """Median phases of ``tries`` changes of ``scenario`` (after one warm-up) on a CPU ``rate``
    times slower, each until every chart is updated; a fresh page with the timeline script."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        context.add_init_script(TIMELINE)
        page = context.new_page()
        page.goto(f"{url}/{scenario.url_path}")
        page.wait_for_function(RENDERED, timeout=120_000)
        cdp = context.new_cdp_session(page)
        found = []
        for i in range(tries + 1):
            page.wait_for_function(RENDERED, timeout=120_000)
            page.evaluate("window.__phases = []")
            set_cpu_rate(cdp, rate)
            scenario.interact(page, 2000 + i)
            done = f"() => ({scenario.redrawn(2000 + i)})() && {ALL_UPDATED}"
            page.wait_for_function(done, timeout=120_000, polling="raf")
            seen = page.evaluate("performance.now()")
            set_cpu_rate(cdp, 1)
            if i:
                found.append(phases_of(page.evaluate("window.__phases"), seen))
        return Phases(
            *(statistics.median(getattr(p, f) for p in found) for f in Phases.__annotations__)
        )
    finally:
        context.close()


def describe(phases: Phases) -> str:
    """The row's note: each phase in ms."""
    return (
        f"input {phases.input:.0f}, server {phases.server:.0f} ({phases.messages:.0f} messages), "
        f"Streamlit rendering {phases.streamlit:.0f}, charts {phases.charts:.0f} (drawing "
        f"{phases.drawing:.0f}), after {phases.after:.0f} ms"
    )


def phase_rows(browser, url: str, rate: float, tries: int = TRIES) -> list[Row]:
    """A row per timed scenario: the medians of its phases on a CPU ``rate`` times slower."""
    from bench.scenarios_floor import ALIGNMENT_ALL
    from bench.scenarios_translation import LOCAL

    rows = []
    for scenario in (ALIGNMENT_ALL, LOCAL):
        try:
            phases = measure(browser, url, scenario, rate, tries)
        except Exception as err:  # reported in the table
            rows.append(Row(f"phases: {scenario.name}", "FAILED", type(err).__name__))
            continue
        speed = "full speed" if rate == 1 else f"{rate:g}x slower CPU"
        rows.append(
            Row(f"phases at {speed}: {scenario.name}", f"{phases.total:.0f} ms", describe(phases))
        )
    return rows


def main(rates: list[float]) -> None:
    from playwright.sync_api import sync_playwright

    from bench.browser import launch_chromium
    from serve.launch import streamlit_server

    with sync_playwright() as playwright, streamlit_server("app.py") as (url, _):
        browser = launch_chromium(playwright)
        rows = [row for rate in rates for row in phase_rows(browser, url, rate)]
        browser.close()
    print_table(rows)


if __name__ == "__main__":
    main([float(a) for a in sys.argv[1:]] or [1.0, 4.0])
