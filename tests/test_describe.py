"""Every chart in words (viz/describe.py): the name, the summary and the tables are written from
the numbers the figure draws, in the page's language, and read plotly's typed arrays."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from i18n import set_language
from viz.alignment import alignment_heatmap, alignment_lines
from viz.describe import array, chart_text
from viz.diagram_words import described
from viz.head_words import head_patterns
from viz.multi_head import head_grid


def test_an_alignment_says_where_each_french_word_looks_with_its_weights():
    weights = np.array([[0.10, 0.85, 0.05], [0.96, 0.03, 0.01]])  # (T_out, T_src)
    fig = alignment_heatmap(weights, ["black", "dog", "runs"], ["chien", "noir"], title="Bahdanau")
    text = chart_text(fig)
    assert text.name == "Bahdanau"
    assert "When the model writes “noir”, most weight is on “black” (0.96), then “dog” (0.03)" in (
        text.summary
    )
    (table,) = text.tables
    assert table.columns == ("", "black", "dog", "runs")
    assert table.rows[1] == ("noir", "0.96", "0.03", "0.01")
    lines = chart_text(alignment_lines(weights, ["black", "dog", "runs"], ["chien", "noir"]))
    assert "most weight is on “dog” (0.85)" in lines.summary  # the same rows, drawn as lines


def test_the_summary_is_in_the_pages_language():
    fig = alignment_heatmap(np.array([[0.9, 0.1]]), ["dog", "runs"], ["chien"], title="t")
    set_language("zh")
    try:
        assert chart_text(fig).summary.startswith("模型写出“chien”时")
        assert chart_text(go.Figure()).name == "一张图表"
    finally:
        set_language("en")


def test_typed_arrays_and_rich_text_labels_are_read_as_plain_numbers_and_text():
    z = np.arange(6, dtype=float).reshape(2, 3) / 10
    fig = go.Figure(go.Heatmap(z=z, x=["<b>a</b>", "b&lt;c", "d"], y=["r1", "r2"]))
    spec = fig.to_dict()
    assert np.allclose(array(spec["data"][0]["z"]), z)  # plotly 6 sends {dtype, bdata, shape}
    text = chart_text(spec)
    assert text.tables[0].columns == ("", "a", "b<c", "d")  # shown as text by the component
    assert "“r2”: most on “d” (0.50), then “b<c” (0.40)" in text.summary


def test_numbered_maps_tell_their_extremes_and_self_attention_its_pattern():
    pe = go.Figure(go.Heatmap(z=[[0.0, 1.0], [-1.0, 0.5]], x=[0, 1], y=[0, 1]))
    assert "largest 1.00 at row 0, column 1; smallest -1.00 at row 1, column 0" in (
        chart_text(pe).summary
    )
    before = np.eye(4, k=-1)
    before[0, 0] = 1.0  # the first token looks at itself
    tokens = ["the", "cat", "sat", "down"]
    head = go.Figure(go.Heatmap(z=before, x=tokens, y=tokens))
    assert "0.25 of its weight on itself and 1.00 on the token before" in chart_text(head).summary


def test_many_heads_are_told_by_pattern():
    w = np.full((1, 3, 4, 4), 0.25)  # (L, H, T, T): broad
    w[0, 1] = np.eye(4, k=-1)
    w[0, 1, 0, 0] = 1.0
    w[0, 2] = np.eye(4)
    words = head_patterns(w)
    assert "Mostly on the token before: layer 1, head 2 (1.00)" in words["summary"]
    assert "Mostly on the token itself: layer 1, head 3 (1.00)" in words["summary"]
    assert "The other 1 spread" in words["summary"]
    text = chart_text(head_grid(w))
    assert text.summary == words["summary"] and len(text.tables[0].rows) == 3


def test_bars_lines_histograms_and_diagrams_all_get_words():
    bars = go.Figure(go.Bar(x=["a", "b", "c"], y=[0.2, 0.7, 0.1], name="share"))
    assert chart_text(bars).summary == "share: “b” 0.70, “a” 0.20, “c” 0.10."
    line = go.Figure(go.Scatter(x=[4, 64, 512], y=[2.1, 1.0, 0.2], name="without"))
    line.update_layout(xaxis_title="d_k", yaxis_title="entropy")
    text = chart_text(line)
    assert text.name == "entropy by d_k"
    assert text.summary == "without: from 2.1 at 4 to 0.20 at 512, highest 2.1 at 4."
    hist = chart_text(go.Figure(go.Histogram(x=[1.0, 2.0, 3.0], name="q·k")))
    assert hist.summary == "q·k: 3 values from 1.00 to 3, mean 2."
    diagram = described(go.Figure(), "An RNN unrolled", "The state passes from word to word.")
    assert chart_text(diagram) == chart_text(diagram)  # stable
    assert chart_text(diagram).name == "An RNN unrolled"
    assert chart_text(diagram).summary == "The state passes from word to word."


def test_large_tables_are_cut_and_say_how_much():
    z = np.random.default_rng(0).random((50, 30))
    table = chart_text(go.Figure(go.Heatmap(z=z))).tables[0]
    assert len(table.rows) == 40 and table.more_rows == 10
    assert len(table.columns) == 25 and table.more_columns == 6
