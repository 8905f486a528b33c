"""The three class loads (a page each, bursts, a class on every page), as coroutines over :class:`bench.load.client.Session`:

- ``class``: ``sessions`` students open their page over a ``ramp`` (a class arriving), then each
  makes ``moves`` changes with ``pause`` seconds of thinking between them, in the lesson's mix
  of pages (:data:`bench.load.pages.LESSON`);
- ``burst``: ``sessions`` students on Alignment press Enter on a new sentence within ``spread``
  seconds of each other ("now!"), ``rounds`` times; what counts is when the last one sees it;
- ``soak-alignment`` / ``soak-multi-head``: one student making ``n`` reruns back to back (new
  sentences; MiniLM at 128-512 pieces), the server's memory read every ``rss_every`` reruns.

Each returns its :class:`Sample` list (one per timed request) and, for burst and soak, the rounds
or the memory series. Connection failures end a student and count as errors; so do a page's
error boxes.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from websockets.exceptions import ConnectionClosed, WebSocketException

from bench.load.client import LoadError, Session
from bench.load.metrics import MB, ServerWatch, percentile
from bench.load.pages import PROFILES, Profile, class_profiles, sentence, text_with_pieces

FAILURES = (LoadError, OSError, WebSocketException)
# What a replica's death does to a request in flight: a websocket closed, a connection refused
# or reset, a response cut short (requests' errors are OSErrors)
CUT_OFF = (ConnectionClosed, OSError)


@dataclass(frozen=True)
class Sample:
    """One timed request: the profile, the move ('open' for the first view), its seconds
    (None when it failed), and what went wrong."""

    profile: str
    move: str
    seconds: float | None
    error: str | None = None


@dataclass
class Outcome:
    """A scenario's samples and its extra series (burst rounds, soak memory)."""

    samples: list[Sample] = field(default_factory=list)
    rounds: list[dict[str, float]] = field(default_factory=list)
    rss_series: list[tuple[int, float]] = field(default_factory=list)  # (reruns done, MB)


async def timed(
    s: Session, profile: str, move: str, call: Callable[[], Awaitable[float]], out: Outcome
) -> bool:
    """Run ``call`` and record it; False when the connection failed (the student stops)."""
    before = len(s.errors)
    try:
        seconds = await call()
    except FAILURES as exc:
        if isinstance(exc, CUT_OFF) and getattr(out, "killed_at", None) is not None:
            raise  # a replica killed on purpose (the lecture hall): the caller reconnects
        out.samples.append(Sample(profile, move, None, f"{type(exc).__name__}: {exc}"[:200]))
        return isinstance(exc, LoadError) and "no widget" in str(exc)
    out.samples.append(Sample(profile, move, seconds, "; ".join(s.errors[before:]) or None))
    return True


async def student(
    url: str,
    profile: Profile,
    moves: int,
    pause: tuple[float, float],
    rng: random.Random,
    out: Outcome,
    delay: float = 0.0,
) -> None:
    """One student on ``profile``: open the page after ``delay`` s, then ``moves`` changes."""
    await asyncio.sleep(delay)
    s = Session(url, profile.page, profile.query)
    try:
        ok = await timed(s, profile.name, "open", s.open, out)
        if ok and profile.first is not None:
            ok = await timed(s, profile.name, "first", lambda: profile.first(s, rng), out)
        for _ in range(moves if ok else 0):
            await asyncio.sleep(rng.uniform(*pause))
            name, act = profile.pick(rng)
            if not await timed(s, profile.name, name, lambda act=act: act(s, rng), out):
                break
    finally:
        await s.close()


async def class_load(
    out: Outcome,
    url: str,
    sessions: int,
    moves: int,
    pause: tuple[float, float],
    ramp: float,
    seed: int,
) -> Outcome:
    """Scenario (a): a class in the lesson's mix, arriving over ``ramp`` seconds."""
    rng = random.Random(seed)
    students = [
        student(url, p, moves, pause, random.Random(rng.random()), out, rng.uniform(0, ramp))
        for p in class_profiles(sessions)
    ]
    await asyncio.gather(*students)
    return out


async def _open_all(out: Outcome, url: str, profile: Profile, n: int) -> list[Session]:
    sessions = [Session(url, profile.page, profile.query) for _ in range(n)]
    for chunk in range(0, n, 5):  # a few at a time: the burst is the Enter, not the arrival
        await asyncio.gather(
            *(timed(s, profile.name, "open", s.open, out) for s in sessions[chunk : chunk + 5])
        )
    return sessions


async def burst(
    out: Outcome, url: str, sessions: int, rounds: int, spread: float, seed: int
) -> Outcome:
    """Scenario (b): ``sessions`` Enters on Alignment within ``spread`` s, ``rounds`` times."""
    rng = random.Random(seed)
    students = await _open_all(out, url, PROFILES["alignment"], sessions)

    async def press(s: Session, r: random.Random) -> tuple[float, float]:
        await asyncio.sleep(r.uniform(0, spread))
        start = time.perf_counter()
        await timed(s, "alignment", "enter", lambda: s.set("aln_text", sentence(r)), out)
        return start, time.perf_counter()

    try:
        for number in range(1, rounds + 1):
            await asyncio.sleep(3.0)  # the class reads the last answer
            first = len(out.samples)
            times = await asyncio.gather(*(press(s, random.Random(rng.random())) for s in students))
            waits = [x.seconds or math.inf for x in out.samples[first:]]  # a failure: never
            out.rounds.append(
                {
                    "round": number,
                    "last_s": max(waits, default=float("nan")),
                    "p50_s": percentile(waits, 50),
                    "span_s": max(e for _, e in times) - min(s for s, _ in times),
                }
            )
    finally:
        await asyncio.gather(*(s.close() for s in students))
    return out


async def soak(
    out: Outcome, url: str, which: str, reruns: int, rss_every: int, watch: ServerWatch, seed: int
) -> Outcome:
    """Scenario (c): ``reruns`` back-to-back reruns on Alignment (``which`` = 'alignment': new
    sentences) or Multi-head (MiniLM at 128-512 pieces), the server's RSS every ``rss_every``
    reruns, or more often where that would give fewer than five readings (a short soak)."""
    every = max(1, min(rss_every, reruns // 4))
    rng = random.Random(seed)
    profile = PROFILES["alignment" if which == "alignment" else "multi_head@128"]
    label = "alignment" if which == "alignment" else "multi_head@128-512"
    s = Session(url, profile.page, profile.query)
    try:
        if not await timed(s, label, "open", s.open, out):
            return out
        out.rss_series.append((0, watch.sample() / MB))
        for i in range(1, reruns + 1):
            if which == "alignment":
                key, value = "aln_text", sentence(rng)
            else:
                key, value = "mh_text", text_with_pieces(rng.randint(128, 512))
            if not await timed(s, label, "rerun", lambda k=key, v=value: s.set(k, v), out):
                break
            if i % every == 0 or i == reruns:
                out.rss_series.append((i, watch.sample() / MB))
    finally:
        await s.close()
    return out


async def warm_up(urls: list[str], profiles: list[Profile], seed: int = 0) -> None:
    """Open each profile once on each replica and make two moves (models loaded, caches and
    imports warm), so that the figures are for a running server, not its first minute."""
    rng = random.Random(seed)
    for url in urls:
        for profile in profiles:
            await student(url, profile, 2, (0.0, 0.0), rng, Outcome())
