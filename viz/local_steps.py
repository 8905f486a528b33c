"""Luong local attention step by step, as a plotly animation (pure plotly, no streamlit, no torch).

Three stacked panels share the source axis: the Gaussian exp(-(s - p_t)^2 / (2 sigma^2)) with
sigma = D/2 and the marker at p_t, the raw weights (softmax inside the window), and the final
weights = raw x Gaussian (Luong et al. 2015, eq. 10). The shaded band is the window [p_t - D, p_t + D].
A play button and a slider inside the figure step through the target tokens without a server trip;
with the chart component, :func:`local_play` makes that play smooth (the window slides along p_t).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from i18n import N_, _
from viz._checks import as_matrix, check_labels, escape
from viz.axes import token_axis
from viz.figure import figure
from viz.heatmaps import COLUMN_PX
from viz.measure import Y_TICKS_PAD_PX, cells_extent, fitted_margin, widest_px
from viz.palette import BLUE, SKY_BLUE, VERMILLION, YELLOW
from viz.play import GaussianFollow, PlayOptions, play_options, slider_steps

WINDOW_FILL = YELLOW
RAW = SKY_BLUE
FINAL = BLUE
GAUSS = VERMILLION
FRAME_MS = 900
CURVE_POINTS = 96  # samples of the Gaussian curve (drawn as a spline)


def _gaussian_traces(p: float, D: float, s: np.ndarray, factor: np.ndarray) -> list[dict]:
    """The top panel at one step: the Gaussian curve around ``p`` (p_t, sigma = D/2), the p_t
    marker, and the Gaussian ``factor`` at each source position ``s``."""
    dense = np.linspace(-0.5, len(s) - 0.5, CURVE_POINTS)
    sigma = D / 2
    curve = np.exp(-((dense - p) ** 2) / (2 * sigma**2))
    return [
        {
            "type": "scatter",
            "x": dense,
            "y": curve,
            "mode": "lines",
            "name": _("Gaussian, sigma = D/2"),
            "line": {"color": GAUSS, "shape": "spline"},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": [p, p],
            "y": [0, 1.08],
            "mode": "lines+markers",
            "name": "p_t",
            "line": {"color": GAUSS, "dash": "dash"},
            "marker": {"symbol": "triangle-down", "size": 11},
            "hovertemplate": f"p_t = {p:.2f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": s,
            "y": factor,
            "mode": "markers",
            "name": _("Gaussian factor at s"),
            "marker": {"color": GAUSS, "size": 7},
            "hovertemplate": "s=%{x}: %{y:.3f}<extra></extra>",
        },
    ]


def _weight_bars(s: np.ndarray, raw: np.ndarray, final: np.ndarray) -> list[dict]:
    """The raw and the final weights of one step over the source positions ``s``, as bars."""
    # i18n: the extra of a hover label: which weights the bar shows
    raw_name, final_name = _("raw"), _("final")
    return [
        {
            "type": "bar",
            "x": s,
            "y": raw,
            "name": _("raw weights"),
            "marker": {"color": RAW},
            "hovertemplate": f"s=%{{x}}: %{{y:.3f}}<extra>{raw_name}</extra>",
        },
        {
            "type": "bar",
            "x": s,
            "y": final,
            "name": _(FINAL_TITLE),
            "marker": {"color": FINAL},
            "hovertemplate": f"s=%{{x}}: %{{y:.3f}}<extra>{final_name}</extra>",
        },
    ]


def _step_traces(
    t: int, p_t: np.ndarray, D: float, raw: np.ndarray, final: np.ndarray, factor: np.ndarray
) -> list[dict]:
    """The five traces of step t (plain dicts): Gaussian curve,
    p_t marker, factor dots, raw bars, final bars, each on its panel's y axis."""
    s = np.arange(raw.shape[1])
    traces = [*_gaussian_traces(p_t[t], D, s, factor[t]), *_weight_bars(s, raw[t], final[t])]
    for trace, axis in zip(traces, PANEL_OF_TRACE, strict=True):
        trace |= {"xaxis": "x", "yaxis": axis}
    return traces


PANEL_OF_TRACE = ("y3", "y3", "y3", "y2", "y")  # Gaussian panel on top, raw, final at the bottom
FINAL_TITLE = N_("final weights = raw x Gaussian")
PANEL_TITLES = {  # marked with N_, translated where drawn
    "y3": N_("Gaussian around p_t (sigma = D/2)"),
    "y2": N_("raw weights (softmax in the window)"),
    "y": FINAL_TITLE,
}
# The figure's rows, in px for plotly's 12 px font (ui.charts scales them all in classroom mode),
# from the top: the two-line title, the play buttons, the step slider, then the three panels,
# each under its title, and the source tokens. Nothing overlaps at any width: every position is
# known here, so plotly draws the figure once.
TITLE_PX = 52  # the title's two lines (17 px font)
BUTTONS_PX = 34  # the play and pause buttons
SLIDER_PX = 54  # the slider's rail, ticks and labels (its current value is the title)
PANEL_PX, PANEL_GAP_PX = 120, 40  # a panel's height; between panels, room for the next title
TOP_PX = TITLE_PX + BUTTONS_PX + SLIDER_PX + PANEL_GAP_PX
PLOT_PX = 3 * PANEL_PX + 2 * PANEL_GAP_PX
Y_TICKS = [0, 0.5, 1]


