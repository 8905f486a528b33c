"""What the server spent: CPU seconds and resident memory of its processes (read from /proc, Linux),
tracebacks in its logs, and latency percentiles."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
MB = 1024 * 1024
TRACEBACK = "Traceback (most recent call last)"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15)


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; nan when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass
class ServerWatch:
    """CPU and memory of the server processes ``pids`` while a scenario runs, sampled every
    ``every`` seconds by :meth:`watch` (a task), and the tracebacks its ``logs`` gain."""

    pids: Sequence[int]
    logs: Sequence[Path] = ()
    every: float = 0.5
    cpu_start: float = 0.0
    rss_start: int = 0
    rss_peak: int = 0
    rss_samples: list[int] = field(default_factory=list)
    _log_offsets: list[int] = field(default_factory=list)

    _cpu_seen: dict[int, float] = field(default_factory=dict)

    def rss(self) -> int:
        """The processes' resident memory (a process that died: none)."""
        total = 0
        for pid in self.pids:
            with contextlib.suppress(OSError):
                total += rss_bytes(pid)
        return total

    def cpu(self) -> float:
        """The processes' CPU seconds (a process that died, killed on purpose: its last reading)."""
        for pid in self.pids:
            with contextlib.suppress(OSError):
                self._cpu_seen[pid] = cpu_seconds(pid)
        return sum(self._cpu_seen.get(pid, 0.0) for pid in self.pids)

    def start(self) -> None:
        self.cpu_start, self.rss_start = self.cpu(), self.rss()
        self.rss_peak = self.rss_start
        self._log_offsets = [log.stat().st_size if log.exists() else 0 for log in self.logs]

    async def watch(self) -> None:
        """Sample the memory until cancelled."""
        while True:
            self.sample()
            await asyncio.sleep(self.every)

    def sample(self) -> int:
        rss = self.rss()
        self.rss_peak = max(self.rss_peak, rss)
        return rss

    def tracebacks(self) -> int:
        """Tracebacks written to the logs since :meth:`start`."""
        count = 0
        for log, offset in zip(self.logs, self._log_offsets, strict=True):
            with open(log, errors="replace") as f:
                f.seek(offset)
                count += f.read().count(TRACEBACK)
        return count

    def summary(self, seconds: float) -> dict[str, float]:
        """CPU (% of one core, averaged over ``seconds``), RSS start/end/peak (MB), tracebacks."""
        rss_end = self.sample()
        return {
            "cpu_percent": 100 * (self.cpu() - self.cpu_start) / max(seconds, 1e-9),
            "rss_start_mb": self.rss_start / MB,
            "rss_end_mb": rss_end / MB,
            "rss_peak_mb": self.rss_peak / MB,
            "tracebacks": self.tracebacks(),
        }
