"""A run that sent large figures collects its garbage before it ends, and hands the freed pages
back to the operating system, instead of leaving both to Python's collector and to glibc.

Plotly's figure objects are reference cycles (every trace and layout part points back to its
figure), so a figure and the arrays it holds are freed only by the cyclic collector, never when the
page lets go of it. With Streamlit's collection after every run turned off (``runner.postScriptGC``
in ``.streamlit/config.toml``) and the long-lived heap frozen
(:func:`serve.runtime.freeze_long_lived`), the collector's oldest generation runs seldom, and each
Multi-head rerun at 512 pieces would leave its dead figures behind: a class's memory grows by
hundreds of megabytes (``make load SCENARIO=soak``; docs/performance.md, "Serving settings"). A
full collection skips the frozen heap and costs a few milliseconds, so it is paid only by a run
whose charts came to :data:`LARGE_BYTES` or more (the Multi-head page's maps), not by an
Alignment Enter (tens of KB). The pages it frees go back with :func:`models.native_memory.give_back`.
"""

from __future__ import annotations

import gc
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from models.native_memory import give_back

LARGE_BYTES = 1024 * 1024
_run = threading.local()  # .depth: collected_after_large_figures blocks entered; .bytes: noted


def note_figure(nbytes: int) -> None:
    """Count ``nbytes`` (a chart's payload, or an estimate of it) against the current run."""
    _run.bytes = getattr(_run, "bytes", 0) + nbytes


def figure_bytes(spec: dict) -> int:
    """An estimate of the bytes the heatmaps of a figure's plain dict (``Figure.to_dict()``) send
    (8 a cell): for a chart drawn without the component, whose payload Streamlit builds."""
    cells = 0
    for trace in spec.get("data") or ():
        z = trace.get("z")
        if isinstance(z, dict):  # plotly's typed array: {"dtype", "bdata"[, "shape": "rows, cols"]}
            shape = z.get("shape")
            cells += math.prod(int(n) for n in str(shape).split(",")) if shape else 1
        elif z is not None and len(z):
            cells += len(z) * (len(z[0]) if hasattr(z[0], "__len__") else 1)
    return 8 * cells


@contextmanager
def collected_after_large_figures(limit: int = LARGE_BYTES) -> Iterator[None]:
    """Run the block; at its end, a full collection if the charts noted during it
    (:func:`note_figure`) came to ``limit`` bytes or more. Re-entrant: only the outermost block
    (a page's run, or a fragment's own rerun) counts and collects."""
    depth = getattr(_run, "depth", 0)
    if depth == 0:
        _run.bytes = 0
    _run.depth = depth + 1
    try:
        yield
    finally:
        _run.depth = depth
        if depth == 0 and _run.bytes >= limit:
            _run.bytes = 0
            gc.collect()
            give_back()  # the freed figures' pages, to the operating system
