"""CPU work per change, a steadier measure than latency on a busy 2-core machine: the browser
tab's main-thread busy time (Chrome's ``Performance.getMetrics`` TaskDuration) and the Streamlit
server's CPU time (``/proc/<pid>/stat``: all threads, those that ended too, as Streamlit's script
threads do after each run; in clock ticks of 10 ms, so the bench reports the mean over the tries)."""

from __future__ import annotations

import os
from pathlib import Path


def server_cpu_ms(pid: int) -> float:
    """CPU time (user + system) the process has used so far, in ms (0.0 where /proc is missing)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


class BrowserWork:
    """Main-thread busy time of one page's renderer so far, in ms."""

    def __init__(self, page) -> None:  # a playwright Page
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")

    def busy_ms(self) -> float:
        metrics = self.cdp.send("Performance.getMetrics")["metrics"]
        return 1000 * next(m["value"] for m in metrics if m["name"] == "TaskDuration")


class SlowerCPU:
    """Stands in for a Playwright ``Browser`` whose pages run on a CPU ``rate`` times slower, as
    a school laptop's or a Chromebook's (Chrome's ``Emulation.setCPUThrottlingRate``, set on each
    new page before it loads anything). ``new_context`` is the only method the bench uses."""

    def __init__(self, browser, rate: float) -> None:
        self.browser = browser
        self.rate = rate

    def new_context(self, **options):
        return _SlowerContext(self.browser.new_context(**options), self.rate)


class _SlowerContext:
    """A context whose ``new_page()`` is throttled; anything else is the real context's."""

    def __init__(self, context, rate: float) -> None:
        self._context = context
        self._rate = rate

    def new_page(self):
        page = self._context.new_page()
        cdp = self._context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": self._rate})
        return page

    def __getattr__(self, name: str):
        return getattr(self._context, name)
