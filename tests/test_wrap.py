"""A map of tokens by tokens too wide for its column, wrapped in blocks of columns one under the
other (viz.wrap): every column in exactly one block, every row labelled in each block, no wider
than the column, the same cell size, and a figure plotly accepts."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from viz.alignment import alignment_heatmap
from viz.local_heatmap import local_heatmap
from viz.wrap import _array, blocks_needed, columns_of, wrap_columns

SRC = [f"▁s{i}" for i in range(52)]
TGT = [f"▁t{i}" for i in range(56)]


def _weights() -> np.ndarray:
    return np.random.default_rng(0).dirichlet(np.ones(len(SRC)), size=len(TGT))  # (T_out, T_src)


def _spec() -> dict:
    return alignment_heatmap(_weights(), SRC, TGT).to_dict()


def _axes(spec: dict, kind: str) -> list[str]:
    return sorted((k for k in spec["layout"] if k.startswith(kind)), key=lambda k: (len(k), k))


def test_a_map_that_fits_is_left_as_it_is():
    spec = _spec()
    width = spec["layout"]["width"]
    assert blocks_needed(spec, width) == 1
    wrapped = wrap_columns(spec, 1)
    assert not wrapped.wrapped and wrapped.spec is spec and len(spec["data"]) == 1


@pytest.mark.parametrize("fit", [820, 600, 400])
def test_every_column_is_in_one_block_and_the_map_fits(fit: int):
    spec = _spec()
    margin = spec["layout"]["margin"]
    cell = (spec["layout"]["width"] - margin["l"] - margin["r"]) / len(SRC)
    blocks = blocks_needed(spec, fit)
    assert blocks > 1
    wrapped = wrap_columns(spec, blocks)
    assert len(wrapped.blocks) == blocks
    columns = [c for _, _, first, last in wrapped.blocks for c in range(first, last + 1)]
    assert columns == list(range(len(SRC)))
    layout = wrapped.spec["layout"]
    assert layout["width"] <= fit
    # the cells keep their width: the widest block's columns times the cell, plus the margins
    widest = max(last - first + 1 for _, _, first, last in wrapped.blocks)
    assert layout["width"] == round(margin["l"] + margin["r"] + widest * cell)
    for x, y, first, last in wrapped.blocks:
        xa = layout["xaxis" + x[1:]]
        ya = layout["yaxis" + y[1:]]
        assert xa["range"] == [first - 0.5, last + 0.5] and xa["anchor"] == y
        assert ya["ticktext"] == TGT and ya["anchor"] == x  # every row labelled in every block
        assert xa["ticktext"] == SRC  # the block's range shows its own columns' labels


def test_the_blocks_are_stacked_without_overlap_each_as_tall_as_the_map():
    spec = _spec()
    height = spec["layout"]["height"]
    margin = spec["layout"]["margin"]
    plot = height - margin["t"] - margin["b"]
    wrapped = wrap_columns(spec, 3)
    layout = wrapped.spec["layout"]
    total = layout["height"] - margin["t"] - margin["b"]
    domains = [layout[name]["domain"] for name in _axes(wrapped.spec, "yaxis")]
    assert domains[0][1] == 1 and domains[-1][0] == pytest.approx(0, abs=1e-9)
    for (lo, _), (_, hi_next) in zip(domains, domains[1:], strict=False):
        assert hi_next < lo  # room for the labels between two blocks
    for lo, hi in domains:
        assert (hi - lo) * total == pytest.approx(plot, abs=1)


def test_each_block_has_the_traces_and_one_colour_bar():
    spec = _spec()
    wrapped = wrap_columns(spec, 2)
    traces = wrapped.spec["data"]
    assert [t.get("xaxis", "x") for t in traces] == ["x", "x2"]
    assert traces[1]["showscale"] is False and traces[0].get("showscale", True) is not False
    bar = traces[0]["colorbar"]
    assert bar["len"] < 0.55 and bar["y"] - bar["len"] / 2 > 0.45  # beside the first block
    # each block sends its own columns only: together, every cell once, each at its column
    z = [_array(t["z"]) for t in traces]
    np.testing.assert_allclose(np.concatenate(z, axis=1), _weights())
    xs = np.concatenate([_array(t["x"]) for t in traces])
    assert xs.tolist() == list(range(len(SRC)))
    cells = np.concatenate([np.asarray(t["customdata"], dtype=object) for t in traces], axis=1)
    assert cells.shape == (len(TGT), len(SRC))
    go.Figure(wrapped.spec)  # plotly accepts it


def test_overlays_on_the_axes_are_copied_to_every_block():
    """Local attention's map: p_t's path and the window are drawn on the heatmap's axes."""
    t_out, t_src = 30, 52
    weights = np.random.default_rng(1).dirichlet(np.ones(t_src), size=t_out)
    p_t = np.linspace(2, 48, t_out)
    window = np.stack([p_t - 5, p_t + 5], axis=1)
    fig = local_heatmap(weights, SRC, TGT[:t_out], p_t, window, title="local")
    spec = fig.to_dict()
    n_traces = len(spec["data"])
    n_shapes = len(spec["layout"].get("shapes") or [])
    wrapped = wrap_columns(spec, 2)
    assert len(wrapped.spec["data"]) == 2 * n_traces
    shapes = wrapped.spec["layout"].get("shapes") or []
    on_axes = [s for s in shapes if s.get("xref", "x") != "paper"]
    assert len(shapes) >= n_shapes and all(
        s.get("yref") != "y2" or s["xref"] == "x2" for s in on_axes
    )
    go.Figure(wrapped.spec)


