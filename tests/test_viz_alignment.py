"""The translation pages' pure figure builders: data, tick labels, hover text, shape checks."""

from __future__ import annotations

import html

import numpy as np
import pytest

from viz.alignment import (
    alignment_difference,
    alignment_heatmap,
    alignment_lines,
    entropy_heatmap,
    token_prob_bars,
    weights_row_entropy,
)
from viz.bottleneck import BUCKET_ORDER, bleu_by_length_chart, bucket_points, gradient_norm_plot
from viz.heatmaps import COLUMN_PX, ROW_PX, title_width
from viz.local_heatmap import local_heatmap
from viz.local_steps import local_steps_figure
from viz.measure import widest_px
from viz.scores import candidates_bars, soft_addressing_figure

SRC = ["▁a", "▁black", "▁dog", "</s>"]
TGT = ["▁un", "▁chien", "▁noir", "</s>"]
ESC_SRC = [html.escape(t) for t in SRC]  # plotly shows labels as HTML, so they are escaped
ESC_TGT = [html.escape(t) for t in TGT]
W = np.array(
    [[0.9, 0.05, 0.05, 0.0], [0.0, 0.1, 0.9, 0.0], [0.0, 0.8, 0.2, 0.0], [0.0, 0.0, 0.0, 1.0]]
)


def test_alignment_heatmap_rows_are_targets_and_hover_names_both_tokens():
    fig = alignment_heatmap(W, SRC, TGT, title="t")
    trace = fig.data[0]
    assert np.allclose(trace.z, W)
    assert list(fig.layout.xaxis.ticktext) == ESC_SRC and list(fig.layout.yaxis.ticktext) == ESC_TGT
    assert fig.layout.yaxis.autorange == "reversed"  # first target token at the top
    assert trace.customdata[2][1] == "target: ▁noir<br>source: ▁black<br>weight: 0.800"
    with pytest.raises(ValueError, match="3 labels for 4"):
        alignment_heatmap(W, SRC[:3], TGT)


def test_alignment_lines_threshold_width_and_hover():
    fig = alignment_lines(W, SRC, TGT, threshold=0.5)
    lines = [t for t in fig.data if t.mode == "lines"]
    n_segments = sum(sum(1 for x in t.x if x is None) for t in lines)
    assert n_segments == int((W >= 0.5).sum()) == 4
    widths = {round(t.line.width, 2): t.opacity for t in lines}
    assert max(widths) > min(widths) and widths[max(widths)] >= widths[min(widths)]
    hover = next(t for t in fig.data if t.name == "weights").customdata
    assert "source: ▁black<br>target: ▁noir<br>weight: 0.800" in hover
    texts = [list(t.text) for t in fig.data if t.mode == "markers+text"]
    assert texts == [ESC_SRC, ESC_TGT]
    assert len([t for t in alignment_lines(W, SRC, TGT, threshold=0.0).data if t.mode == "lines"])


def test_labels_are_html_escaped():
    fig = alignment_lines(W, ["<b>x</b>", "b", "c", "d"], TGT, threshold=0.0)
    assert "&lt;b&gt;x&lt;/b&gt;" in fig.data[-2].text


def test_weights_row_entropy_and_entropy_heatmap():
    flat, peaked = np.full((1, 4), 0.25), np.array([[1.0, 0, 0, 0]])
    assert weights_row_entropy(flat)[0] == pytest.approx(2.0)
    assert weights_row_entropy(peaked)[0] == 0.0
    fig = entropy_heatmap({"a": W, "b": np.full_like(W, 0.25)}, TGT, title="Entropy")
    z = np.asarray(fig.data[0].z)
    assert z.shape == (4, 2) and np.allclose(z[:, 1], 2.0)
    assert np.allclose(z[:, 0], weights_row_entropy(W))
    assert list(fig.layout.xaxis.ticktext) == ["a", "b"]
    assert list(fig.layout.yaxis.ticktext) == ESC_TGT
    assert fig.data[0].zmax == pytest.approx(2.0)  # log2 T_src: a flat row
    assert fig.data[0].texttemplate == "%{z:.2f}"  # the numbers in the cells
    with pytest.raises(ValueError, match="rows but 3 target tokens"):
        entropy_heatmap({"a": W}, TGT[:3])


def test_entropy_rows_keep_their_labels_apart():
    """Compare mode's entropy bars shrank the target tokens to dots (vertical bars
    squeezed into a column): now one labelled row per token, ROW_PX tall."""
    tgt = [f"▁mot{i}" for i in range(46)]
    w = np.random.default_rng(0).dirichlet(np.ones(30), size=46)
    fig = entropy_heatmap({"bahdanau": w, "luong-dot": w}, tgt)
    m = fig.layout.margin
    assert list(fig.layout.yaxis.ticktext) == tgt
    assert (fig.layout.height - m.t - m.b) / 46 >= ROW_PX
    assert m.l >= widest_px(tgt)


