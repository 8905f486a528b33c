"""Figures of a lesson's reveal: the model's answer with the student's guess drawn over it.

Horizontal bars (one labelled row per option, top to bottom) so that every token keeps its label
at any width and nothing scrolls sideways; the guess is outlined in orange, the model's top
choice in blue, and for local-p the centre p_t and the window [p_t - D, p_t + D] are drawn
across the rows. Pure builders: arrays and labels in, ``go.Figure`` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from viz._checks import escape
from viz.axes import token_axis
from viz.captions import blend, data_uri
from viz.figure import figure
from viz.measure import LEGEND_ROW_PX, widest_px
from viz.palette import (
    BLACK,
    BLUE,
    MUTED_BLUE,
    REDDISH_PURPLE,
    TRANSPARENT,
    VERMILLION,
    WHITE,
    rgba,
)

INK = BLUE  # the model's answer
GUESS = VERMILLION  # the student's guess
MUTED = MUTED_BLUE
ROW_PX = 20  # a bar and its gap: the figure stays within a projector's first screen
BAR_MARGIN = {"t": 56, "b": 48, "r": 24}


def guess_bars(
    labels: Sequence[str],
    values: Sequence[float],
    guess: int | None,
    best: int,
    *,
    title: str,
    value_name: str,
    window: tuple[float, float] | None = None,
    centre: float | None = None,
) -> go.Figure:
    """One bar per option (``values``, the model's numbers), the ``best`` bar in blue and the
    ``guess`` (None: no guess) outlined in orange, its label marked ▶ in orange; ``centre`` and ``window`` (positions, for local-p) are drawn
    as a line and a band across the rows."""
    values = np.asarray(values, dtype=float)  # (n,)
    n = len(values)
    if len(labels) != n or not 0 <= best < n or (guess is not None and not 0 <= guess < n):
        raise ValueError(f"{len(labels)} labels, {n} values, guess {guess}, best {best}")
    colours = [INK if i == best else MUTED for i in range(n)]
    outline = [GUESS if i == guess else TRANSPARENT for i in range(n)]
    ticks = escape(list(labels))
    if guess is not None:  # the guess's own label says so, in the guess's colour
        ticks[guess] = f'<span style="color:{GUESS}">▶ {ticks[guess]}</span>'
    ticks = [f"{tick}  " for tick in ticks]
    bars = {
        "type": "bar",
        "orientation": "h",
        "x": values.tolist(),
        "y": list(range(n)),
        "marker": {"color": colours, "line": {"color": outline, "width": 4}},
        "text": [f"{v:.2f}" for v in values],
        "textposition": "outside",
        "cliponaxis": False,
        "hovertemplate": "%{customdata}: %{x:.3f}<extra></extra>",
        "customdata": escape(list(labels)),
        "showlegend": False,
    }
    top = max(float(values.max(initial=0.0)), 1e-9)
    shapes = _window_marks(window, centre)
    layout = {
        "title": {"text": title},
        "height": max(200, 100 + ROW_PX * n),
        "margin": BAR_MARGIN | {"l": 24 + widest_px([f"▶ {label}  " for label in labels])},
        "xaxis": {"title": {"text": value_name}, "range": [0, top * 1.25], "zeroline": True},
        "yaxis": token_axis(ticks, top_down=True, automargin=True),
        "shapes": shapes,
        "bargap": 0.25,
    }
    return figure({"data": [bars], "layout": layout})


def _window_marks(window: tuple[float, float] | None, centre: float | None) -> list[dict]:
    """A band over the window's rows and a dashed line at p_t (rows are positions 0..n-1; the
    chart's title gives the numbers)."""
    shapes: list[dict] = []
    if window is not None:
        lo, hi = window
        band = {"type": "rect", "y0": lo - 0.5, "y1": hi + 0.5, "fillcolor": rgba(INK, 0.08)}
        shapes.append(
            band | {"xref": "paper", "x0": 0, "x1": 1, "line": {"width": 0}, "layer": "below"}
        )
    if centre is not None:
        line = {"color": INK, "dash": "dash", "width": 2}
        shapes.append(
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": centre,
                "y1": centre,
                "line": line,
            }
        )
    return shapes


SCENE_HEIGHT = 390  # px: the scene about 300 px square on a laptop or a phone; in classroom mode
# 520 px high (the lessons' STEP_FIT), a projector's first screen under the step's row
# the scene before the reveal in classroom mode: 390 px high (x 5/3, classroom mode's scale), so
# that the options and the button under it stay on a projector's first screen
SCENE_PREVIEW_CLASSROOM = 234
LIT_FLOOR = 0.6  # the reveal's brightness where attention is zero: every object stays visible
SCENE_MARGIN = {"l": 10, "r": 10, "t": 36, "b": 10}
TICK_GAP_PX, TICK_ROW_PX = 12, 22  # the rows' names beside the picture, the columns' under it


