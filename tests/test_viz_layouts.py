"""The layouts that keep the charts of the anatomy, local attention, positional encoding, √d_k and
training lab pages legible, checked on the figures' data: what sits where, at what size
(tests/test_browser_legible_figures.py draws them in Chromium and judges the result)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app_pages.anatomy.number_table import cell_text, parse_cell
from models.analysis.toy import anatomy
from viz.anatomy import DIAGRAM_PX, LABEL_PX, _box, name_layout, vector_diagram
from viz.lab import Curves, training_curves
from viz.local_heatmap import local_heatmap
from viz.local_steps import local_steps_figure
from viz.measure import text_px
from viz.positional import NUMBER_CELL_PX, permutation_maps
from viz.scaling import entropy_heatmap

ALIGNED = np.array(
    [[2.0, 1.0, 1.0, 0.0], [-1.0, 1.0, 0.0, 1.0], [0.0, -2.0, -1.0, 0.0], [1, -1, 0, -1]]
)


def _local(n_src: int, n_tgt: int = 3, D: int = 2):
    p_t = np.linspace(0, n_src - 1, n_tgt)
    s = np.arange(n_src)
    gauss = np.exp(-((s[None] - p_t[:, None]) ** 2) / (2 * (D / 2) ** 2))
    raw = gauss / gauss.sum(1, keepdims=True)
    window = np.stack([np.clip(p_t - D, 0, n_src - 1), np.clip(p_t + D, 0, n_src - 1)], 1)
    src = [f"▁word{i}" for i in range(n_src)]
    return local_steps_figure(raw, raw * gauss, gauss, p_t, window, D, src, ["▁Un", "▁b", "c"])


def test_local_steps_title_controls_and_panels_stack_without_overlap():
    fig = _local(12)
    layout = fig.layout
    assert layout.showlegend is False  # the legend covered the title; each panel is titled
    assert "<br>" in layout.title.text and layout.title.yanchor == "middle"
    assert layout.sliders[0].currentvalue.visible is False  # "step: 0:▁Un" ran into Pause
    buttons, slider = layout.updatemenus[0], layout.sliders[0]
    panel_tops = [layout[f"yaxis{s}"].domain[1] for s in ("", "2", "3")]
    # from the top: title, buttons, slider, then the panels, each a row of its own
    assert buttons.y > slider.y > 1 >= max(panel_tops)
    for axis in ("yaxis", "yaxis2", "yaxis3"):  # ".5": the y ticks were cut by a 10 px margin
        assert list(layout[axis].tickvals) == [0, 0.5, 1]
    assert layout.margin.l >= text_px("0.5") + 10
    assert list(layout.xaxis.tickvals) == list(range(12))  # every source token labelled
    # the three panels do not overlap, and each has room for its title above it
    domains = sorted(layout[axis].domain for axis in ("yaxis", "yaxis2", "yaxis3"))
    assert all(a[1] < b[0] for a, b in zip(domains, domains[1:], strict=False))


def test_local_steps_grow_with_the_sentence():
    short, long = _local(12), _local(47)
    assert long.layout.width > short.layout.width
    assert long.layout.width >= 47 * 16 + long.layout.margin.l + long.layout.margin.r
    assert len(long.layout.xaxis.ticktext) == 47


def test_vector_names_apart_in_the_default_preset():
    """k:A sits on the query and v:A next to the context: their names went on top of each
    other."""
    query = np.array([2.0, 1.0])
    result = anatomy(query, ALIGNED[:, :2], ALIGNED[:, 2:], score_name="dot", temperature=1.0)
    tips = np.concatenate([[query], [result.context], ALIGNED[:, :2], ALIGNED[:, 2:]])
    names = ["query", "context", *(f"k:{c}" for c in "ABCD"), *(f"v:{c}" for c in "ABCD")]
    places, boxes, __, __ = name_layout(tips, names)
    assert places[0] != places[2]  # query and k:A share a tip: different sides
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1])


def test_vector_diagram_ranges_hold_every_name():
    fig = vector_diagram([2, 1], ALIGNED[:, :2], ALIGNED[:, 2:], [0.9, 0.0], list("ABCD"))
    assert fig.layout.showlegend is False and fig.layout.height
    texts = [t for t in fig.data if t.mode == "markers+text"]
    x0, x1 = fig.layout.xaxis.range
    y0, y1 = fig.layout.yaxis.range
    unit = max(x1 - x0, y1 - y0) / DIAGRAM_PX
    for trace in texts:
        for x, y, name, place in zip(trace.x, trace.y, trace.text, trace.textposition, strict=True):
            box = _box(x, y, text_px(name) * unit, LABEL_PX * unit, 7 * unit, place)
            assert x0 <= box[0] and box[2] <= x1 and y0 <= box[1] and box[3] <= y1, (name, box)


@pytest.mark.parametrize(
    ("text", "value"),
    [("-3", -3.0), (" \u22123 ", -3.0), ("+.5", 0.5), ("1e-6", 1e-6), ("2", 2.0), (2.0, 2.0)],
)
def test_cells_read_numbers(text, value):
    assert parse_cell(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", None, "abc", "3-", "1e5", "-101", "nan", "inf", "1,5"])
def test_cells_refuse_what_is_not_a_number_in_range(text):
    assert math.isnan(parse_cell(text))


def test_cell_text_round_trips():
    assert [cell_text(v) for v in (2.0, -0.5, 1e-6, math.nan)] == ["2", "-0.5", "1e-06", ""]
    assert parse_cell(cell_text(-0.25)) == -0.25


def _panels(n: int) -> list[tuple]:
    z = np.random.default_rng(0).dirichlet(np.ones(n), size=n)
    tokens = [f"w{i}" for i in range(n)]
    titles = ["without PE · original order", "with PE · original order"]
    titles += ["without PE · shuffled order\nmax |difference|\nafter un-shuffling: 1.39e-16"] * 2
    return [(z, tokens, tokens, title) for title in titles]


@pytest.mark.parametrize("n", [2, 6, 40])
def test_permutation_maps_give_every_cell_and_title_room(n):
    fig = permutation_maps(_panels(n))
    layout = fig.layout
    plot_w = layout.width - layout.margin.l - layout.margin.r
    x1, x2 = layout.xaxis.domain, layout.xaxis2.domain
    assert x1[1] < x2[0]  # the right panels' token labels fit in the gap
    cell = NUMBER_CELL_PX if n * n <= 144 else 14
    assert (x1[1] - x1[0]) * plot_w >= n * cell - 0.5
    widest = text_px("after un-shuffling: 1.39e-16")
    assert (x1[1] - x1[0]) * plot_w >= widest  # the title's longest line fits over its panel
    y_top, y_bottom = layout.yaxis.domain, layout.yaxis3.domain
    assert y_bottom[1] < y_top[0]
    titles = [a.y for a in layout.annotations]
    assert titles == [y_top[1], y_top[1], y_bottom[1], y_bottom[1]]


def test_entropy_heatmap_numbers_heads_down_and_layers_across():
    entropy = np.arange(24, dtype=float).reshape(3, 8) / 10  # (L, H)
    fig = entropy_heatmap(
        entropy, title="t", zmax=3.0, axis_names=("head", "layer"), value_name="bits"
    )
    trace = fig.data[0]
    assert np.allclose(trace.z, entropy.T)  # a head per row
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "3"]
    assert list(fig.layout.yaxis.ticktext) == [str(h) for h in range(1, 9)]
    assert trace.texttemplate and trace.textfont.size == 12
    assert fig.layout.width >= fig.layout.margin.l + fig.layout.margin.r + 3 * 30


def test_training_curves_stack_their_panels():
    curves = Curves(
        "GRU + bahdanau", "bahdanau", [0, 5, 10], [3.0, 2.0, 1.0], [0, 0.5, 1], [0, 0.5, 0.9]
    )
    fig = training_curves([curves], step=5)
    domains = [fig.layout[f"yaxis{s}"].domain for s in ("", "2", "3")]
    assert domains[0][0] > domains[1][1] and domains[1][0] > domains[2][1]  # loss on top
    shown = [fig.layout[f"xaxis{s}"].showticklabels for s in ("", "2", "3")]
    assert shown == [False, False, True]  # the steps once, under the last panel


def test_local_heatmap_legend_is_one_short_row():
    """p_t - D and p_t + D are one legend entry: three entries wrapped onto a second row on a
    phone, under the x axis title."""
    n = 6
    p_t = np.arange(n, dtype=float)
    window = np.stack([p_t - 2, p_t + 2], 1)
    fig = local_heatmap(np.eye(n), list("abcdef"), list("uvwxyz"), p_t, window)
    shown = [t.name for t in fig.data if t.type == "scatter" and t.showlegend is not False]
    assert shown == ["p_t ± D", "p_t"]
    bounds = [t for t in fig.data if t.name == "p_t ± D"]
    assert [list(t.x) for t in bounds] == [list(window[:, 0]), list(window[:, 1])]
