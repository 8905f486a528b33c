"""The translation pages' pure figure builders: data, tick labels, hover text, shape checks."""

from __future__ import annotations

import html

import numpy as np
import pytest

from viz.alignment import (
    alignment_heatmap,
    alignment_lines,
    entropy_bars,
    local_heatmap,
    row_entropy,
    step_figure,
    token_prob_bars,
)
from viz.bottleneck import BUCKET_ORDER, bleu_by_length_chart, bucket_points, gradient_norm_plot
from viz.local_steps import local_steps_figure

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


def test_row_entropy_and_entropy_bars():
    flat, peaked = np.full((1, 4), 0.25), np.array([[1.0, 0, 0, 0]])
    assert row_entropy(flat)[0] == pytest.approx(2.0) and row_entropy(peaked)[0] == 0.0
    fig = entropy_bars({"a": W, "b": np.full_like(W, 0.25)}, TGT)
    assert [t.name for t in fig.data] == ["a", "b"]
    assert np.allclose(fig.data[1].y, 2.0)
    with pytest.raises(ValueError, match="rows but 3 target tokens"):
        entropy_bars({"a": W}, TGT[:3])


def test_token_prob_bars_highlight_low_ones():
    fig = token_prob_bars([0.9, 0.05, 0.5, 0.01], TGT, low=0.1)
    colours = list(fig.data[0].marker.color)
    assert colours[1] == colours[3] != colours[0] == colours[2]


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


def test_step_figure_weights_and_candidates():
    fig = step_figure(W[2], SRC, [("▁noir", 0.6), ("▁blanc", 0.3)], title="s")
    assert np.allclose(fig.data[0].y, W[2]) and list(fig.layout.xaxis.ticktext) == ESC_SRC
    assert list(fig.data[1].x) == [0.6, 0.3] and list(fig.layout.yaxis2.ticktext) == [
        "▁noir",
        "▁blanc",
    ]
    with pytest.raises(ValueError, match="3 labels for 4"):
        step_figure(W[2], SRC[:3], [])
