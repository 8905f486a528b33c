"""serve.memory: a plotly figure is a reference cycle (only the cyclic collector frees it), and a run
whose charts came to the limit collects it before it ends; a small run does not pay for a
collection; only the outermost block collects."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import numpy as np
import plotly.graph_objects as go
import pytest

from serve import memory as garbage
from viz.figure import figure


@pytest.fixture
def no_automatic_gc() -> Iterator[None]:
    """Only explicit collections, so that what frees a figure is known."""
    was = gc.isenabled()
    gc.disable()
    gc.collect()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _dead_figure() -> weakref.ref:
    """A figure with a 64 x 64 heatmap, built and let go of; a weak reference to it."""
    fig = figure({"data": [{"type": "heatmap", "z": np.ones((64, 64)).tolist()}]})
    return weakref.ref(fig)


def test_a_figure_is_freed_only_by_the_collector(no_automatic_gc) -> None:
    ref = _dead_figure()
    assert ref() is not None  # the cycle keeps it alive after the last reference went
    gc.collect()
    assert ref() is None


def test_a_run_with_large_charts_collects_at_its_end(no_automatic_gc) -> None:
    with garbage.collected_after_large_figures(limit=1000):
        ref = _dead_figure()
        garbage.note_figure(600)
        garbage.note_figure(600)
        assert ref() is not None
    assert ref() is None


def test_a_run_with_small_charts_does_not_collect(no_automatic_gc) -> None:
    with garbage.collected_after_large_figures(limit=1000):
        ref = _dead_figure()
        garbage.note_figure(999)
    assert ref() is not None
    with garbage.collected_after_large_figures(limit=1000):  # a new run counts from zero
        garbage.note_figure(999)
    assert ref() is not None
    gc.collect()


def test_only_the_outermost_block_collects(no_automatic_gc) -> None:
    with garbage.collected_after_large_figures(limit=1000):
        with garbage.collected_after_large_figures(limit=1000):  # a fragment inline in its page
            ref = _dead_figure()
            garbage.note_figure(5000)
        assert ref() is not None
    assert ref() is None


def test_figure_bytes_counts_heatmap_cells() -> None:
    fig = go.Figure(go.Heatmap(z=np.zeros((30, 40))))
    fig.add_trace(go.Scatter(x=[1, 2], y=[3, 4]))
    assert garbage.figure_bytes(fig.to_dict()) == 8 * 30 * 40
    assert garbage.figure_bytes(go.Figure().to_dict()) == 0
