"""Process-wide settings for serving: how many CPU threads torch may use per operation, and how
long a thread keeps Python's interpreter lock before it hands it over (how many script runs work
at once: :mod:`serve.slots`).

This module must be imported before anything imports torch (``app.py`` imports it first): the
OpenMP runtime reads ``OMP_NUM_THREADS`` once, when torch loads it.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

from serve.fresh_sessions import run_whole_in_new_sessions

THREADS_ENV = "ATLAS_TORCH_THREADS"


def _threads_wanted() -> int:
    """ATLAS_TORCH_THREADS when it is a positive integer, else 1."""
    raw = os.environ.get(THREADS_ENV, "1")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 1


# Streamlit runs every rerun, and every fragment rerun, in a new thread. ``torch.set_num_threads``
# sets only the calling thread's OpenMP thread count; a new thread starts from OMP_NUM_THREADS,
# or from the number of cores, and its first matrix products wait for a pool of threads
# (docs/performance.md, "Two settings every page relies on").
for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, str(_threads_wanted()))

import torch  # noqa: E402 - after the OpenMP settings above

# Every session's rerun is a thread, and every torch operation lets go of the interpreter lock.
# With Python's default switch interval (5 ms) thirty reruns at once hand the lock round after
# nearly every operation, and the server's event loop, which sends the results, queues behind
# them (a lock convoy): a longer interval answers a burst of Enters sooner, with less CPU
# (`make load SCENARIO=burst`; docs/performance.md, "Serving settings"). Reruns of one student are
# not slowed: a thread that waits for a torch result or for the network gives the lock away at once.
SWITCH_INTERVAL_S = 0.05
sys.setswitchinterval(SWITCH_INTERVAL_S)


def configure_torch_threads() -> int:
    """Limit torch's intra-op threads in the calling thread (default 1; ATLAS_TORCH_THREADS).

    The app's models are small and Streamlit already serves each session in its own thread. With
    several threads per op, tiny matmuls on a busy CPU spend most of their time waiting for the
    thread pool (docs/performance.md, "Two settings every page relies on").
    """
    threads = _threads_wanted()
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


_frozen = False


def freeze_long_lived(*, again: bool = False) -> None:
    """Collect garbage once, then move every object alive into the collector's permanent
    generation (``gc.freeze``), so that later collections skip them.

    The server holds the modules of streamlit, plotly, torch and transformers: hundreds of
    thousands of tracked objects, which a full collection walks (docs/performance.md, "Two
    settings every page relies on"). Reruns allocate enough to start one every few interactions,
    in the middle of someone's click; after the freeze a collection skips them. Called on the
    first run (imports done) and, with ``again``, after each model load (its lazy imports and
    modules live as long as the process).
    """
    global _frozen
    if _frozen and not again:
        return
    gc.collect()
    gc.freeze()
    _frozen = True


def keep_finished_runs() -> None:
    """Work around a race in Streamlit 1.67 (its script runner, reported upstream) that a live class's followers meet:
    a ``run_every`` fragment's timer rerun that reaches a script runner which has just finished
    (its messages not yet sent) makes the session start a new runner, and the finished run's
    messages are then dropped ("Ignoring event from non-current ScriptRunner"): the page misses
    a whole run, and a student's page stops following the teacher until reloaded. Such a timer
    rerun is dropped instead; the timer sends the next one an interval later (docs/deployment.md,
    "Live class under load"). Installed once per process."""
    from serve.streamlit_private import ScriptRunner

    if getattr(ScriptRunner.request_rerun, "_atlas_keeps_finished_runs", False):
        return
    original = ScriptRunner.request_rerun

    def request_rerun(self, rerun_data) -> bool:
        accepted = original(self, rerun_data)
        if not accepted and rerun_data.fragment_id and rerun_data.is_auto_rerun:
            return True  # a timer's tick: skip it rather than drop the finished run's messages
        return accepted

    request_rerun._atlas_keeps_finished_runs = True
    ScriptRunner.request_rerun = request_rerun


def keep_config_sections() -> None:
    """Read each section of Streamlit's configuration once, not in every run.

    Streamlit 1.67 builds a session message at the start of every run, a fragment's too (a
    lecture hall's move is one per student), and fills its six theme sections by scanning all
    of its ~370 options once per section (``config.get_options_for_section``): about a tenth of
    a student's fragment rerun. The sections are kept per parse of the configuration (a parse
    makes a new options table) and handed out as copies. Installed once per process.
    """
    from serve.streamlit_private import config

    if getattr(config.get_options_for_section, "_atlas_kept", False):
        return
    original = config.get_options_for_section
    read_from = None  # the options table the kept sections were read from
    kept: dict[str, dict] = {}

    def get_options_for_section(section: str) -> dict:
        nonlocal read_from
        options = config.get_config_options()
        if options is not read_from:  # parsed again: read every section anew
            read_from = options
            kept.clear()
        if section not in kept:
            kept[section] = original(section)
        return dict(kept[section])

    get_options_for_section._atlas_kept = True
    config.get_options_for_section = get_options_for_section


# What every session's first run imports: the pages (app.py's imports) and what plotly imports
# lazily when it checks a value's type (pandas).
SHARED_MODULES = ("pandas", "plotly.graph_objects", "ui.registry")


def import_before_sessions() -> None:
    """Import :data:`SHARED_MODULES` in the server's own thread, before any session runs.

    Every session's run is a thread of its own. Two first runs importing one module at once,
    each while holding another module's import lock, make Python hand one of them the module half
    made rather than wait for ever: plotly then fails with "partially initialized module 'pandas'
    has no attribute 'Series'" (two students opening Captions in a class's first seconds).
    """
    for name in SHARED_MODULES:
        importlib.import_module(name)


def before_sessions() -> None:
    """What a serving process does once, before its first session (``serve/asgi.py``, and the
    load harness's bare page): the shared imports, Streamlit's theme read once, and a fragment's
    rerun in a new session run as its whole page (:mod:`serve.fresh_sessions`)."""
    import_before_sessions()
    keep_config_sections()
    run_whole_in_new_sessions()
