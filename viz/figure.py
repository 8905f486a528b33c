"""The one way a figure builder makes its ``go.Figure``: from plain plotly JSON (dicts, lists and
numpy arrays), checked by plotly's validators where ``$ATLAS_VALIDATE_FIGURES`` is 1 (the test
suite sets it: every builder runs there, so a misspelt property fails a test) and taken as built
elsewhere. Validation costs milliseconds a figure (an Alignment rerun builds five), time that a
class's thirty simultaneous Enters spend one after another (the figure: docs/performance.md, "On
the server").

The one thing validation does that plotly.js would do differently: a named colour scale
("Blues") becomes plotly.py's colours (plotly.js has other colours under some of the same
names), so unvalidated figures get their named scales resolved here, the same way."""

from __future__ import annotations

import functools
import os

import plotly.graph_objects as go

VALIDATE_ENV = "ATLAS_VALIDATE_FIGURES"


def figure(spec: dict) -> go.Figure:
    """``go.Figure(spec)``, validated only where ``$ATLAS_VALIDATE_FIGURES`` is 1; otherwise with
    the named colour scales of its traces, frames and colour axis resolved (``spec`` changes)."""
    if os.environ.get(VALIDATE_ENV) == "1":
        return go.Figure(spec)
    traces = [*spec.get("data", ()), *(t for f in spec.get("frames", ()) for t in f["data"])]
    for node in [*traces, spec.get("layout", {}).get("coloraxis") or {}]:
        if isinstance(node.get("colorscale"), str):
            node["colorscale"] = colour_scale(node["colorscale"])
    return go.Figure(spec, _validate=False)


@functools.cache
def colour_scale(name: str) -> list:
    """A named colour scale as plotly.py writes it into a figure's dict."""
    return go.Heatmap(colorscale=name).to_plotly_json()["colorscale"]
