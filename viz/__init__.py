"""Pure figure builders: numpy arrays and labels in, plotly figures out (no streamlit, no torch)."""

from viz.anatomy import vector_diagram, weights_bar
from viz.heatmaps import attention_panels, diff_heatmap, matrix_heatmap
from viz.positional import pe_curves, pe_heatmap, position_norms_figure

__all__ = [
    "attention_panels",
    "diff_heatmap",
    "matrix_heatmap",
    "pe_curves",
    "pe_heatmap",
    "position_norms_figure",
    "vector_diagram",
    "weights_bar",
]
