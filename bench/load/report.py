"""The harness's one table: a row per scenario and page (interactions, errors, latency from rerun
request to script finished), the server's CPU, memory and tracebacks, and each floor of issue 17
with met or missed. Floors are benchmarks read by people, never timed tests."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from bench.load.metrics import percentile
from bench.load.scenarios import Outcome, Sample

CLASS_P95_S = 1.0  # (a) every page but Multi-head at 512 pieces
CLASS_P95_S_MH512 = 3.0
BURST_LAST_S = {1: 1.5}  # (b) one process; two or more replicas: BURST_LAST_S_REPLICAS
BURST_LAST_S_REPLICAS = 1.0
SOAK_ALIGNMENT_GROWTH_MB = 50.0  # (c) over 1,000 Alignment reruns
SOAK_MULTI_HEAD_PEAK_MB = 300.0  # (c) peak over start, 200 Multi-head reruns at 128-512 pieces
FLAT_MB = 30.0  # "flat over the last half": the last half grows by less than this


@dataclass(frozen=True)
class Run:
    """One scenario run: its name, replica count, the outcome, the server's summary
    (:meth:`bench.load.metrics.ServerWatch.summary`) and its wall-clock seconds."""

    scenario: str
    replicas: int
    outcome: Outcome
    server: dict[str, float]
    seconds: float


def ms(value: float) -> str:
    return "–" if math.isnan(value) else f"{1000 * value:,.0f}"


def _latencies(samples: list[Sample]) -> list[float]:
    return [s.seconds for s in samples if s.seconds is not None and s.error is None]


def class_floor(profile: str, samples: list[Sample], errors: int) -> tuple[str, bool]:
    limit = CLASS_P95_S_MH512 if profile == "multi_head@512" else CLASS_P95_S
    p95 = percentile(_latencies(samples), 95)
    return f"0 errors, p95 ≤ {limit:g} s", errors == 0 and p95 <= limit


def burst_floor(run: Run) -> tuple[str, bool]:
    limit = BURST_LAST_S.get(run.replicas, BURST_LAST_S_REPLICAS)
    last = max((r["last_s"] for r in run.outcome.rounds), default=math.nan)
    return f"last ≤ {limit:g} s", last <= limit


def soak_floor(run: Run) -> tuple[str, bool]:
    series = run.outcome.rss_series
    if len(series) < 3:  # no half to compare the end with
        return "too few RSS readings", False
    start, end = series[0][1], series[-1][1]
    half = min(series, key=lambda point: abs(point[0] - series[-1][0] / 2))[1]
    flat = end - half < FLAT_MB
    if run.scenario == "soak-alignment":
        return f"RSS +< {SOAK_ALIGNMENT_GROWTH_MB:g} MB", end - start < SOAK_ALIGNMENT_GROWTH_MB
    peak = run.server["rss_peak_mb"] - start
    return (
        f"peak +< {SOAK_MULTI_HEAD_PEAK_MB:g} MB, flat",
        peak < SOAK_MULTI_HEAD_PEAK_MB and flat,
    )


def rows(run: Run) -> list[dict[str, object]]:
    """The table's rows for ``run``: one per page (profile)."""
    by_profile: dict[str, list[Sample]] = defaultdict(list)
    for sample in run.outcome.samples:
        by_profile[sample.profile].append(sample)
    out = []
    for profile, samples in sorted(by_profile.items()):
        moves = [s for s in samples if s.move not in ("open", "first")]
        opens = [s for s in samples if s.move == "open"]
        errors = sum(1 for s in samples if s.error)
        lat = _latencies(moves)
        if run.scenario == "class":
            floor, met = class_floor(profile, moves, errors)
        elif run.scenario == "burst":
            floor, met = burst_floor(run)
            met = met and errors == 0
        else:
            floor, met = soak_floor(run)
        out.append(
            {
                "scenario": run.scenario,
                "replicas": run.replicas,
                "page": profile,
                "sessions": len(opens),
                "interactions": len(moves),
                "errors": errors,
                "p50": ms(percentile(lat, 50)),
                "p95": ms(percentile(lat, 95)),
                "max": ms(max(lat, default=math.nan)),
                "floor": floor,
                "met": "met" if met else "missed",
            }
        )
    return out


COLUMNS = (
    ("scenario", "scenario"),
    ("replicas", "replicas"),
    ("page", "page"),
    ("sessions", "sessions"),
    ("interactions", "interactions"),
    ("errors", "errors"),
    ("p50", "p50 ms"),
    ("p95", "p95 ms"),
    ("max", "max ms"),
    ("floor", "floor"),
    ("met", ""),
)


def server_line(run: Run) -> str:
    s = run.server
    return (
        f"{run.scenario}, {run.replicas} replica(s), {run.seconds:.0f} s: server CPU "
        f"{s['cpu_percent']:.0f}% of one core on average, RSS {s['rss_start_mb']:.0f} → "
        f"{s['rss_end_mb']:.0f} MB (peak {s['rss_peak_mb']:.0f}), "
        f"{s['tracebacks']:.0f} server tracebacks"
    )


def detail_lines(run: Run) -> list[str]:
    """Burst rounds (the last student's wait) and soak memory series, one line each."""
    lines = [server_line(run)]
    if run.outcome.rounds:
        lines.append(
            f"burst, {run.replicas} replica(s): last answer per round "
            + ", ".join(f"{r['last_s']:.2f}" for r in run.outcome.rounds)
            + " s (p50 per round "
            + ", ".join(f"{r['p50_s']:.2f}" for r in run.outcome.rounds)
            + " s)"
        )
    if run.outcome.rss_series:
        series = ", ".join(f"{n}: {mb:.0f}" for n, mb in run.outcome.rss_series)
        lines.append(f"{run.scenario}: server RSS (MB) after n reruns: {series}")
    return lines


def table(runs: list[Run], note: str = "") -> str:
    """The markdown table of every run, then the server and detail lines."""
    head = "| " + " | ".join(label for _, label in COLUMNS) + " |"
    sep = (
        "|"
        + "|".join("---" if k in ("scenario", "page", "floor") else "--:" for k, _ in COLUMNS)
        + "|"
    )
    body = [
        "| " + " | ".join(str(row[k]) for k, _ in COLUMNS) + " |"
        for run in runs
        for row in rows(run)
    ]
    details = [f"- {line}" for run in runs for line in detail_lines(run)]
    return "\n".join([*([note, ""] if note else []), head, sep, *body, "", *details])
