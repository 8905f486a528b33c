"""``make load``: a class of headless students against the app, and one table.

    python -m bench.load [--scenario class|burst|soak|all|live-class] [--sessions 30]
                         [--interactions 20] [--replicas 1,2] [--quick] ...

For each replica count it starts the app (``deploy.serve_class``: N processes on loopback ports,
behind nginx when N > 1 or with ``--proxy``), warms every page up on every replica, runs the
scenarios (:mod:`bench.load.scenarios`) and prints the table (:mod:`bench.load.report`), also
written to ``runs/load/``. Everything is on 127.0.0.1, bounded in count (``MAX_*``) and in time
(``--time-limit``: what has been measured by then is reported), and stops by itself. ``--quick``
shrinks every size for a check that the harness works (its figures are not the floors').

``live-class`` (:mod:`bench.load.live_class`: a teacher and 60 followers, on 1 and then 2
replicas unless ``--replicas`` says otherwise, the replicas sharing a fresh class store) is not
part of ``all``: it needs a class store of its own, and ``all`` is long already.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
import urllib.parse
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path

from bench.load import hall_report, lecture_hall, live_class, scenarios
from bench.load.live_outcome import LiveOutcome
from bench.load.live_script import LESSON
from bench.load.metrics import ServerWatch
from bench.load.pages import PROFILES, class_profiles
from bench.load.report import Run, table
from deploy.serve_class import ROOT, SERVER_ENV, Served, serve_class
from serve.launch import streamlit_server

MAX_SESSIONS, MAX_INTERACTIONS, MAX_RERUNS, MAX_REPLICAS = 200, 200, 5000, 8
MAX_HALL = 500  # students in the lecture hall
MAX_IDLE_S = 600.0
BARE_ENTRY = ROOT / "bench" / "load" / "bare_asgi.py"  # --bare: the students' page
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
SCENARIOS = ("class", "burst", "soak-alignment", "soak-multi-head")  # "all"
LIVE = "live-class"
HALL = "lecture-hall"
DEFAULT_SESSIONS = {LIVE: 60, HALL: 300}  # others: 30
DEFAULT_REPLICAS = {LIVE: "1,2", HALL: "2"}  # others: 1
QUICK = {
    "sessions": 6,
    "think": "0.2,0.8",
    "idle": 4.0,
    "interactions": 3,
    "pause": "0.5,1.5",
    "ramp": 2.0,
    "rounds": 2,
    "soak_alignment": 30,
    "soak_multi_head": 6,
    "rss_every": 10,
}


def parse_load_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--scenario", default="all", choices=("all", "class", "burst", "soak", LIVE, HALL)
    )
    p.add_argument(
        "--sessions",
        type=int,
        help="students (class, burst: 30; live-class: 60; lecture-hall: 300)",
    )
    p.add_argument("--interactions", type=int, default=20, help="moves per student (class)")
    p.add_argument("--pause", default="4,12", help="seconds between moves: min,max (class)")
    p.add_argument("--ramp", type=float, default=60.0, help="seconds over which a class arrives")
    p.add_argument("--rounds", type=int, default=5, help="bursts (burst)")
    p.add_argument("--spread", type=float, default=1.0, help="seconds one burst's Enters span")
    p.add_argument("--soak-alignment", type=int, default=1000, help="Alignment reruns (soak)")
    p.add_argument("--soak-multi-head", type=int, default=200, help="Multi-head reruns (soak)")
    p.add_argument("--rss-every", type=int, default=100, help="reruns between RSS readings")
    p.add_argument("--think", default="0.5,3", help="seconds before an answer (live-class)")
    p.add_argument("--idle", type=float, default=20.0, help="idle seconds (live-class)")
    p.add_argument("--replicas", help="replica counts, e.g. 1,2 (live-class: 1,2; others: 1)")
    p.add_argument("--proxy", action="store_true", help="nginx in front even of one replica")
    p.add_argument("--url", help="an app already serving on loopback (no CPU/RSS figures)")
    p.add_argument("--app", type=Path, default=ROOT / "app.py", help="the app.py to serve")
    p.add_argument("--quick", action="store_true", help="small sizes: does the harness work?")
    p.add_argument(
        "--kill-replica",
        action="store_true",
        help="lecture-hall: kill -9 one replica during the first vote (2 replicas or more)",
    )
    p.add_argument(
        "--bare",
        action="store_true",
        help="lecture-hall: the students on a bare page of Streamlit's (the stack's floor), "
        "the teacher on the atlas (bench/load/bare_join.py)",
    )
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--time-limit", type=float, default=2400.0, help="seconds for everything")
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "load")
    args = p.parse_args(argv)
    if args.quick:
        for name, value in QUICK.items():
            if getattr(args, name) == p.get_default(name):
                setattr(args, name, value)
    if args.sessions is None:
        args.sessions = DEFAULT_SESSIONS.get(args.scenario, 30)
    replicas = args.replicas or DEFAULT_REPLICAS.get(args.scenario, "1")
    args.pause = tuple(float(x) for x in args.pause.split(","))
    args.think = tuple(float(x) for x in args.think.split(","))
    args.replicas = [int(x) for x in str(replicas).split(",")]
    bounds = (
        (args.sessions, MAX_HALL if args.scenario == HALL else MAX_SESSIONS),
        (args.interactions, MAX_INTERACTIONS),
        (max(args.soak_alignment, args.soak_multi_head), MAX_RERUNS),
        (max(args.replicas), MAX_REPLICAS),
    )
    if any(not 1 <= value <= bound for value, bound in bounds) or min(args.replicas) < 1:
        p.error(f"sizes must be positive and at most {bounds}")
    if not 0 <= args.idle <= MAX_IDLE_S or min(args.think) < 0:
        p.error(f"--idle from 0 to {MAX_IDLE_S:g} s, --think not negative")
    if args.kill_replica and (args.scenario != HALL or min(args.replicas) < 2 or args.url):
        p.error("--kill-replica: the lecture hall, on 2 replicas or more that it starts")
    if args.bare and (args.scenario != HALL or args.url):
        p.error("--bare: the lecture hall, on replicas that it starts")
    if args.url and urllib.parse.urlsplit(args.url).hostname not in LOOPBACK:
        p.error("the harness only loads a server on this machine (127.0.0.1)")
    return args


def chosen(args: argparse.Namespace) -> list[str]:
    if args.scenario == "all":
        return list(SCENARIOS)
    if args.scenario == "soak":
        return ["soak-alignment", "soak-multi-head"]
    return [args.scenario]


def profiles_for(names: list[str], args: argparse.Namespace) -> list:
    """The page profiles the scenarios use (what the warm-up opens)."""
    wanted = set()
    for name in names:
        if name in (LIVE, HALL):
            continue  # live_class.warm_up
        if name == "class":
            wanted |= {p.name for p in class_profiles(args.sessions)}
        elif name == "soak-multi-head":
            wanted |= {"multi_head@128", "multi_head@512"}
        else:
            wanted.add("alignment")
    return [PROFILES[n] for n in PROFILES if n in wanted]


def scenario_call(
    name: str, out, served: Served, watch: ServerWatch, args: argparse.Namespace, teacher: str
):
    url = served.url
    if name == HALL:
        kill = lecture_hall.Kill(served.replica_urls, served.pids) if args.kill_replica else None
        return lecture_hall.lecture_hall(
            out,
            url,
            watch,
            args.sessions,
            args.think,
            args.idle,
            args.seed,
            args.ramp,
            kill,
            teacher_url=teacher or None,
        )
    if name == LIVE:
        return live_class.live_class(
            out, url, watch, args.sessions, args.think, args.idle, args.seed
        )
    if name == "class":
        return scenarios.class_load(
            out, url, args.sessions, args.interactions, args.pause, args.ramp, args.seed
        )
    if name == "burst":
        return scenarios.burst(out, url, args.sessions, args.rounds, args.spread, args.seed)
    reruns = args.soak_alignment if name == "soak-alignment" else args.soak_multi_head
    which = name.removeprefix("soak-")
    return scenarios.soak(out, url, which, reruns, args.rss_every, watch, args.seed)


async def run_one(
    name: str, served: Served, replicas: int, args, deadline: float, teacher: str = ""
) -> Run:
    """One scenario against ``served``, watched (``teacher``: the teacher's own server, --bare);
    stops at ``deadline`` with what it has."""
    watch = ServerWatch(served.pids, served.logs)
    watch.start()
    sampler = asyncio.create_task(watch.watch())
    out = {LIVE: LiveOutcome, HALL: lecture_hall.HallOutcome}.get(name, scenarios.Outcome)()
    if args.bare:
        out.page = lecture_hall.BARE_PAGE
    start = time.monotonic()
    try:
        async with asyncio.timeout(deadline - time.monotonic()):
            await scenario_call(name, out, served, watch, args, teacher)
    except TimeoutError:
        print(f"{name}: stopped at the time limit; reporting what was measured")
    finally:
        sampler.cancel()
    seconds = time.monotonic() - start
    unknown = ("cpu_percent", "rss_start_mb", "rss_end_mb", "rss_peak_mb", "tracebacks")
    server = watch.summary(seconds) if served.pids else dict.fromkeys(unknown, float("nan"))
    return Run(name, replicas, out, server, seconds)


async def run_replicas(replicas: int, names: list[str], args, deadline: float) -> list[Run]:
    if args.url:
        served = Served(args.url, (args.url,), (), ())
        return [await run_one(n, served, replicas, args, deadline) for n in names]
    proxy = replicas > 1 or args.proxy
    run_dir = args.out / f"servers-{time.strftime('%Y%m%d-%H%M%S')}-{replicas}"  # logs kept
    with ExitStack() as stack:
        if LIVE in names:  # the replicas inherit the class store's environment
            stack.enter_context(live_class.shared_store())
        if HALL in names:  # PostgreSQL, shared by the replicas
            stack.enter_context(lecture_hall.hall_store())
        app = BARE_ENTRY if args.bare else args.app.resolve()
        teacher = ""  # --bare: the teacher's page on an atlas of its own, the students' on app
        if args.bare:
            run_dir.mkdir(parents=True, exist_ok=True)
            log = run_dir / "teacher.log"
            teacher, _ = stack.enter_context(streamlit_server("app.py", log, env=SERVER_ENV))
        served = stack.enter_context(serve_class(replicas, run_dir=run_dir, proxy=proxy, app=app))
        print(f"{replicas} replica(s) at {served.url}; warming up", flush=True)
        await scenarios.warm_up(list(served.replica_urls), profiles_for(names, args))
        if LIVE in names or HALL in names:
            lessons = [teacher] if teacher else list(served.replica_urls)
            query = f"warm={LESSON}" if teacher else ""  # the bare page poses the questions
            await live_class.warm_up(lessons, list(served.replica_urls), query)
        runs = []
        for name in names:
            print(f"running {name} on {replicas} replica(s)", flush=True)
            runs.append(await run_one(name, served, replicas, args, deadline, teacher))
        return runs


def machine_note(args: argparse.Namespace, before: float) -> str:
    """When, where and how: ``before`` is the 1-minute load average before the run."""
    load1, load5, _ = os.getloadavg()
    size = "quick sizes (not the floors' sizes)" if args.quick else "full sizes"
    return (
        f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average {before:.1f} "
        f"(1 min) before the run, {load1:.1f} (1 min) / {load5:.1f} (5 min) at the end, {size}, "
        f"seed {args.seed}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_load_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on the way out
    names = chosen(args)
    before = os.getloadavg()[0]
    deadline = time.monotonic() + args.time_limit
    runs: list[Run] = []
    for replicas in args.replicas:
        runs += asyncio.run(run_replicas(replicas, names, args, deadline))
    halls = [run for run in runs if run.scenario == HALL]
    text = table([run for run in runs if run.scenario != HALL], machine_note(args, before))
    if halls:
        text += "\n\n" + hall_report.hall_table(halls)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (args.out / f"load-{stamp}.md").write_text(text + "\n")
    data = [
        {
            **asdict(run.outcome),
            **run.server,
            "scenario": run.scenario,
            "replicas": run.replicas,
            "seconds": run.seconds,
        }
        for run in runs
    ]
    (args.out / f"load-{stamp}.json").write_text(json.dumps(data, indent=1))
    print(f"\nwritten to {args.out}/load-{stamp}.md and .json")


if __name__ == "__main__":
    main()