def _panel_layout() -> dict:
    """Three stacked y axes sharing one x axis, laid out by hand (make_subplots is slow); each
    panel's title sits in the gap above it."""
    layout: dict = {"xaxis": {"anchor": "y"}, "annotations": []}
    for index, axis in enumerate(("y", "y2", "y3")):
        low = index * (PANEL_PX + PANEL_GAP_PX) / PLOT_PX
        domain = [round(low, 6), round(low + PANEL_PX / PLOT_PX, 6)]
        top = 1.12 if axis == "y3" else 1.02
        layout["yaxis" + axis[1:]] = {
            "domain": domain,
            "anchor": "x",
            "range": [0, top],
            "tickmode": "array",
            "tickvals": Y_TICKS,
            "ticktext": [f"{v:g}" for v in Y_TICKS],
        }
        layout["annotations"].append(
            {
                "text": _(PANEL_TITLES[axis]),
                "xref": "paper",
                "yref": "paper",
                "x": 0,  # at the left: a long sentence's figure is wider than the screen
                "xanchor": "left",
                "y": domain[1],
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 13},
            }
        )
    return layout


def _window_shapes(lo: float, hi: float) -> list[dict]:
    """The shaded window [lo, hi] in each of the three panels."""
    return [
        {
            "type": "rect",
            "xref": "x",
            "yref": f"{axis} domain",
            "x0": lo - 0.5,
            "x1": hi + 0.5,
            "y0": 0,
            "y1": 1,
            "fillcolor": WINDOW_FILL,
            "opacity": 0.3,
            "line": {"width": 0},
            "layer": "below",
            "name": "window",
        }
        for axis in PANEL_TITLES
    ]


def _step_title(t: int, tokens: list[str], p_t: np.ndarray, lo: float, hi: float) -> str:
    """The title at step t, on two lines (the step's token; p_t and the window), so that it
    fits a phone's width."""
    return (
        _("step {t}: {token}").format(t=t, token=tokens[t])
        + "<br>"
        + _("p_t = {p:.2f} · window [{lo:.1f}, {hi:.1f}]").format(p=p_t[t], lo=lo, hi=hi)
    )


def local_play(D: float) -> PlayOptions:
    """The chart component's play options for :func:`local_steps_figure` with window half-width
    ``D``: one step every FRAME_MS, and in between the Gaussian curve (trace 0) and its factors
    (trace 2, 0 outside the window) follow the p_t marker (trace 1) with sigma = D/2; the step it
    comes to rest on is sent back (the page's step slider follows it)."""
    if D <= 0:
        raise ValueError(f"D must be positive, got {D}")
    follow: GaussianFollow = {
        "sigma": D / 2,
        "centre_trace": 1,
        "traces": [{"trace": 0, "half_width": None}, {"trace": 2, "half_width": float(D)}],
    }
    return play_options(seconds_per_frame=FRAME_MS / 1000, gaussian=follow, step_trigger=True)


def _check(
    raw: ArrayLike,
    final: ArrayLike,
    factor: ArrayLike,
    p_t: ArrayLike,
    window: ArrayLike,
    n_tgt: int,
):
    """Validated (raw, final, factor, p_t, window) arrays of matching shapes."""
    raw_, final_, factor_ = (
        as_matrix(raw, "raw"),
        as_matrix(final, "final"),
        as_matrix(factor, "gaussian"),
    )
    p = np.asarray(p_t, dtype=float).ravel()
    w = np.asarray(window, dtype=float).reshape(-1, 2)
    shapes = {raw_.shape, final_.shape, factor_.shape}
    if len(shapes) != 1 or p.size != raw_.shape[0] or w.shape[0] != raw_.shape[0]:
        raise ValueError(f"shapes differ: weights {shapes}, p_t {p.size}, window {w.shape}")
    if raw_.shape[0] != n_tgt or not np.all(np.isfinite(p)):
        raise ValueError(f"{raw_.shape[0]} steps but {n_tgt} target tokens (or p_t not finite)")
    return raw_, final_, factor_, p, w


