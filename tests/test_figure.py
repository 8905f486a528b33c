"""viz.figure: the app takes figures as built (no plotly validation, 3-6 ms each); what it sends
the browser must be what the validated figure would send, for every kind of figure the pages
redraw on an interaction."""

from __future__ import annotations

import json

import numpy as np
import pytest

from viz.alignment import alignment_heatmap, alignment_lines
from viz.anatomy import weights_bar
from viz.figure import VALIDATE_ENV, colour_scale, figure
from viz.heatmaps import diff_heatmap
from viz.lab import probe_player
from viz.local_heatmap import local_heatmap
from viz.multi_head import head_grid, head_heatmap

WORDS = ["the", "cat", "sat", "down"]
W = np.random.default_rng(0).dirichlet(np.ones(4), 4)  # (4, 4)
BUILDERS = {
    "alignment heatmap": lambda: alignment_heatmap(W, WORDS, WORDS, title="weights"),
    "alignment lines": lambda: alignment_lines(W, WORDS, WORDS, threshold=0.1),
    "local heatmap": lambda: local_heatmap(
        W, WORDS, WORDS, [1.0, 2.0, 2.5, 3.0], [[0, 2], [1, 3], [1, 3], [2, 3]], title="l"
    ),
    "difference": lambda: diff_heatmap(W - 0.25, WORDS, WORDS),
    "weights bar": lambda: weights_bar(W[0], WORDS, title="a"),
    "head": lambda: head_heatmap(W, WORDS, WORDS, title="head"),
    "head grid": lambda: head_grid(np.full((2, 2, 3, 3), 1 / 3)),
    "lab player": lambda: probe_player(
        [W, W[::-1]], [0, 10], WORDS, WORDS, titles=["a", "b"], index=1
    ),
}


def _sent(build, monkeypatch: pytest.MonkeyPatch, validate: str) -> dict:
    monkeypatch.setenv(VALIDATE_ENV, validate)
    return json.loads(build().to_json())


@pytest.mark.parametrize("name", list(BUILDERS))
def test_unvalidated_figures_send_what_validated_ones_do(name, monkeypatch):
    build = BUILDERS[name]
    assert _sent(build, monkeypatch, "0") == _sent(build, monkeypatch, "1")


def test_named_colour_scales_are_plotly_pys(monkeypatch):
    """plotly.js's own "Blues" is another scale: the name never reaches the browser."""
    monkeypatch.setenv(VALIDATE_ENV, "0")
    fig = figure(
        {
            "data": [{"type": "heatmap", "z": [[1]], "colorscale": "Blues"}],
            "layout": {"coloraxis": {"colorscale": "RdBu"}},
            "frames": [{"data": [{"type": "heatmap", "colorscale": "Viridis"}]}],
        }
    )
    assert fig.data[0].colorscale == tuple(map(tuple, colour_scale("Blues")))
    assert fig.layout.coloraxis.colorscale[0][1] == colour_scale("RdBu")[0][1]
    assert not isinstance(fig.frames[0].data[0].colorscale, str)


def test_the_suite_validates(monkeypatch):
    """Where the tests run, a misspelt property fails (the app would silently drop it)."""
    monkeypatch.setenv(VALIDATE_ENV, "1")
    with pytest.raises(ValueError, match="colourscale"):
        figure({"data": [{"type": "heatmap", "colourscale": "Blues"}]})
