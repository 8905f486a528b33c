"""Several page views at once in the session's one Chromium: a small pool of tabs, each view a
job that loads its page and waits for states, the waits of every tab polled in turn.

A job is a generator function ``job(page)``: it drives its tab with Playwright's ordinary (sync)
calls, and where it would wait for the page it ``yield``s a :class:`Wait` instead (a JavaScript
predicate): the pool polls that predicate, every ``polling_ms``, between the other tabs' while
Chromium draws them all, and resumes the job with True once it holds or False once
``timeout_ms`` has passed. What the job returns is its result; what it raises is its result too
(raised again by :meth:`TabPool.result`). So a sweep of page views, one test each, spends the
time of its slowest tabs instead of the sum of all their quiet waits.

``TabPool(open_tab, width)``: ``open_tab(key)`` makes a tab for the jobs of that key (a browser
context with its viewport, say); a tab is kept for the next job of the same key, and at most
``width`` tabs are open. Jobs are added with :meth:`add` and started in that order as tabs come
free; :meth:`result` runs the pool until the job asked for has finished (the others go on in the
background of the next test), :meth:`run` until all have.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Hashable
from dataclasses import dataclass, field
from typing import Any

Job = Callable[[Any], Generator["Wait", bool, Any]]


@dataclass(frozen=True)
class Wait:
    """Wait until ``script`` (a JavaScript function of ``arg``) returns something truthy."""

    script: str
    arg: Any = None
    timeout_ms: float = 120_000
    polling_ms: float = 250


class WaitTimeout(AssertionError):
    """A :class:`Wait` a job needed did not hold in time."""


def need(ok: bool, what: str) -> None:
    """Raise :class:`WaitTimeout` (``what`` did not happen in time) unless ``ok``."""
    if not ok:
        raise WaitTimeout(f"timed out waiting for {what}")


LOADED = Wait("() => document.readyState === 'complete'")  # page.goto's default: the load event


def goto(page, url: str) -> Generator[Wait, bool, None]:
    """``page.goto(url)`` without blocking the pool while the page loads (``yield from``)."""
    page.goto(url, wait_until="commit")
    need((yield LOADED), f"{url} to load")


@dataclass
class _Tab:
    key: Hashable
    page: Any
    close: Callable[[], None]


@dataclass
class _Running:
    name: Hashable
    tab: _Tab
    gen: Generator
    wait: Wait | None = None
    deadline: float = 0.0
    due: float = 0.0


@dataclass
class TabPool:
    """Up to ``width`` tabs of one browser, driven together (see the module docstring)."""

    open_tab: Callable[[Hashable], tuple[Any, Callable[[], None]]]
    width: int = 3
    pending: list[tuple[Hashable, Hashable, Job]] = field(default_factory=list)
    results: dict[Hashable, tuple[bool, Any]] = field(default_factory=dict)
    running: list[_Running] = field(default_factory=list)
    idle: list[_Tab] = field(default_factory=list)

    def add(self, name: Hashable, key: Hashable, job: Job) -> None:
        """Queue ``job`` under ``name`` (its result's name), for a tab of ``key``."""
        self.pending.append((name, key, job))

    def result(self, name: Hashable) -> Any:
        """Run the pool until the job ``name`` has finished; its return value (or raise what it
        raised)."""
        known = [n for n, __, __ in self.pending] + [r.name for r in self.running]
        if name not in self.results and name not in known:
            raise KeyError(name)
        while name not in self.results:
            self._step()
        ok, value = self.results.pop(name)
        if not ok:
            raise value
        return value

    def run(self) -> None:
        """Run every job to its end."""
        while self.pending or self.running:
            self._step()

    def close(self) -> None:
        """Close every tab (the jobs not finished are dropped)."""
        for job in self.running:
            job.gen.close()
            self.idle.append(job.tab)
        self.running.clear()
        for tab in self.idle:
            tab.close()
        self.idle.clear()

    # ------------------------------------------------------------------ the loop

    def _tab(self, key: Hashable) -> _Tab:
        for tab in self.idle:
            if tab.key == key:
                self.idle.remove(tab)
                return tab
        if self.idle and len(self.idle) + len(self.running) >= self.width:
            self.idle.pop(0).close()  # a tab of a key whose jobs are done: make room
        return _Tab(key, *self.open_tab(key))

    def _start(self) -> None:
        while self.pending and len(self.running) < self.width:
            name, key, job = self.pending.pop(0)
            tab = self._tab(key)
            running = _Running(name, tab, job(tab.page))
            self.running.append(running)
            self._advance(running, None)

    def _advance(self, job: _Running, value: bool | None) -> None:
        """Resume ``job`` with ``value`` up to its next wait, or record its end."""
        try:
            wait = job.gen.send(value)
        except StopIteration as stop:
            self._finish(job, (True, stop.value))
        except Exception as error:  # the job's failure is its result
            self._finish(job, (False, error))
        else:
            now = time.monotonic()
            job.wait, job.deadline, job.due = wait, now + wait.timeout_ms / 1000, now

    def _finish(self, job: _Running, result: tuple[bool, Any]) -> None:
        self.results[job.name] = result
        self.running.remove(job)
        self.idle.append(job.tab)

    def _holds(self, job: _Running) -> bool:
        from playwright.sync_api import Error

        try:
            return bool(job.tab.page.evaluate(job.wait.script, job.wait.arg))
        except Error:  # the page is navigating: its context is gone, not yet there
            return False

    def _step(self) -> None:
        """Start what may start, then poll every tab whose wait is due once."""
        self._start()
        if not self.running:
            return
        soonest = min(job.due for job in self.running)
        time.sleep(max(0.0, soonest - time.monotonic()))  # poll interval: until the next due wait
        for job in list(self.running):
            now = time.monotonic()
            if job.due > now:
                continue
            if self._holds(job):
                self._advance(job, True)
            elif now >= job.deadline:
                self._advance(job, False)
            else:
                job.due = now + job.wait.polling_ms / 1000
