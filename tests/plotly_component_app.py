"""A tiny app for tests/test_plotly_component*.py: a heatmap over the typed words, shown by
``ui.charts.plotly_chart`` under a stable key, whose cells can be clicked (the callback writes the
clicked cell's words below the chart), and, with ``?wide=1``, a second chart wider than the page
(its columns numbered: it scrolls sideways), with ``?wide=tokens`` the same with its columns
labelled by tokens (it is wrapped in blocks of columns: ``viz.wrap``)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ui.charts import plotly_chart
from viz.alignment import alignment_heatmap

KEY = "pc_heatmap"


def picked() -> None:
    """The on_select callback: remember the clicked cell's customdata."""
    event = st.session_state.get(KEY) or {}
    points = (event.get("selection") or {}).get("points") or []
    st.session_state["pc_picked"] = points[0].get("customdata") if points else None


text = st.text_input("Words", value="the cat sat down")
words = text.split() or ["(empty)"]
weights = np.random.default_rng(len(words)).dirichlet(np.ones(len(words)), size=len(words))
plotly_chart(alignment_heatmap(weights, words, words, title="weights"), key=KEY, on_select=picked)
st.write(f"picked: {st.session_state.get('pc_picked')}")
if st.query_params.get("wide") in ("1", "tokens"):
    many = [f"w{i}" for i in range(80)]
    wide = alignment_heatmap(np.full((3, 80), 1 / 80), many, many[:3], title="wide")
    wide.update_layout(width=1600)
    if st.query_params.get("wide") == "1":  # numbered columns: not wrapped, so it scrolls
        wide.update_xaxes(tickmode="auto", tickvals=None, ticktext=None)
    plotly_chart(wide, key="pc_wide")
