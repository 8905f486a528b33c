"""``plotly_chart``: the one way pages show a plotly figure, honouring classroom mode."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ui.sidebar import classroom_mode

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
OKABE_ITO = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
CLASSROOM_SEQUENTIAL = "Cividis"
CLASSROOM_DIVERGING = "PuOr"
CLASSROOM_FONT = 20
PLOTLY_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2, "filename": "attention-atlas"},
}


def apply_classroom(fig: go.Figure) -> go.Figure:
    """Larger fonts, a colour-blind-safe palette and colour scales (changes ``fig`` in place)."""
    fig.update_layout(font={"size": CLASSROOM_FONT}, colorway=OKABE_ITO)
    for trace in fig.data:
        if trace.type != "heatmap":
            continue
        diverging = trace.zmid is not None
        trace.colorscale = CLASSROOM_DIVERGING if diverging else CLASSROOM_SEQUENTIAL
    if fig.layout.coloraxis and fig.layout.coloraxis.colorscale is not None:
        fig.layout.coloraxis.colorscale = CLASSROOM_SEQUENTIAL
    return fig


def plotly_chart(
    fig: go.Figure, *, key: str | None = None, height: int | None = None, on_select=None
) -> None:
    """Show ``fig`` full width with the PNG-export toolbar; applies classroom mode when on.

    ``on_select``: a callback run when the user clicks a point (single-point selection); it reads
    the selection from ``st.session_state[key]``.
    """
    if classroom_mode():
        apply_classroom(fig)
    if height is not None:
        fig.update_layout(height=height)
    if on_select is None:
        st.plotly_chart(fig, key=key, config=PLOTLY_CONFIG, theme=None)
        return
    fig.update_layout(clickmode="event+select", dragmode=False)
    st.plotly_chart(
        fig, key=key, config=PLOTLY_CONFIG, theme=None, on_select=on_select, selection_mode="points"
    )