def test_token_prob_bars_highlight_low_ones():
    fig = token_prob_bars([0.9, 0.05, 0.5, 0.01], TGT, low=0.1)
    colours = list(fig.data[0].marker.color)
    assert colours[1] == colours[3] != colours[0] == colours[2]
    assert list(fig.data[0].text) == ["0.900", "0.050", "0.500", "0.010"]
    assert fig.layout.shapes[0].x0 == 0.1  # the dashed line at p = low


def test_token_prob_bars_label_every_token_readably():
    """Reference mode's probability bars had no readable token labels (a 10 px bottom
    margin cut them): now one horizontal row per token with the tokens on the y axis, the
    margin as wide as the widest token and the numbers at full size outside the bars."""
    tgt = ["▁Un", "▁chien", "▁noir", "▁récup", "ère", "</s>"] * 8
    fig = token_prob_bars(np.linspace(0, 1, len(tgt)), tgt, title="How likely")
    bars = fig.data[0]
    assert bars.orientation == "h" and list(bars.y) == list(range(len(tgt)))
    assert list(fig.layout.yaxis.ticktext) == [html.escape(t) for t in tgt]
    assert fig.layout.yaxis.tickmode == "array" and fig.layout.yaxis.autorange == "reversed"
    assert fig.layout.margin.l >= widest_px(tgt)
    assert bars.textposition == "outside" and bars.constraintext == "none"
    m = fig.layout.margin
    assert (fig.layout.height - m.t - m.b) / len(tgt) >= ROW_PX


def test_long_sentence_heatmap_keeps_every_label_and_its_cells():
    """At 46 words the heatmap stayed ~250 px wide and the source labels fused: now
    every token is on a tick, the figure asks for the width its columns need (COLUMN_PX each,
    the chart scrolls where the screen is narrower) and each row is ROW_PX tall."""
    src = [f"▁word{i}" for i in range(100)]
    tgt = [f"▁mot{i}" for i in range(60)]
    w = np.random.default_rng(1).dirichlet(np.ones(100), size=60)
    for fig in (
        alignment_heatmap(w, src, tgt, title="Bahdanau (additive)"),
        alignment_difference(w - w[::-1], src, tgt, title="luong-dot minus bahdanau"),
    ):
        m = fig.layout.margin
        assert list(fig.layout.xaxis.ticktext) == src and list(fig.layout.yaxis.ticktext) == tgt
        assert list(fig.layout.xaxis.tickvals) == list(range(100))
        assert fig.layout.width >= 100 * COLUMN_PX + m.l + m.r
        assert fig.layout.height >= 60 * ROW_PX + m.t + m.b


def test_difference_rows_do_not_overlap():
    """Compare mode's difference map kept plotly's default height, so 20 row labels
    overlapped; its rows are now ROW_PX tall and its colour bar's title beside the bar."""
    tgt = [f"t{i}" for i in range(20)]
    fig = alignment_difference(np.zeros((20, 5)) + 0.1, SRC + ["x"], tgt, title="b minus a")
    m = fig.layout.margin
    assert (fig.layout.height - m.t - m.b) / 20 >= ROW_PX
    assert fig.data[0].zmid == 0 and fig.data[0].colorbar.title.side == "right"


def test_maps_on_one_scale_without_colour_bar():
    fig = alignment_heatmap(W * 0.5, SRC, TGT, zmax=1.0, colorbar=False)
    assert fig.data[0].zmax == 1.0 and fig.data[0].showscale is False
    assert fig.layout.margin.r == 20


def test_titles_get_their_width_and_a_gap_above():
    """A long title sets the least width of a small figure."""
    title = "How likely the model found each of your tokens"
    fig = token_prob_bars([0.5], ["a"], title=title)
    assert fig.layout.width >= title_width(title) > 300
    small = alignment_heatmap(W, SRC, TGT, title=title)
    assert small.layout.width >= title_width(title)


def _local(T_out: int = 3, T_src: int = 6, D: int = 2):
    p_t = np.array([0.0, 2.5, 5.0])[:T_out]
    s = np.arange(T_src)
    gauss = np.exp(-((s[None] - p_t[:, None]) ** 2) / (2 * (D / 2) ** 2))
    gauss *= np.abs(s[None] - p_t[:, None]) <= D
    raw = gauss / gauss.sum(1, keepdims=True)
    window = np.stack([np.clip(p_t - D, 0, T_src - 1), np.clip(p_t + D, 0, T_src - 1)], 1)
    return raw, raw * gauss, gauss, p_t, window


def test_local_steps_figure_frames_window_and_play():
    raw, final, gauss, p_t, window = _local()
    src, tgt = [f"s{i}" for i in range(6)], ["x", "y", "z"]
    fig = local_steps_figure(raw, final, gauss, p_t, window, 2, src, tgt, step=1)
    assert len(fig.frames) == 3
    rect = fig.layout.shapes[0]
    assert (rect.x0, rect.x1) == (window[1, 0] - 0.5, window[1, 1] + 0.5)
    assert list(fig.data[1].x) == [2.5, 2.5]  # the p_t marker
    assert np.allclose(fig.data[3].y, raw[1]) and np.allclose(fig.data[4].y, final[1])
    assert fig.frames[2].layout.shapes[0].x0 == window[2, 0] - 0.5
    assert fig.layout.updatemenus[0].buttons[0].label == "▶ Play"
    assert fig.layout.sliders[0].active == 1
    with pytest.raises(ValueError):
        local_steps_figure(raw, final, gauss, p_t[:2], window, 2, src, tgt)


