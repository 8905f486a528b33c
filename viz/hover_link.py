"""Hover linking between an attention map and the same weights as lines (the Multi-head page's head
view, the Alignment page's lines), in the browser: the options of the chart component's behaviour
``link`` (``components/atlas-plotly/atlas_plotly/assets/link.js``), as BertViz's head view links a
token to its lines. Pure: no streamlit.

Charts of one ``group`` find each other on the page. Hovering the heatmap's cell (query i, key j)
draws the line i -> j over the lines chart (the other lines dimmed) and outlines the cell;
hovering one of the linked head's lines, or a query or key token, outlines the matching cell, row
or column of the heatmap. Both are layout shapes: nothing is recomputed, nothing is sent to the
server. Where the component is off (``st.plotly_chart``) the options are not sent and the charts
are plain. The lines chart's part: :func:`viz.multi_head_lines.lines_link` (a head view),
:func:`viz.alignment.alignment_lines_link` (an alignment's lines). Both charts of a page, each with
its part: :mod:`viz.linked`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Literal

import plotly.graph_objects as go

from viz.palette import VERMILLION

HIGHLIGHT_PX = 4  # the width of a hovered line (a lines chart's ``HoverLink.width``)
# a heatmap's focused cell, row or column: outlined as the overview's frame around the chosen head
OUTLINE, OUTLINE_PX = VERMILLION, 3
LINE_UID = "lines-h"  # + "<head>-<level>": a trace of one head's lines (viz.multi_head_lines)
QUERIES_UID, KEYS_UID = "queries", "keys"  # the head view's token columns, at x = 0 and x = 1


@dataclass(frozen=True)
class HoverLink:
    """One chart's part in a hover link; (n_queries, n_keys): the head's (T_q, T_k).

    role "heatmap": ``trace`` is the heatmap; its cell (row i, column j) is query i, key j; the
    focused cell, row or column is outlined in ``colour``, ``width`` px wide.
    role "lines": the queries are drawn in the column x = ``query_x`` (0 or 1), the keys in the
    other; query i at y = ``query_y[i]`` and key j at y = ``key_y[j]`` (left empty: at y = i and
    y = j, as the head view draws them); ``linked``: the traces of the lines of the map the
    heatmap shows, each x = [0, 1, None, ...], y = [its ends' heights, None, ...]; hovered lines
    are drawn in ``colour``, ``width`` px wide.
    ``blocks``: a heatmap wrapped in blocks of columns (:meth:`in_blocks`), each block's
    (trace, x axis, y axis, first column); empty: one block, ``trace`` on axes x and y.
    """

    group: str
    role: Literal["heatmap", "lines"]
    n_queries: int
    n_keys: int
    trace: int = 0
    linked: tuple[int, ...] = ()
    colour: str = ""
    width: int = 0
    query_x: int = 0
    query_y: tuple[float, ...] = ()
    key_y: tuple[float, ...] = ()
    blocks: tuple[tuple[int, str, str, int], ...] = ()

    def in_blocks(self, blocks: Sequence[tuple[str, str, int, int]], traces: int) -> HoverLink:
        """The heatmap's part once its columns are wrapped in ``blocks`` (``viz.wrap``: each
        block's (x axis, y axis, first column, last column); block k's copy of trace t is
        ``t + k * traces``, holding the block's columns only): each block's (heatmap trace,
        x axis, y axis, first column)."""
        return replace(
            self,
            blocks=tuple(
                (self.trace + k * traces, x, y, first) for k, (x, y, first, _) in enumerate(blocks)
            ),
        )

    def options(self) -> dict:
        """The plain-JSON options ``ui.charts.plotly_chart(behaviours=Behaviours(link=self))``
        sends (``viz.behaviours``)."""
        options = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        if self.blocks:
            options["blocks"] = [list(block) for block in self.blocks]
        else:
            del options["blocks"]  # one block: as before wrapping existed
        return options


def heatmap_link(fig: go.Figure, group: str, trace: int = 0) -> HoverLink:
    """The heatmap ``fig.data[trace]``'s part in ``group``."""
    rows, cols = fig.data[trace].z.shape[:2]
    return HoverLink(
        group,
        "heatmap",
        n_queries=int(rows),
        n_keys=int(cols),
        trace=trace,
        colour=OUTLINE,
        width=OUTLINE_PX,
    )
