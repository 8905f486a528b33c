"""Charts linked on hover (:mod:`viz.hover_link`): an attention map and the same weights as lines,
built from one set of weights with their parts in one link ``group`` (the charts of a group find
each other on the page). The Alignment page shows an alignment's heatmap and lines
(:class:`AlignmentCharts`), the Multi-head page one head's map and its layer's head view
(:class:`HeadCharts`). Each chart is built when the page draws it (the lines' own controls come
between), as the figure its figure builder makes with ``Behaviours(link=...)``. Pure: no
streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from viz.alignment import alignment_heatmap, alignment_lines, alignment_lines_link
from viz.behaviours import Behaviours, Chart
from viz.hover_link import heatmap_link
from viz.multi_head import head_heatmap
from viz.multi_head_lines import head_lines, lines_link


@dataclass(frozen=True, eq=False)
class AlignmentCharts:
    """An alignment's weights (T_out, T_src) as a heatmap (:meth:`heatmap`) and as lines
    (:meth:`lines`), linked on hover in ``group``: the heatmap's rows (the link's queries) are
    the target tokens, its columns (the keys) the source tokens."""

    weights: ArrayLike
    source_tokens: Sequence[str]
    target_tokens: Sequence[str]
    group: str

    def heatmap(self, *, title: str = "", numbers: bool | None = None) -> Chart:
        """:func:`viz.alignment.alignment_heatmap` with its part in the link."""
        fig = alignment_heatmap(
            self.weights, self.source_tokens, self.target_tokens, title=title, numbers=numbers
        )
        return Chart(fig, Behaviours(link=heatmap_link(fig, self.group)))

    def lines(self, *, threshold: float = 0.1, title: str = "") -> Chart:
        """:func:`viz.alignment.alignment_lines` with its part in the link
        (:func:`viz.alignment.alignment_lines_link`)."""
        fig = alignment_lines(
            self.weights, self.source_tokens, self.target_tokens, threshold=threshold, title=title
        )
        return Chart(fig, Behaviours(link=alignment_lines_link(fig, self.group)))


@dataclass(frozen=True, eq=False)
class HeadCharts:
    """A layer's weights (H, T_q, T_k): head ``head``'s map (:meth:`heatmap`) and the layer's
    head view (:meth:`lines`), linked on hover in ``group`` through that head's lines."""

    weights: ArrayLike
    x_labels: Sequence[str]  # the keys
    y_labels: Sequence[str]  # the queries
    head: int  # 0-based
    group: str

    def heatmap(self, *, title: str = "", numbers: bool = True) -> Chart:
        """:func:`viz.multi_head.head_heatmap` of ``head`` with its part in the link."""
        w = np.asarray(self.weights)[self.head]
        fig = head_heatmap(w, self.x_labels, self.y_labels, title=title, numbers=numbers)
        return Chart(fig, Behaviours(link=heatmap_link(fig, self.group)))

    def lines(
        self,
        *,
        heads: Sequence[int],
        token: int | None = None,
        threshold: float = 0.1,
        title: str = "",
        legend_below: bool = False,
    ) -> Chart:
        """:func:`viz.multi_head_lines.head_lines` of the ``heads`` (0-based; ``head`` drawn or
        not) with its part in the link (:func:`viz.multi_head_lines.lines_link`)."""
        fig = head_lines(
            self.weights,
            self.x_labels,
            self.y_labels,
            heads=heads,
            token=token,
            threshold=threshold,
            title=title,
            legend_below=legend_below,
        )
        return Chart(fig, Behaviours(link=lines_link(fig, self.head, self.group)))
