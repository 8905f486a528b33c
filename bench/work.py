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

    def throttle(self, rate: float) -> None:
        """Run the page ``rate`` times slower from now on (:func:`set_cpu_rate`)."""
        set_cpu_rate(self.cdp, rate)

    def busy_ms(self) -> float:
        metrics = self.cdp.send("Performance.getMetrics")["metrics"]
        return 1000 * next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def set_cpu_rate(cdp, rate: float) -> None:
    """Run the page of a CDP session on a CPU ``rate`` times slower (1: full speed), as a school
    laptop's or a Chromebook's (Chrome's ``Emulation.setCPUThrottlingRate``).

    The bench throttles a page only while it is timed (its change, its first visit, the bare
    redraw): several pages throttled at once on two cores slow each other down far more than
    ``rate``: a bare ``Plotly.react`` throttled 4 times beside the scenario's tab and the empty
    pages, all throttled, takes several times longer than 4 times its full-speed time."""
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
