"""Pure figure builders: numpy arrays and labels in, plotly figures out (no streamlit, no torch)."""

from viz.charts import vector_diagram, weights_bar
from viz.heatmaps import (
    attention_heatmap,
    attention_panels,
    diff_heatmap,
    heatmap_grid,
    matrix_heatmap,
)
from viz.positional import gaussian_window_plot, pe_curves, pe_heatmap, position_norms_figure

__all__ = [
    "attention_heatmap",
    "attention_panels",
    "diff_heatmap",
    "gaussian_window_plot",
    "heatmap_grid",
    "matrix_heatmap",
    "pe_curves",
    "pe_heatmap",
    "position_norms_figure",
    "vector_diagram",
    "weights_bar",
]
