"""A lower bound for chart pages: the empty page's text box plus one plotly figure that changes
with the text, drawn the way the app's pages draw them (``viz`` builders, ``ui.charts``).

``?figure=heatmap``: one attention heatmap over the typed words (the Alignment page's main chart);
``?figure=panels``: the four maps of the Positional encoding page's shuffle demo in one figure;
``?figure=alignment``: the four charts an Alignment Enter redraws (heatmap, lines, the step
inspector's scores and weights, the candidates), each through the chart component as there.
The weights are fixed random rows (no model): what remains is Streamlit's and Plotly's cost.
"""

import numpy as np
import streamlit as st

from serve.runtime import freeze_long_lived
from ui.charts import plotly_chart
from viz import attention_panels
from viz.alignment import alignment_heatmap, alignment_lines
from viz.scores import candidates_bars, soft_addressing_figure

freeze_long_lived()  # as app.py does
figure = st.query_params.get("figure", "heatmap")
text = st.text_input("Text")
words = text.split() or ["(empty)"]
weights = np.random.default_rng(0).dirichlet(np.ones(len(words)), size=len(words))  # (T, T)
if figure == "panels":
    panels = [(weights, words, words, f"map {k + 1}") for k in range(4)]
    plotly_chart(attention_panels(panels), key="chart")
elif figure == "alignment":
    plotly_chart(alignment_heatmap(weights, words, words, title="weights"), key="chart")
    plotly_chart(alignment_lines(weights, words, words, threshold=0.1), key="lines")
    scores = np.log(weights[0]) + 1.0  # (T,): softmax(scores) = weights[0]
    plotly_chart(soft_addressing_figure(scores, weights[0], words, title="step 0"), key="step")
    top = sorted(zip(words, weights[0], strict=True), key=lambda wp: -wp[1])[:5]
    plotly_chart(candidates_bars([(w, float(p)) for w, p in top], title="next"), key="next")
else:
    plotly_chart(alignment_heatmap(weights, words, words, title="weights"), key="chart")
st.write(f"echo: {text}")