def local_steps_figure(
    raw_weights: ArrayLike,
    final_weights: ArrayLike,
    gaussian: ArrayLike,
    p_t: ArrayLike,
    window: ArrayLike,
    D: float,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    *,
    step: int = 0,
) -> go.Figure:
    """An animation over target steps of the local window, the Gaussian, raw and final weights.

    raw_weights, final_weights, gaussian: (T_out, T_src); p_t: (T_out,); window: (T_out, 2).
    ``step`` is the frame shown first. Raises ValueError when shapes or labels disagree.
    """
    tgt = check_labels(target_tokens, len(target_tokens), "target tokens")
    raw, final, factor, p, w = _check(raw_weights, final_weights, gaussian, p_t, window, len(tgt))
    src = escape(
        check_labels(source_tokens, raw.shape[1], f"source labels vs {raw.shape[1]} columns")
    )
    tgt = escape(tgt)
    if D <= 0:
        raise ValueError(f"D must be positive, got {D}")
    step = int(np.clip(step, 0, raw.shape[0] - 1))
    margin, angle = _margin(src)
    height = margin["t"] + PLOT_PX + margin["b"]
    frames = [
        {
            "data": _step_traces(t, p, D, raw, final, factor),
            "traces": [0, 1, 2, 3, 4],
            "name": str(t),
            "layout": _frame_layout(t, tgt, p, w, height),
        }
        for t in range(raw.shape[0])
    ]
    layout = _figure_layout(src, tgt, frames[step]["layout"], step, (margin, angle))
    # one validation of the whole figure (graph objects built trace by trace validate each trace)
    return figure({"data": frames[step]["data"], "layout": layout, "frames": frames})


def _frame_layout(t: int, tgt: list[str], p_t: np.ndarray, window: np.ndarray, height: int) -> dict:
    """What changes in the layout at step t: the shaded window and the title (centred in its
    row of a figure ``height`` px tall: plotly anchors a two-line title at the top a line too
    high, and ``title.automargin``, which ui.charts turns on, ignores a y in paper units)."""
    return {
        "shapes": _window_shapes(*window[t]),
        "title": {
            "text": _step_title(t, tgt, p_t, *window[t]),
            "yref": "container",
            "y": 1 - TITLE_PX / 2 / height,
            "xref": "paper",
            "x": 0,
            "xanchor": "left",
            "yanchor": "middle",
        },
    }


def _margin(src: list[str]) -> tuple[dict[str, int], int]:
    """(margin, x tick angle): the title, controls and first panel title above the plot, the
    y ticks on the left, the source tokens and the axis title below."""
    margin, angle = fitted_margin(src, [f"{v:g}" for v in Y_TICKS], y_title=False, top=TOP_PX)
    return margin | {"l": widest_px(["0.5"]) + Y_TICKS_PAD_PX, "r": 20}, angle


def _figure_layout(
    src: list[str], tgt: list[str], first: dict, step: int, fitted: tuple[dict[str, int], int]
) -> dict:
    """The figure's layout: the three panels, the ``first`` frame's window and title, the
    animation controls, and the source tokens on the shared x axis, with the ``fitted`` margin
    and x tick angle of :func:`_margin`. No legend: each panel's title names what it shows. At
    least ``COLUMN_PX`` per source token (``layout.width``: a longer sentence scrolls sideways)."""
    margin, angle = fitted
    layout = (
        _panel_layout()
        | first
        | {
            "margin": margin,
            "height": margin["t"] + PLOT_PX + margin["b"],
            "width": cells_extent(len(src), margin["l"], margin["r"], COLUMN_PX),
            "showlegend": False,
        }
        | _animation_controls(tgt, step)
    )
    layout["xaxis"] |= token_axis(
        src,
        angle=angle,
        range=[-0.6, len(src) - 0.4],
        title={"text": _("source position s")},
    )
    return layout


def _paper_y(px_from_top: float) -> float:
    """The paper y coordinate of a point ``px_from_top`` px under the figure's top edge (above
    the plot area: in the top margin)."""
    return 1 + (TOP_PX - px_from_top) / PLOT_PX


def _animation_controls(target_labels: list[str], step: int) -> dict:
    """Layout entries for the play/pause buttons (a row under the title) and the step slider
    (a row under them) that drive the frames; the slider's labels are the target tokens, and
    the title says which step is shown."""
    play = {
        "frame": {"duration": FRAME_MS, "redraw": True},
        "fromcurrent": True,
        "transition": {"duration": 0},
    }
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}
    flat = {"t": 0, "b": 0, "l": 0, "r": 0}
    buttons = {
        "type": "buttons",
        "direction": "left",
        "x": 0,
        "y": _paper_y(TITLE_PX),
        "xanchor": "left",
        "yanchor": "top",
        "pad": flat,
        "showactive": False,
        "buttons": [
            {"label": _("▶ Play"), "method": "animate", "args": [None, play]},
            {"label": _("❚❚ Pause"), "method": "animate", "args": [[None], pause]},
        ],
    }
    slider = {
        "active": step,
        "x": 0,
        "len": 1,
        "y": _paper_y(TITLE_PX + BUTTONS_PX),
        "yanchor": "top",
        "pad": flat,
        "currentvalue": {"visible": False},
        "steps": slider_steps([f"{t}:{tok}" for t, tok in enumerate(target_labels)]),
    }
    return {"updatemenus": [buttons], "sliders": [slider]}
