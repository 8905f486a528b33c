"""The harness's one table: a row per scenario and page (interactions, errors, latency from rerun
request to script finished), the server's CPU, memory and tracebacks, and each floor of the load targets (docs/deployment.md)
with met or missed; the live class has a table of its own, a row per replica count (how long the
students' pages took to follow the teacher, the answers sent and stored, what idle followers cost).
Floors are benchmarks read by people, never timed tests."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

from bench.load.live_outcome import LiveOutcome, waits
from bench.load.live_script import PLAN
from bench.load.metrics import percentile
from bench.load.scenarios import Outcome, Sample

CLASS_P95_S = 1.0  # (a) every page but Multi-head at 512 pieces
CLASS_P95_S_MH512 = 3.0
BURST_LAST_S = {1: 1.5}  # (b) one process; two or more replicas: BURST_LAST_S_REPLICAS
BURST_LAST_S_REPLICAS = 1.0
SOAK_ALIGNMENT_GROWTH_MB = 50.0  # (c) over 1,000 Alignment reruns
SOAK_MULTI_HEAD_PEAK_MB = 300.0  # (c) peak over start, 200 Multi-head reruns at 128-512 pieces
FLAT_MB = 30.0  # "flat over the last half": the last half grows by less than this
LIVE_P95_S, LIVE_MAX_S = 2.0, 3.0  # a student's page shows the teacher's move
LIVE = "live-class"


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


# -- the live class ------------------------------------------------------------------------------


def upper_percentile(values: list[float], q: float) -> float:
    """:func:`percentile` where ``inf`` (a page that never showed the step) may be among the
    values: inf, not nan, when it is reached."""
    value = percentile(values, q)
    return math.inf if math.isnan(value) and values else value


def seconds_ms(value: float) -> str:
    return "never" if math.isinf(value) else ms(value)


def live_floor(row: dict[str, float], expected_pairs: int) -> bool:
    """p95 ≤ 2 s and max ≤ 3 s over every (move, student), each one shown; 0 answers lost."""
    return (
        row["pairs"] == expected_pairs > 0
        and row["p95"] <= LIVE_P95_S
        and row["max"] <= LIVE_MAX_S
        and row["lost"] == 0
    )


def live_figures(out: LiveOutcome) -> dict[str, float]:
    """The numbers of a live-class run: waits over every (move, student), answers, idle CPU."""
    pairs = waits(out.moves, out.shown)
    click = [a for a, _ in pairs]
    after = [b for _, b in pairs]
    joined = len(out.shown)
    followed = sum(
        all(not math.isinf(a) for a in click[i::joined]) for i in range(joined)
    )  # pairs go move by move, the students in the same order in each
    per_s = out.idle_cpu_s / out.idle_seconds if out.idle_seconds > 0 else math.nan
    return {
        "joined": joined,
        "followed": followed if out.moves else 0,
        "moves": len(out.moves),
        "pairs": sum(1 for a in click if not math.isinf(a)),
        "p50": upper_percentile(click, 50),
        "p95": upper_percentile(click, 95),
        "max": max(click, default=math.nan),
        "p95_after": upper_percentile(after, 95),
        "lost": out.answers_sent - max(out.answers_stored, 0),
        "errors": sum(1 for s in out.samples if s.error),
        "cpu_per_s": per_s,
        "cpu_per_follower_ms": 1000 * per_s / joined if joined else math.nan,
    }


def live_row(run: Run, moves_planned: int = len(PLAN)) -> dict[str, object]:
    """The live-class table's row for ``run``."""
    out = run.outcome
    assert isinstance(out, LiveOutcome)
    f = live_figures(out)
    met = live_floor(f, moves_planned * out.students)
    return {
        "replicas": run.replicas,
        "students": f"{f['joined']}/{out.students}",
        "followed": f["followed"],
        "moves": f"{f['moves']}/{moves_planned}",
        "shown": f"{f['pairs']}/{moves_planned * out.students}",
        "p50": seconds_ms(f["p50"]),
        "p95": seconds_ms(f["p95"]),
        "max": seconds_ms(f["max"]),
        "p95_after": seconds_ms(f["p95_after"]),
        "answers": f"{out.answers_sent} / {out.answers_saved} / {out.answers_stored}",
        "idle": "–" if math.isnan(f["cpu_per_s"]) else f"{f['cpu_per_s']:.2f}",
        "per_follower": "–"
        if math.isnan(f["cpu_per_follower_ms"])
        else f"{f['cpu_per_follower_ms']:.1f}",
        "errors": f["errors"],
        "floor": f"p95 ≤ {LIVE_P95_S:g} s, max ≤ {LIVE_MAX_S:g} s, 0 lost",
        "met": "met" if met else "missed",
    }


