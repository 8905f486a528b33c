"""The lecture hall's table (:mod:`bench.load.lecture_hall`): a row per run, each figure beside
its floor, and what went wrong below it.

The floors: teacher's move -> every student's page p95 <= 1 s and p99 <= 2 s (over every
(move, student) pair; a page that never showed the move counts as infinitely late); join p95
<= 1 s; errors <= 0.5% of the students' requests; answers shown as saved = answers stored, and
one student in the store per student who joined; the idle students cost <= 0.3 CPU-seconds per
second in all (the replicas' CPU over the idle window on the summary).
"""

from __future__ import annotations

import math
from collections import Counter

from bench.load.lecture_hall import BACK_FLOOR_S, HallOutcome
from bench.load.live_outcome import waits
from bench.load.live_script import PLAN
from bench.load.metrics import percentile
from bench.load.report import Run, markdown, seconds_ms, upper_percentile

MOVE_P95_S, MOVE_P99_S, JOIN_P95_S, ERROR_SHARE, IDLE_CPU = 1.0, 2.0, 1.0, 0.005, 0.3

COLUMNS = (
    ("students", "students joined (store)"),
    ("replicas", "replicas"),
    ("page", "students' page"),
    ("move", "move -> page p50 / p95 / p99 ms"),
    ("shown", "pages shown"),
    ("join", "join p50 / p95 ms"),
    ("rejoin", "rejoin p95 ms, same / with answer"),
    ("errors", "errors"),
    ("answers", "answers saved / stored"),
    ("idle", "idle CPU s/s"),
    ("met", "floors met"),
)


def figures(out: HallOutcome) -> dict[str, float]:
    pairs = waits(out.moves, out.shown)
    click = [a for a, _ in pairs]
    requests = sum(1 for s in out.samples if s.profile == "student")
    failed = sum(1 for s in out.samples if s.profile == "student" and s.error)
    failed += out.students - out.joined_harness  # a student who never got in
    return {
        "p50": upper_percentile(click, 50),
        "p95": upper_percentile(click, 95),
        "p99": upper_percentile(click, 99),
        "shown": sum(1 for a in click if not math.isinf(a)),
        "pairs": len(PLAN) * out.students,
        "join50": percentile(out.joins, 50),
        "join95": percentile(out.joins, 95),
        "rejoin95": percentile(out.rejoins, 95),
        "errors": failed,
        "error_share": failed / max(requests, 1),
        "idle": out.idle_cpu_s / out.idle_seconds if out.idle_seconds > 0 else math.nan,
    }


def row(run: Run) -> dict[str, object]:
    out = run.outcome
    assert isinstance(out, HallOutcome)
    f = figures(out)
    floors = {
        "move p95": f["p95"] <= MOVE_P95_S and f["shown"] == f["pairs"],
        "p99": f["p99"] <= MOVE_P99_S,
        "join": f["join95"] <= JOIN_P95_S,
        "errors": f["error_share"] <= ERROR_SHARE,
        "answers": out.answers_saved == out.answers_stored
        and out.joined_store == out.joined_harness,
        "idle": f["idle"] <= IDLE_CPU,
    }
    met = [name for name, ok in floors.items() if ok]
    return {
        "students": f"{out.joined_harness}/{out.students} ({out.joined_store})",
        "replicas": run.replicas,
        "page": out.page,
        "move": " / ".join(seconds_ms(f[k]) for k in ("p50", "p95", "p99")),
        "shown": f"{f['shown']}/{f['pairs']}",
        "join": f"{seconds_ms(f['join50'])} / {seconds_ms(f['join95'])}",
        "rejoin": f"{seconds_ms(f['rejoin95'])}, {out.rejoins_same}/{len(out.rejoins)}"
        f" / {out.rejoins_answer_shown}/{out.rejoins_after_answer}",
        "errors": f"{f['errors']} ({100 * f['error_share']:.1f}%)",
        "answers": f"{out.answers_saved} / {out.answers_stored}",
        "idle": "–" if math.isnan(f["idle"]) else f"{f['idle']:.2f}",
        "met": f"{len(met)}/{len(floors)}: " + (", ".join(met) or "none"),
    }


def lines(run: Run) -> list[str]:
    out = run.outcome
    assert isinstance(out, HallOutcome)
    errors = Counter(f"{s.profile} {s.move}: {s.error}" for s in out.samples if s.error)
    said = [
        f"lecture-hall, {out.students} students, {run.replicas} replica(s): {out.events} "
        f"revisions delivered by the streams, {out.asks} page reruns asked for, "
        f"{out.streams_refused} streams refused; answers sent {out.answers_sent}; idle window "
        f"{out.idle_seconds:.1f} s, the replicas' CPU {out.idle_cpu_s:.2f} s over it; the "
        f"replicas' CPU over the whole run {run.server.get('cpu_percent', math.nan):.0f}% of "
        "one core"
    ]
    if out.killed_at is not None:
        back = sorted(out.back)
        worst = f"{back[-1]:.1f}" if back else "-"
        met = len(back) == out.cut_off and (not back or back[-1] <= BACK_FLOOR_S)
        said.append(
            f"lecture-hall, {out.students} students: kill -9 of one replica during the vote at "
            f"step {out.kill_step}: {out.cut_off} pages cut off, {len(back)} back on the step "
            f"(p50 {percentile(back, 50):.1f} s, p95 {percentile(back, 95):.1f} s, slowest "
            f"{worst} s after the kill), {out.back_with_answer} of {out.answered_when_cut} "
            f"with their saved answer shown; every page back within {BACK_FLOOR_S:g} s: "
            + ("met" if met else "missed")
        )
    if errors:
        said.append(
            f"lecture-hall, {out.students} students: errors: "
            + "; ".join(f"{text} ×{n}" for text, n in errors.most_common(8))
        )
    return said


def hall_table(runs: list[Run]) -> str:
    if not runs:
        return ""
    body = markdown(COLUMNS, [row(r) for r in runs])
    floors = (
        f"Floors: move p95 ≤ {MOVE_P95_S:g} s (every page shown), p99 ≤ {MOVE_P99_S:g} s, join "
        f"p95 ≤ {JOIN_P95_S:g} s, errors ≤ {100 * ERROR_SHARE:g}%, answers saved = stored and "
        f"one student in the store per join, idle ≤ {IDLE_CPU:g} CPU-s/s."
    )
    details = [f"- {line}" for run in runs for line in lines(run)]
    pages = (
        "Students' page: atlas, the atlas's join page; bare, a page of Streamlit's with only the "
        "caption, the listener and the pills (bench/load/bare_join.py): the stack's floor."
    )
    return "\n".join(["Lecture hall:", "", *body, "", floors, pages, "", *details])
