"""The figure builders, checked on their data: matrices, tick labels, hover text."""

from __future__ import annotations

import numpy as np
import pytest

from viz import (
    attention_panels,
    diff_heatmap,
    matrix_heatmap,
    pe_curves,
    pe_heatmap,
    vector_diagram,
    weights_bar,
)


def test_heatmap_keeps_matrix_and_reading_order():
    w = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])  # (T_q=2, T_k=3)
    fig = matrix_heatmap(w, ["le", "chat", "le"], ["the", "cat"], title="t", zmin=0.0)
    trace = fig.data[0]
    np.testing.assert_allclose(np.asarray(trace.z), w)
    assert list(fig.layout.xaxis.ticktext) == ["le", "chat", "le"]  # duplicates kept apart
    assert list(fig.layout.xaxis.tickvals) == [0, 1, 2]
    assert list(fig.layout.yaxis.ticktext) == ["the", "cat"]
    assert fig.layout.yaxis.autorange == "reversed"  # first query at the top
    assert trace.zmin == 0.0


def test_heatmap_hover_names_both_tokens_and_weight():
    w = np.array([[0.12345, 0.87655]])
    fig = matrix_heatmap(w, ["a", "b"], ["q"])
    assert fig.data[0].customdata[0][1] == "query: q<br>key: b<br>weight: 0.877"
    assert "%{customdata}" in fig.data[0].hovertemplate


def test_heatmap_escapes_html_in_labels():
    fig = matrix_heatmap([[1.0]], ["<b>x</b>"], ["<script>"])
    assert fig.layout.xaxis.ticktext[0] == "&lt;b&gt;x&lt;/b&gt;"
    assert "<script>" not in fig.data[0].customdata[0][0]


def test_heatmap_values_only_for_small_matrices():
    assert matrix_heatmap(np.eye(3), None, None).data[0].texttemplate
    assert not matrix_heatmap(np.eye(20), None, None).data[0].texttemplate
    assert matrix_heatmap(np.eye(20), None, None, show_values=True).data[0].texttemplate


@pytest.mark.parametrize(
    ("x_labels", "y_labels", "numbers"),
    [(["a", "b"], ["q", "r"], ("2", "3")), (["a", "b", "c"], ["q"], ("1", "2"))],
)
def test_heatmap_label_mismatch_names_both_sizes(x_labels, y_labels, numbers):
    with pytest.raises(ValueError) as err:
        matrix_heatmap(np.ones((2, 3)) / 3, x_labels, y_labels)
    assert all(n in str(err.value) for n in numbers)


def test_heatmap_rejects_nan():
    with pytest.raises(ValueError, match="NaN"):
        matrix_heatmap([[np.nan]], ["a"], ["b"])


def test_large_heatmap_hover_uses_positions():
    fig = matrix_heatmap(np.full((300, 300), 1 / 300), None, None)
    assert fig.data[0].customdata is None
    assert "#%{y}" in fig.data[0].hovertemplate
    assert fig.layout.xaxis.ticktext is None  # positions: plotly picks the ticks


def test_diff_heatmap_is_centred():
    fig = diff_heatmap([[0.5, -0.25]], ["a", "b"], ["q"])
    assert fig.data[0].zmid == 0 and fig.data[0].zmin == -0.5 and fig.data[0].zmax == 0.5


def test_weights_bar_series_and_labels():
    fig = weights_bar({"raw": [0.2, 0.8], "final": [0.0, 1.0]}, ["x", "y"])
    assert [t.name for t in fig.data] == ["raw", "final"]
    assert list(fig.data[1].y) == [0.0, 1.0]
    assert list(fig.layout.xaxis.ticktext) == ["x", "y"]
    with pytest.raises(ValueError, match="3 labels for 2"):
        weights_bar([0.5, 0.5], ["a", "b", "c"])
    with pytest.raises(ValueError, match="different lengths"):
        weights_bar({"a": [1, 2], "b": [1]})


def test_vector_diagram_arrows():
    fig = vector_diagram([1, 0], [[1, 0], [0, 1]], [[2, 0], [0, 2]], [1.5, 0.5], ["A", "B"])
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers"}
    assert set(lines) == {"keys", "values", "query", "context"}
    assert list(lines["values"].x) == [0.0, 2.0, None, 0.0, 0.0, None]
    assert list(lines["context"].y) == [0.0, 0.5, None]
    assert lines["keys"].marker.symbol == "arrow"  # arrow heads at the tips
    assert list(lines["keys"].marker.size) == [0, 13, 0, 0, 13, 0]
    with pytest.raises(ValueError, match="2 keys but 3 values"):
        vector_diagram([1, 0], [[1, 0], [0, 1]], [[1, 0]] * 3, [0, 0])


def test_pe_figures():
    pe = np.array([[0.0, 1.0, 0.0], [0.84, 0.54, 0.01]])  # (2 positions, 3 dims)
    fig = pe_heatmap(pe)
    np.testing.assert_allclose(np.asarray(fig.data[0].z), pe)
    assert fig.data[0].zmid == 0
    curves = pe_curves(pe, [0, 1])
    assert [t.name for t in curves.data] == ["dim 0 (sin)", "dim 1 (cos)"]
    np.testing.assert_allclose(np.asarray(curves.data[1].y), pe[:, 1])
    with pytest.raises(ValueError, match="d_model = 3"):
        pe_curves(pe, [3])


def test_attention_panels_keep_each_panels_tokens():
    a, b = np.eye(2), np.full((3, 3), 1 / 3)
    fig = attention_panels(
        [(a, ["x", "y"], ["x", "y"], "first"), (b, list("pqr"), list("pqr"), "<i>")]
    )
    assert len(fig.data) == 2
    np.testing.assert_allclose(np.asarray(fig.data[1].z), b)
    assert list(fig.layout.xaxis2.ticktext) == ["p", "q", "r"]
    assert fig.layout.yaxis.autorange == "reversed"
    assert [a.text for a in fig.layout.annotations] == ["first", "&lt;i&gt;"]
    assert fig.data[0].customdata[1][0] == "query: y<br>key: x<br>weight: 0.000"


def test_attention_panels_grid_of_four():
    w = np.full((3, 3), 1 / 3)
    fig = attention_panels([(w, list("abc"), list("abc"), str(i)) for i in range(4)])
    assert [t.xaxis for t in fig.data] == ["x", "x2", "x3", "x4"]
    assert fig.layout.yaxis.domain[1] == 1.0 and fig.layout.yaxis3.domain[0] == 0.0
    with pytest.raises(ValueError, match="panel 2: x labels"):
        attention_panels([(w, list("abc"), list("abc"), "ok"), (w, list("ab"), list("abc"), "bad")])


def test_attention_panels_colour_bar_only_without_numbers():
    """Small panels print their weights in the cells and need no colour bar; one large panel
    (no numbers in its cells) brings the colour bar back."""
    small, large = np.full((3, 3), 1 / 3), np.full((13, 13), 1 / 13)
    fig = attention_panels([(small, list("abc"), list("abc"), "a")] * 2)
    assert fig.layout.coloraxis.showscale is False
    assert all(t.texttemplate == "%{z:.2f}" for t in fig.data)
    words = [f"w{i}" for i in range(13)]
    fig = attention_panels([(small, list("abc"), list("abc"), "a"), (large, words, words, "b")])
    assert fig.layout.coloraxis.showscale is True and fig.data[1].texttemplate is None