def test_local_heatmap_draws_p_t_path():
    raw, final, gauss, p_t, window = _local()
    fig = local_heatmap(final, [f"s{i}" for i in range(6)], ["x", "y", "z"], p_t, window)
    path = next(t for t in fig.data if t.name == "p_t")
    assert list(path.x) == list(p_t) and list(path.y) == [0, 1, 2]
    # the rows' range, not padded for the markers (each row keeps the height it is given)
    assert list(fig.layout.yaxis.range) == [2.5, -0.5] and fig.layout.yaxis.autorange is False


def _card(test: dict, long: dict | None = None) -> dict:
    return {"bleu_by_length": test, "long_sets": {"concat3": {"bleu_by_length": long or {}}}}


def test_bucket_points_test_set_and_joined_sets():
    card = _card(
        {"1-10": {"bleu": 40, "n": 500}, "21-30": {"bleu": 30, "n": 3}},
        {"21-30": {"bleu": 25, "n": 100}, "31-45": {"bleu": 20, "n": 200}},
    )
    card["long_sets"]["concat2"] = {"bleu_by_length": {"21-30": {"bleu": 28, "n": 300}}}
    assert [(p[0], p[1], p[3]) for p in bucket_points(card, "test")] == [(0, 40, "test")]
    joined = [(p[0], p[1], p[3]) for p in bucket_points(card, "joined")]
    assert joined == [(3, 28, "concat2"), (4, 20, "concat3")]  # the set with more sentences


def test_bleu_by_length_chart_solid_test_and_dotted_joined_lines():
    cards = {
        "none": _card(
            {"1-10": {"bleu": 30, "n": 50}, "11-15": {"bleu": 20, "n": 50}},
            {"31-45": {"bleu": 10, "n": 50}},
        ),
        "bahdanau": _card({"1-10": {"bleu": 40, "n": 50}}),
        "empty": {},
    }
    fig = bleu_by_length_chart(cards)
    assert [t.name for t in fig.data] == ["none", "none (joined pairs)", "bahdanau"]
    assert list(fig.data[0].y) == [30, 20] and fig.data[0].line.dash == "solid"
    assert fig.data[1].line.dash == "dot" and list(fig.data[1].x) == [4]
    assert len(fig.layout.xaxis.ticktext) == len(BUCKET_ORDER)


def test_gradient_norm_plot_log_axis_and_checks():
    fig = gradient_norm_plot({"none": [1e-4, 1e-2, 1.0]}, ["a", "b", "</s>"])
    assert fig.layout.yaxis.type == "log" and list(fig.layout.xaxis.ticktext) == [
        "a",
        "b",
        "&lt;/s&gt;",
    ]
    with pytest.raises(ValueError, match="2 norms but 3"):
        gradient_norm_plot({"none": [1, 2]}, ["a", "b", "c"])


def test_soft_addressing_figure_scores_above_weights():
    e = np.log(W[2] + 1e-9) + 3.0  # softmax(e) == W[2]
    fig = soft_addressing_figure(e, W[2], SRC, title="Step 2")
    scores, weights = fig.data
    assert np.allclose(scores.y, e) and np.allclose(weights.y, W[2])
    assert (scores.xaxis, scores.yaxis, weights.xaxis, weights.yaxis) == ("x", "y", "x2", "y2")
    assert list(fig.layout.xaxis.ticktext) == ESC_SRC == list(fig.layout.xaxis2.ticktext)
    assert fig.layout.yaxis.domain[0] > fig.layout.yaxis2.domain[1]  # e on top, alpha below
    texts = [a.text for a in fig.layout.annotations]
    assert any("before the softmax" in t for t in texts) and any("softmax(e)" in t for t in texts)
    assert fig.layout.xaxis2.title.standoff > 0  # the axis title under every vertical label
    with pytest.raises(ValueError, match="3 labels for 4"):
        soft_addressing_figure(e, W[2], SRC[:3])
    with pytest.raises(ValueError, match="4 scores but 3 weights"):
        soft_addressing_figure(e, W[2][:3], SRC)


def test_candidates_bars_one_row_per_candidate():
    fig = candidates_bars([("▁noir", 0.6), ("▁blanc", 0.3)], title="next")
    bars = fig.data[0]
    assert list(bars.x) == [0.6, 0.3] and list(bars.text) == ["0.600", "0.300"]
    assert list(fig.layout.yaxis.ticktext) == ["▁noir", "▁blanc"]
    assert fig.layout.yaxis.autorange == "reversed"
