"""The plotly controls of an animated figure (its step slider's steps, its play button) and the
options of the chart component's "play" behaviour (components/atlas-plotly/atlas_plotly/assets/
play.js): a figure's plotly frames played in the browser from the data sent once, drawing
``fps`` states a second, the in-between states interpolated between two frames (motion only: at
each step the chart shows the server's frame exactly). Plain JSON, a played figure's
``Behaviours(play=...)`` in its ``Chart`` (``viz.behaviours``); where the component is off, the
figure's own play button remains.
"""

from __future__ import annotations

from typing import TypedDict

DEFAULT_FPS = 30
MIN_FPS = 15  # below this, motion looks like jumps
MAX_FPS = 60  # a screen's refresh rate: more is never drawn


class GaussianTrace(TypedDict):
    """A trace whose y is exp(-(x - p)^2 / (2 sigma^2)) at its x; 0 where |x - p| > half_width
    (None: never cut)."""

    trace: int
    half_width: float | None


class GaussianFollow(TypedDict):
    """Traces redrawn around the centre p (the first x of ``centre_trace``) as it moves."""

    sigma: float
    centre_trace: int
    traces: list[GaussianTrace]


class PlayOptions(TypedDict):
    """play.js's options: draws per second, seconds from one frame to the next, the Gaussian
    traces (or None), whether changed traces fade out and in (rather than move: points that
    stand for different things in two frames), the label a single play button shows while
    it plays (or None), and whether the step it comes to rest on is sent back to Python (the
    trigger "step": a page's own step control then follows the chart)."""

    fps: int
    seconds_per_frame: float
    gaussian: GaussianFollow | None
    fade: bool
    pause_label: str | None
    step_trigger: bool


def play_options(
    *,
    seconds_per_frame: float,
    fps: int = DEFAULT_FPS,
    gaussian: GaussianFollow | None = None,
    fade: bool = False,
    pause_label: str | None = None,
    step_trigger: bool = False,
) -> PlayOptions:
    """The play behaviour's options; ValueError for a rate outside [MIN_FPS, MAX_FPS] or a
    non-positive time per frame."""
    if not MIN_FPS <= fps <= MAX_FPS:
        raise ValueError(f"fps must be in [{MIN_FPS}, {MAX_FPS}], got {fps}")
    if not seconds_per_frame > 0:
        raise ValueError(f"seconds_per_frame must be positive, got {seconds_per_frame}")
    if gaussian is not None and not gaussian["sigma"] > 0:
        raise ValueError(f"sigma must be positive, got {gaussian['sigma']}")
    return {
        "fps": int(fps),
        "seconds_per_frame": float(seconds_per_frame),
        "gaussian": gaussian,
        "fade": bool(fade),
        "pause_label": pause_label,
        "step_trigger": bool(step_trigger),
    }


def slider_steps(labels: list[str]) -> list[dict]:
    """A plotly slider's steps, one per frame (frames named "0", "1", ...), labelled ``labels``."""
    return [
        {
            "label": label,
            "method": "animate",
            "args": [[str(k)], {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"}],
        }
        for k, label in enumerate(labels)
    ]


def play_button(label: str, frame_ms: int) -> dict:
    """A plotly button that plays the frames from the one shown, ``frame_ms`` apart."""
    return {
        "label": label,
        "method": "animate",
        "args": [None, {"frame": {"duration": frame_ms, "redraw": True}, "fromcurrent": True}],
    }
