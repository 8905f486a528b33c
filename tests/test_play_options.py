"""The options of the chart component's play behaviour (viz/play.py) and the two figures that use
them: the Local attention step chart (its window slides along p_t) and the captions' word player.

play.js redraws the traces that ``local_play`` names as the Gaussian around the p_t marker's x;
these tests hold those names to the figure: in every frame, trace 1 is at p_t and traces 0 and 2
are exp(-(x - p_t)^2 / (2 sigma^2)) (trace 2 cut at +-D), as play.js computes them in between.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.test_viz_alignment import _local
from viz.captions import WORD_MS, attention_player_figure, player_play
from viz.local_steps import FRAME_MS, local_play, local_steps_figure
from viz.play import MAX_FPS, MIN_FPS, play_options


def _gaussian(x: np.ndarray, p: float, sigma: float, half_width: float | None) -> np.ndarray:
    """play.js's in-between curve, in numpy."""
    y = np.exp(-((x - p) ** 2) / (2 * sigma**2))
    return y if half_width is None else y * (np.abs(x - p) <= half_width)


def test_play_options_are_plain_json_and_checked():
    options = play_options(seconds_per_frame=0.5)
    assert options == {
        "fps": 30,
        "seconds_per_frame": 0.5,
        "gaussian": None,
        "fade": False,
        "pause_label": None,
        "step_trigger": False,
    }
    assert json.loads(json.dumps(options)) == options
    assert play_options(seconds_per_frame=1, fps=MIN_FPS)["fps"] == MIN_FPS
    for bad in ({"fps": MIN_FPS - 1}, {"fps": MAX_FPS + 1}, {"seconds_per_frame": 0}):
        with pytest.raises(ValueError):
            play_options(**({"seconds_per_frame": 0.5} | bad))
    with pytest.raises(ValueError):
        play_options(seconds_per_frame=1, gaussian={"sigma": 0, "centre_trace": 1, "traces": []})


def test_local_play_names_the_figures_gaussian_traces():
    D = 2
    raw, final, gauss, p_t, window = _local(D=D)
    fig = local_steps_figure(
        raw, final, gauss, p_t, window, D, [f"s{i}" for i in range(6)], ["x", "y", "z"]
    )
    options = local_play(D)
    assert options["seconds_per_frame"] == FRAME_MS / 1000 and options["fps"] >= MIN_FPS
    assert not options["fade"]  # the bars and the window move
    spec = options["gaussian"]
    assert spec["sigma"] == D / 2
    for t, frame in enumerate(fig.frames):
        centre = frame.data[spec["centre_trace"]]
        assert list(centre.x) == [p_t[t], p_t[t]]  # the p_t marker
        for follow in spec["traces"]:
            trace = frame.data[follow["trace"]]
            want = _gaussian(np.asarray(trace.x), p_t[t], spec["sigma"], follow["half_width"])
            assert np.allclose(trace.y, want), (t, follow)
    assert [f["half_width"] for f in spec["traces"]] == [None, D]  # the curve, the factors
    with pytest.raises(ValueError):
        local_play(0)


def test_player_play_keeps_the_figures_pace_and_toggles():
    image = np.full((224, 224, 3), 200, dtype=np.uint8)
    words = ["a", "cat", "above", "a", "dog"]
    fig = attention_player_figure(image, np.full((len(words), 14, 14), 1 / 196), words)
    options = player_play()
    play = fig.layout.updatemenus[0].buttons[0]
    assert play.args[0] is None  # play.js takes this button over (it plays from the current word)
    assert options["seconds_per_frame"] == play.args[1]["frame"]["duration"] / 1000
    assert options["seconds_per_frame"] == WORD_MS / 1000
    assert options["pause_label"] == "❚❚ pause" and options["gaussian"] is None
    assert options["fade"]  # sampled cells fade out and in, never travel between cells
    assert len(fig.frames) == len(words)
