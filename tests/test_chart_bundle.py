"""The chart component's plotly.js (plotly's cartesian bundle, ``components/atlas-plotly``): the
version plotly.py writes its figures for, and every trace type the atlas's code writes defined in
it (a trace of a type the bundle lacks would be drawn as nothing, silently)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from atlas_plotly import (
    BUNDLE,
    PLOTLY_JS,
    TRACES,
    bundle_version,
    ensure_plotly_js,
    plotly_py_version,
)

from ui.registry import ROOT

# go.Heatmap( ... and {"type": "heatmap", ... / trace = {"type": "histogram", ...
_GO_TRACE = re.compile(r"\bgo\.([A-Z][a-z0-9]+)\(")
_DICT_TRACE = re.compile(r'"type": "([a-z0-9]+)"')
NOT_TRACES = {"buttons", "category", "line", "log", "rect", "linear", "date", "path", "circle"}
NOT_TRACE_CLASSES = {"figure", "frame", "layout"}


def _trace_types_in_code() -> set[str]:
    """The trace types written in the app's code (viz/, ui/, app_pages/)."""
    found = set()
    for folder in ("viz", "ui", "app_pages"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            found |= {name.lower() for name in _GO_TRACE.findall(text)} - NOT_TRACE_CLASSES
            found |= set(_DICT_TRACE.findall(text)) - NOT_TRACES
    return found


def test_the_bundle_is_the_version_plotly_py_writes_for():
    assert bundle_version(BUNDLE) == plotly_py_version()
    assert bundle_version(ensure_plotly_js()) == plotly_py_version()
    assert PLOTLY_JS.stat().st_size == BUNDLE.stat().st_size
    assert PLOTLY_JS.stat().st_size < 2_000_000  # the cartesian bundle, not the full 4.8 MB one


def test_every_trace_type_of_the_code_is_listed():
    assert _trace_types_in_code() <= set(TRACES)
    assert {"heatmap", "scatter", "bar"} <= _trace_types_in_code()  # the scan finds them


@pytest.fixture
def blank(browser) -> Iterator[object]:
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.mark.browser
def test_the_bundle_defines_every_listed_trace_type(blank):
    blank.add_script_tag(path=str(ensure_plotly_js()))
    defined = blank.evaluate("() => Object.keys(Plotly.PlotSchema.get().traces)")
    assert set(TRACES) <= set(defined), set(TRACES) - set(defined)
    assert (
        "scatter3d" not in defined
    )  # the partial bundle: what the atlas does not draw is left out