LIVE_COLUMNS = (
    ("replicas", "replicas"),
    ("students", "joined"),
    ("followed", "followed all"),
    ("moves", "moves"),
    ("shown", "pages shown"),
    ("p50", "p50 ms"),
    ("p95", "p95 ms"),
    ("max", "max ms"),
    ("p95_after", "p95 ms after the teacher's run"),
    ("answers", "answers sent / saved / stored"),
    ("idle", "idle CPU s/s"),
    ("per_follower", "per follower ms/s"),
    ("errors", "errors"),
    ("floor", "floor"),
    ("met", ""),
)


def live_lines(run: Run) -> list[str]:
    """Each move's slowest student, the followers' timer reruns, and what went wrong."""
    out = run.outcome
    assert isinstance(out, LiveOutcome)
    errors = Counter(f"{s.profile} {s.move}: {s.error}" for s in out.samples if s.error)
    wrong = [
        f"live-class, {run.replicas} replica(s): errors: "
        + "; ".join(f"{text} ×{n}" for text, n in errors.most_common())
    ]
    pairs = waits(out.moves, out.shown)
    per_move = len(out.shown) or 1
    slowest = [
        max((a for a, _ in pairs[i * per_move : (i + 1) * per_move]), default=math.nan)
        for i in range(len(out.moves))
    ]
    return [
        f"live-class, {run.replicas} replica(s): the slowest page per move (s, moves 1-"
        f"{len(out.moves)}): " + ", ".join(f"{x:.2f}" for x in slowest),
        f"live-class, {run.replicas} replica(s): {out.events} revisions delivered by the "
        f"students' event streams ({out.streams_refused} refused), {out.fragment_reruns} "
        f"fragment reruns sent by timers; idle window {out.idle_seconds:.1f} s, the replicas' CPU "
        f"{out.idle_cpu_s:.2f} s over it",
        *(wrong if errors else []),
    ]


# -- the markdown ---------------------------------------------------------------------------------


def markdown(columns: tuple[tuple[str, str], ...], body: list[dict[str, object]]) -> list[str]:
    """A markdown table: text columns left, numbers right."""
    text = ("scenario", "page", "floor", "answers")
    head = "| " + " | ".join(label for _, label in columns) + " |"
    sep = "|" + "|".join("---" if k in text else "--:" for k, _ in columns) + "|"
    lines = ["| " + " | ".join(str(row[k]) for k, _ in columns) + " |" for row in body]
    return [head, sep, *lines]


def table(runs: list[Run], note: str = "") -> str:
    """The markdown table of every run (the live class's in a table of its own), then the
    server and detail lines."""
    others = [run for run in runs if run.scenario != LIVE]
    live = [run for run in runs if run.scenario == LIVE]
    parts = [note, ""] if note else []
    if others:
        parts += [*markdown(COLUMNS, [row for run in others for row in rows(run)]), ""]
    if live:
        parts += ["Live class:", "", *markdown(LIVE_COLUMNS, [live_row(r) for r in live]), ""]
    details = [f"- {line}" for run in runs for line in detail_lines(run)]
    details += [f"- {line}" for run in live for line in live_lines(run)]
    return "\n".join([*parts, *details])
