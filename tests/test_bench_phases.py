"""bench.phases: one change's timeline cut into its phases."""

from __future__ import annotations

import pytest

from bench.phases import Phases, describe, phases_of


def _timeline() -> list[list]:
    """An Enter: key at 10, sent at 25, messages until 120, two charts drawn one after the
    other (130-170, 175-190), a message of a rerun before the key left out."""
    return [
        ["message", 2.0, None],
        ["key", 10.0, None],
        ["sent", 25.0, None],
        ["message", 40.0, None],
        ["message", 90.0, None],
        ["message", 120.0, None],
        ["draw", 130.0, None],
        ["drawn", 170.0, None],
        ["draw", 175.0, None],
        ["drawn", 190.0, None],
    ]


def test_phases_cut_the_change_at_its_events():
    phases = phases_of(_timeline(), seen=200.0)
    assert phases == Phases(
        input=15.0, server=95.0, streamlit=10.0, charts=60.0, drawing=55.0, after=10.0, messages=3
    )
    assert phases.total == pytest.approx(190.0)  # key -> seen


def test_overlapping_draws_count_once_in_the_drawing_time():
    events = _timeline()[:6] + [
        ["draw", 130.0, None],
        ["draw", 140.0, None],  # a second chart starts before the first ends
        ["drawn", 170.0, None],
        ["drawn", 190.0, None],
    ]
    phases = phases_of(events, seen=190.0)
    assert phases.charts == phases.drawing == 60.0


def test_a_change_that_draws_no_chart_has_no_chart_phase():
    phases = phases_of(_timeline()[:6], seen=150.0)
    assert (phases.streamlit, phases.charts, phases.drawing) == (30.0, 0.0, 0.0)
    assert "charts 0 (drawing 0)" in describe(phases)