def region_figure(
    image: np.ndarray,
    names: Sequence[str],
    parts: int,
    *,
    title: str,
    light: np.ndarray | None = None,
    masses: Sequence[float] | None = None,
    guess: int | None = None,
    best: int | None = None,
    height: int = SCENE_HEIGHT,
) -> go.Figure:
    """The image (square, uint8 RGB) cut into ``parts`` x ``parts`` named regions (row by row
    from the top left; ``parts`` odd), as large as its column allows. The regions are named
    outside the picture, never over it: its columns under it (the middle row's names: left,
    centre, right), its rows beside it (the middle column's: top, centre, bottom). At the reveal
    the picture is lit by the attention map ``light`` (g, g), dimmed where attention is zero
    only to LIT_FLOOR so that every object stays visible; each region's attention mass
    (``masses``) sits small in its top-left corner, the guessed region is outlined in orange and
    the model's top one in blue. ``height``: the figure's, in px before classroom mode's scale."""
    size = image.shape[0]
    cell = size / parts
    mid = parts // 2
    if light is not None:
        image = blend(image, light, size, floor=LIT_FLOOR)
    shapes, notes = [], []
    for k in range(len(names)):
        r, c = divmod(k, parts)
        marked = k in (guess, best)
        shapes.append(
            {
                "type": "rect",
                "x0": c * cell + (3 if marked else 0),
                "x1": (c + 1) * cell - (3 if marked else 0),
                "y0": r * cell + (3 if marked else 0),
                "y1": (r + 1) * cell - (3 if marked else 0),
                "line": {
                    "color": GUESS if k == guess else INK if k == best else rgba(WHITE, 0.7),
                    "width": 5 if marked else 1,
                    "dash": "dot" if k == guess else "solid",
                },
            }
        )
        if masses is not None:  # small, in the corner: the objects stay in view
            notes.append(
                {
                    "x": c * cell + 4,
                    "y": r * cell + 4,
                    "xanchor": "left",
                    "yanchor": "top",
                    "text": f"{float(masses[k]):.2f}",
                    "showarrow": False,
                    "font": {"color": BLACK},
                    "bgcolor": rgba(WHITE, 0.7),
                }
            )
    columns = [names[mid * parts + c] for c in range(parts)]
    rows = [names[r * parts + mid] for r in range(parts)]
    centres = [(i + 0.5) * cell for i in range(parts)]
    # constrained to the picture's square: the names stay beside it, not at the plot's edge
    axis = {
        "showgrid": False,
        "zeroline": False,
        "ticks": "",
        "tickvals": centres,
        "constrain": "domain",
    }
    margin = {**SCENE_MARGIN, "l": widest_px(rows) + TICK_GAP_PX, "b": TICK_ROW_PX}
    layout = {
        "title": {"text": title},
        "height": height,
        "margin": margin,
        "xaxis": {**axis, "range": [0, size], "ticktext": escape(columns)},
        "yaxis": {**axis, "range": [size, 0], "scaleanchor": "x", "ticktext": escape(rows)},
        "images": [
            {
                "source": data_uri(image),
                "xref": "x",
                "yref": "y",
                "x": 0,
                "y": 0,
                "sizex": size,
                "sizey": size,
                "layer": "below",
            }
        ],
        "shapes": shapes,
        "annotations": notes,
    }
    return figure({"data": [], "layout": layout})


CLASS_INK = REDDISH_PURPLE  # the class's answers: never the guess's colour
GROUP_ROW_PX = 32  # an option's two bars (the model's, the class's) and their gap


def class_bars(
    labels: Sequence[str],
    counts: Sequence[int],
    best: int | None,
    *,
    title: str,
    class_name: str,
    value_name: str,
    model_values: Sequence[float] | None = None,
    model_name: str = "",
    mine: int | None = None,
) -> go.Figure:
    """A class's answers over the options: the share that chose each (its count and percent
    beside the bar), beside the model's own numbers on the same 0-1 scale where they are weights
    or shares (``model_values``, in blue). The model's top choice (``best``) has its label in
    bold (None before the reveal: the split alone, nothing of the model's answer in it);
    ``mine`` (the viewer's own answer) is marked ▶ in the guess's orange."""
    counts = np.asarray(counts, dtype=float)  # (n,)
    n = len(counts)
    outside = (best is not None and not 0 <= best < n) or (mine is not None and not 0 <= mine < n)
    if len(labels) != n or outside:
        raise ValueError(f"{len(labels)} labels, {n} counts, best {best}, mine {mine}")
    shares = counts / max(counts.sum(), 1.0)  # (n,)
    ticks = escape(list(labels))
    if best is not None:
        ticks[best] = f"<b>{ticks[best]}</b>"
    if mine is not None:
        ticks[mine] = f'<span style="color:{GUESS}">▶ {ticks[mine]}</span>'
    rows = list(range(n))
    text = [f"{int(c)} · {s:.0%}" if c else "" for c, s in zip(counts, shares, strict=True)]
    data = [_hbars(shares, rows, text, CLASS_INK, class_name)]
    if model_values is not None:
        values = np.asarray(model_values, dtype=float)  # (n,)
        shown = [f"{v:.2f}" if v >= 0.005 else "" for v in values]  # no wall of zeros
        data.insert(0, _hbars(values, rows, shown, INK, model_name))
    margin = BAR_MARGIN | {"l": 24 + widest_px([f"▶ {label}  " for label in labels])}
    layout = {
        "title": {"text": title},
        "height": max(220, 130 + (ROW_PX if len(data) == 1 else GROUP_ROW_PX) * n),
        # the key under the title, in the first screen with the bars' top
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1, "yanchor": "bottom"},
        "margin": margin | {"t": BAR_MARGIN["t"] + LEGEND_ROW_PX},
        "barmode": "group",
        "xaxis": {"title": {"text": value_name}, "range": [0, 1.3], "zeroline": True},
        "yaxis": token_axis([f"{tick}  " for tick in ticks], rows, top_down=True, automargin=True),
        "bargap": 0.2,
    }
    return figure({"data": data, "layout": layout})


def _hbars(x: np.ndarray, rows: list[int], text: list[str], colour: str, name: str) -> dict:
    return {
        "type": "bar",
        "orientation": "h",
        "x": x.tolist(),
        "y": rows,
        "name": name,
        "marker": {"color": colour},
        "text": text,
        "textposition": "outside",
        "constraintext": "none",  # the font's size, not the bar's thickness
        "cliponaxis": False,
        "hovertemplate": f"{escape([name])[0]}: %{{x:.3f}}<extra></extra>",
    }
