"""Token axes: every token of a chart written at its place on the axis (plain plotly dicts).

A chart of tokens labels each one: ``tickmode`` "array" hands plotly the ticks to write, so that it
never thins them out on a narrow screen (a chart of many tokens grows and scrolls sideways
instead: :func:`viz.heatmaps.fit_cells`). Every figure builder writes its token axes with
:func:`token_axis`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# the value of an entry of a plotly layout or axis (plotly's JSON: text, a number, a flag, a list,
# a nested dict; None leaves it to plotly)
LayoutValue = str | float | bool | Sequence[Any] | Mapping[str, Any] | None


def token_axis(
    labels: Sequence[str],
    positions: Sequence[float] | None = None,
    *,
    category: bool = False,
    angle: int | None = None,
    top_down: bool = False,
    **entries: LayoutValue,
) -> dict:
    """The entries of an axis that writes ``labels`` as given (escape tokens first,
    :func:`viz._checks.escape`: a label may carry plotly's HTML on purpose, a bold piece), the
    k-th at ``positions[k]`` (default k: a heatmap's columns, a bar chart's bars). ``category``:
    the axis is categorical and each label is its own position (labels made distinct,
    :func:`viz.head_steps.unique_labels`). ``angle``: the labels' ``tickangle``; ``top_down``:
    the first label on top (an axis of rows, read downwards). ``entries``: the axis's other
    entries (title, range, anchor, ...), written last."""
    ticks = list(labels)
    if category:
        axis: dict = {"type": "category", "tickmode": "array", "tickvals": ticks}
    else:
        at = list(range(len(ticks))) if positions is None else list(positions)
        axis = {"tickmode": "array", "tickvals": at}
    axis["ticktext"] = ticks
    if angle is not None:
        axis["tickangle"] = angle
    if top_down:
        axis["autorange"] = "reversed"
    return axis | entries
