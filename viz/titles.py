"""A chart title at the plot's left edge, for a figure that may be wider than the screen.

A figure that asks for more width than the column gives scrolls sideways (ui/charts); plotly
centres its title on the whole figure, so on a narrow screen the title of such a figure starts out
of sight. Aligned with the plot's left edge it is seen first. (ui/charts.legible gives every title
its pad and automargin.)
"""

from __future__ import annotations


def left_title(text: str) -> dict:
    """``layout.title`` for ``text`` (already translated and escaped) at the plot's left edge."""
    return {"text": text, "x": 0, "xref": "paper", "xanchor": "left"}