def test_plots_side_by_side_are_not_wrapped():
    spec = _spec()
    spec["layout"]["xaxis"]["domain"] = [0, 0.45]
    spec["layout"]["xaxis2"] = spec["layout"]["xaxis"] | {"domain": [0.55, 1]}
    spec["layout"]["yaxis2"] = {}
    assert columns_of(spec) == 0 and blocks_needed(spec, 100) == 1
    assert not wrap_columns(spec, 2).wrapped


def test_an_animations_frames_are_copied_to_every_block():
    """Local attention's step figure: three panels over one x axis, a frame per step."""
    from viz.local_steps import local_steps_figure

    rng = np.random.default_rng(4)
    raw = rng.dirichlet(np.ones(len(SRC)), size=6)  # (T_out, T_src)
    p_t = np.linspace(3, 48, 6)
    window = np.stack([p_t - 5, p_t + 5], axis=1)
    fig = local_steps_figure(raw, raw, raw, p_t, window, 5, SRC, TGT[:6])
    spec = fig.to_dict()
    traces = len(spec["data"])
    shapes = len(spec["frames"][0]["layout"]["shapes"])
    title = spec["layout"]["title"]
    from_top = (1 - title["y"]) * spec["layout"]["height"]  # the title's px from the top
    wrapped = wrap_columns(spec, 2)
    assert wrapped.traces == traces and len(wrapped.spec["data"]) == 2 * traces
    for frame in wrapped.spec["frames"]:
        assert frame["traces"] == [*range(traces), *range(traces, 2 * traces)]
        assert len(frame["data"]) == 2 * traces
        assert len(frame["layout"]["shapes"]) == 2 * shapes
    layout = wrapped.spec["layout"]
    assert all(0 <= s["y"] for s in layout["sliders"])  # the controls stay on the figure
    assert (1 - layout["title"]["y"]) * layout["height"] == pytest.approx(from_top)
    frame_title = wrapped.spec["frames"][0]["layout"]["title"]
    assert (1 - frame_title["y"]) * layout["height"] == pytest.approx(from_top)
    go.Figure(wrapped.spec)


def test_annotations_on_the_page_keep_their_place_above_the_first_block():
    spec = _spec()
    spec["layout"]["annotations"] = [
        {"xref": "paper", "yref": "paper", "x": 0, "y": 1.1, "text": "n"}
    ]
    margin = spec["layout"]["margin"]
    plot = spec["layout"]["height"] - margin["t"] - margin["b"]
    above = 0.1 * plot  # px above the plot's top
    wrapped = wrap_columns(spec, 2)
    layout = wrapped.spec["layout"]
    total = layout["height"] - margin["t"] - margin["b"]
    assert (layout["annotations"][0]["y"] - 1) * total == pytest.approx(above)


def test_stacked_panels_are_wrapped_together_with_their_titles():
    """The Alignment step inspector's two panels (scores e over weights α, the same columns):
    each block holds both panels, with both panels' titles."""
    from viz.scores import soft_addressing_figure

    rng = np.random.default_rng(2)
    e = rng.normal(size=len(SRC))
    alpha = np.exp(e) / np.exp(e).sum()
    spec = soft_addressing_figure(e, alpha, SRC, title="step 0").to_dict()
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert columns_of(spec) == len(SRC)
    wrapped = wrap_columns(spec, 2)
    layout = wrapped.spec["layout"]
    assert len(_axes(wrapped.spec, "xaxis")) == 4 and len(wrapped.spec["data"]) == 4
    texts = [a["text"] for a in layout["annotations"]]
    assert all(texts.count(t) == 2 for t in titles)  # each panel's title over it in both blocks
    domains = sorted((layout[n]["domain"] for n in _axes(wrapped.spec, "yaxis")), reverse=True)
    for (lo, _), (_, hi_next) in zip(domains, domains[1:], strict=False):
        assert hi_next < lo  # no two plots overlap
    go.Figure(wrapped.spec)


def test_an_animated_heatmaps_frames_are_cut_to_each_blocks_columns():
    """A heatmap played frame by frame (the lab's probe map): each frame's heatmap is cut to
    each block's columns as the figure's is, so that playing never puts a whole map on a
    block's axes."""
    spec = _spec()
    later = _weights()[::-1]  # another step's weights, (T_out, T_src)
    spec["frames"] = [{"name": "1", "data": [{"type": "heatmap", "z": later}], "traces": [0]}]
    wrapped = wrap_columns(spec, 2)
    frame = wrapped.spec["frames"][0]
    assert frame["traces"] == [0, 1]
    data = wrapped.spec["data"]
    for shown, step in zip(data, frame["data"], strict=True):
        assert _array(step["x"]).tolist() == _array(shown["x"]).tolist()
        assert _array(step["z"]).shape == _array(shown["z"]).shape
    z = np.concatenate([_array(step["z"]) for step in frame["data"]], axis=1)
    np.testing.assert_allclose(z, later)
