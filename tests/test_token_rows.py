"""Charts of a long sentence turned on their side: the same values, the tokens down the
y axis in reading order, no fixed width; and the pages' choice between across and turned."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from ui import fit
from viz.bottleneck import gradient_norm_plot
from viz.recurrent import token_lines, units_heatmap
from viz.token_rows import turned

TOKENS = [f"w{i}" for i in range(50)]


def test_turned_swaps_the_axes_and_the_hover_text():
    trace = {"type": "scatter", "x": [0, 1], "y": [0.5, 0.7], "hovertemplate": "%{y:.2e}"}
    assert turned(trace) == trace | {"x": [0.5, 0.7], "y": [0, 1], "hovertemplate": "%{x:.2e}"}


@pytest.mark.parametrize("log", [False, True])
def test_token_lines_turned_keep_every_value_and_token(log):
    series = {"a": np.linspace(0.1, 0.9, 50), "b": np.linspace(0.9, 0.1, 50)}
    across = token_lines(TOKENS, series, title="t", x_title="token", y_title="v", log=log)
    down = token_lines(
        TOKENS, series, title="t", x_title="token", y_title="v", log=log, across=False
    )
    for a, d in zip(across.data, down.data, strict=True):
        np.testing.assert_array_equal(a.x, d.y)
        np.testing.assert_array_equal(a.y, d.x)
    assert list(down.layout.yaxis.ticktext) == TOKENS and down.layout.yaxis.autorange == "reversed"
    assert down.layout.xaxis.type == ("log" if log else None)
    assert down.layout.width < 400 < 800 < across.layout.width  # too wide for a laptop's column
    assert down.layout.height >= 50 * 20  # a row per token


def test_a_turned_chart_is_as_wide_as_its_title_from_the_plots_left_edge():
    """A turned chart's title starts at the plot's left edge, after the tokens' labels;
    its width counted the title alone, so on a phone a long Chinese title was cut at the right
    (Recurrent's gate means by 32 px at 390x844 with the 46-word input)."""
    from viz.heatmaps import title_width

    title = "每个词的更新门 z_t 与重置门 r_t（各单元的平均）"
    long_tokens = [f"grandfather{i}" for i in range(50)]
    down = token_lines(
        long_tokens,
        {"a": np.linspace(0, 1, 50)},
        title=title,
        x_title="t",
        y_title="v",
        across=False,
    )
    assert down.layout.width >= down.layout.margin.l + title_width(title)


def test_the_gradient_plot_turned():
    down = gradient_norm_plot({"none": np.geomspace(0.1, 4, 50)}, TOKENS, across=False)
    assert list(down.layout.yaxis.ticktext) == TOKENS and down.layout.xaxis.type == "log"
    assert "%{x:.2e}" in down.data[0].hovertemplate and down.layout.width < 400


def test_units_heatmap_turned_puts_the_tokens_down():
    values = np.random.default_rng(0).uniform(-1, 1, (50, 8))  # (T, U)
    options = {"title": "h", "axis_names": ("unit", "token"), "value_name": "h", "signed": True}
    across = units_heatmap(values, TOKENS, list(range(8)), **options)
    down = units_heatmap(values, TOKENS, list(range(8)), across=False, **options)
    np.testing.assert_allclose(np.asarray(down.data[0].z), np.asarray(across.data[0].z).T)
    assert list(down.layout.yaxis.ticktext) == TOKENS
    assert down.layout.width < across.layout.width


def test_a_page_turns_what_does_not_fit(monkeypatch):
    def build(across: bool) -> go.Figure:
        return go.Figure(layout={"width": 2000 if across else 300})

    monkeypatch.setattr(fit, "classroom_mode", lambda: False)
    assert fit.PAGE.across_or_turned(build).layout.width == 300
    assert (
        fit.PAGE.across_or_turned(lambda across: go.Figure(layout={"width": 700})).layout.width
        == 700
    )
    half = fit.Column((1, 1))
    assert not half.holds_width(420) and half.holds_width(380)
    monkeypatch.setattr(fit, "classroom_mode", lambda: True)  # fitted down to 16 px type first
    assert fit.PAGE.holds_width(800) and not fit.PAGE.holds_width(820)
