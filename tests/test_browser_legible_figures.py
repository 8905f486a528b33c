"""The charts of the anatomy, local attention, positional encoding, √d_k and training lab pages,
drawn by plotly.js in Chromium the way ``ui.charts.plotly_chart`` sends them (``legible``: classroom
mode's fonts and sizes, or the normal minimum) at the widths the pages give them, and judged by
``tests.legibility``: no text clipped or overlapping, none too small, every token
labelled, cells large enough. The defects this was written against: the local step chart's legend
over its title, its y ticks cut to ".5", its "step: 0:▁Un" over the Pause button; the anatomy's
"query" on "k:A" and "context" on "v:A"; the lab's heatmap titles and curves, the permutation maps'
titles and cells, the √d_k page's head labels and the corner where two axes' "0" met."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import plotly.graph_objects as go
import pytest
from atlas_plotly import ensure_plotly_js

from models.analysis.toy import anatomy
from models.lab.train import LabConfig
from tests.legibility import check_page
from ui.charts import legible
from viz.alignment import alignment_heatmap
from viz.anatomy import vector_diagram, weights_bar
from viz.lab import Curves, length_accuracy_chart, probe_player, training_curves
from viz.local_heatmap import local_heatmap
from viz.local_steps import local_steps_figure
from viz.positional import (
    pe_curves,
    pe_heatmap,
    permutation_maps,
    position_heatmap,
    position_norms_figure,
)
from viz.scaling import dot_histograms, entropy_heatmap, grouped_bars, lines_over_dims

pytestmark = pytest.mark.browser
PLOTLY_JS = ensure_plotly_js()  # the bundle the chart component draws with
# The screens: (name, classroom mode, the width in px of a page's full, half (two columns,
# small or large gap) and third column): a phone stacks the columns; a laptop at 1280x800; a
# projector at 1280x720 in classroom mode (the sidebar collapsed).
SCREENS = [
    ("phone", False, {"full": 358, "half": 358, "pair": 358, "third": 358}),
    ("laptop", False, {"full": 820, "half": 402, "pair": 378, "third": 262}),
    ("projector", True, {"full": 1080, "half": 530, "pair": 500, "third": 347}),
]
WORDS = (
    "The old fisherman and his young grandson walked slowly along the quiet beach at sunrise , "
    "carrying two wooden baskets of fresh bread and ripe apples , while a small brown dog ran "
    "ahead of them and chased the white birds that rested near the cold blue waves ."
).split()
ALIGNED = np.array(
    [[2.0, 1.0, 1.0, 0.0], [-1.0, 1.0, 0.0, 1.0], [0.0, -2.0, -1.0, 0.0], [1, -1, 0, -1]]
)
EQUAL = np.array([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 1.0], [1.0, 1.0, -1.0, 0.0], [1, 1, 0, -1]])


def _local(source: list[str], target: list[str], D: int = 5) -> go.Figure:
    n_src, n_tgt = len(source), len(target)
    p_t = np.linspace(0, n_src - 1, n_tgt)  # (T_out,)
    s = np.arange(n_src)
    gauss = np.exp(-((s[None] - p_t[:, None]) ** 2) / (2 * (D / 2) ** 2))  # (T_out, T_src)
    inside = np.abs(s[None] - p_t[:, None]) <= D
    raw = np.where(inside, gauss, 0) / np.where(inside, gauss, 0).sum(1, keepdims=True)
    window = np.stack([np.clip(p_t - D, 0, n_src - 1), np.clip(p_t + D, 0, n_src - 1)], 1)
    return local_steps_figure(raw, raw * gauss, gauss, p_t, window, D, source, target, step=0)


def _vectors(items: np.ndarray, extra: dict | None = None) -> go.Figure:
    query = np.array([2.0, 1.0])
    result = anatomy(query, items[:, :2], items[:, 2:], score_name="dot", temperature=1.0)
    names = list("ABCD")
    return vector_diagram(
        query,
        items[:, :2],
        items[:, 2:],
        result.context,
        names,
        title="Query, keys, values and the context",
        extra=extra,
    )


SOURCE = "▁A ▁black ▁dog ▁is ▁retrie ving ▁a ▁ball ▁in ▁water . </s>".split()
PIECES = [f"▁{w}" for w in WORDS]


def _local_heatmap(source: list[str]) -> go.Figure:
    """The local heatmap of ``source`` and a translation two pieces longer (the page's default
    sentence: 12 x 14 cells, too many to print their numbers)."""
    n, m = len(source), len(source) + 2
    p_t = np.linspace(0, n - 1, m)  # (T_out,)
    window = np.stack([np.clip(p_t - 5, 0, n - 1), np.clip(p_t + 5, 0, n - 1)], 1)  # (T_out, 2)
    weights = np.random.default_rng(0).dirichlet(np.ones(n), size=m)  # (T_out, T_src)
    title = "local-p, D = 5: weights and p_t"
    return local_heatmap(weights, source, [f"t{i}" for i in range(m)], p_t, window, title=title)


def _probe(title: str) -> go.Figure:
    """The lab's probe at its default length (reverse 12 letters, and </s>)."""
    source = [*"qltkuorenlx", "q", "</s>"]
    weights = np.eye(len(source))[::-1]  # (T, T): the reversal's anti-diagonal
    return alignment_heatmap(weights, source, source[::-1], title=title)


def _player() -> go.Figure:
    """The lab's probe through training: 42 snapshots (0 to 4,100 steps) as frames."""
    source = [*"qltkuorenlx", "q", "</s>"]
    steps = list(range(0, 4101, 100))
    rng = np.random.default_rng(0)
    weights = [rng.dirichlet(np.ones(len(source)), size=len(source)) for _ in steps]  # (T, T)
    titles = [f"Attention at step {s:,}" for s in steps]
    return probe_player(weights, steps, source, source[::-1], titles=titles, index=30)


def _panels(tokens: list[str]) -> list[tuple]:
    n = len(tokens)
    z = np.random.default_rng(0).dirichlet(np.ones(n), size=n)  # (n, n)
    shuffled = "without PE · shuffled order\nmax |difference|\nafter un-shuffling: 1.39e-16"
    titles = ["without PE · original order", "with PE · original order", shuffled, shuffled]
    return [(z, tokens, tokens, title) for title in titles]


def _curves() -> list[Curves]:
    steps = list(range(0, 801, 20))
    loss = [float("nan"), *np.geomspace(3.3, 0.01, len(steps) - 1)]
    acc = list(np.linspace(0, 1, len(steps)))
    return [
        Curves("LSTM ×2, bidirectional + bahdanau", "bahdanau", steps, loss, acc, acc),
        Curves("LSTM ×2, bidirectional, no attention", "none", steps, loss, acc),
    ]


def _pe(n: int, d: int) -> np.ndarray:
    pos = np.arange(n)[:, None]
    rates = 1 / 10000 ** (2 * (np.arange(d) // 2) / d)
    return np.where(np.arange(d) % 2 == 0, np.sin(pos * rates), np.cos(pos * rates))  # (n, d)


def _heights(fig: go.Figure, height: int) -> go.Figure:
    return fig.update_layout(height=height)  # what the page asks of plotly_chart


# name -> (the column it is drawn in on its page, the figure)
FIGURES: dict[str, tuple[str, Callable[[], go.Figure]]] = {
    "local steps, 12 pieces": (
        "full",
        lambda: _local(SOURCE, "▁Un ▁chien ▁noir ▁se ▁mord ant ▁un ▁ballon </s>".split()),
    ),
    "local steps, 47 pieces": ("full", lambda: _local(PIECES, PIECES)),
    "local heatmap, 12 pieces": ("half", lambda: _local_heatmap(SOURCE)),
    "local heatmap, 47 pieces": ("half", lambda: _local_heatmap(PIECES)),
    "anatomy scores": (
        "pair",
        lambda: weights_bar(
            [5.0, -1.0, -2.0, 1.0], list("ABCD"), title="Scores e_s", y_title="score"
        ),
    ),
    "anatomy vectors, default preset": ("pair", lambda: _vectors(ALIGNED)),
    "anatomy vectors, all keys equal": ("pair", lambda: _vectors(EQUAL)),
    "anatomy vectors, hard pick": ("pair", lambda: _vectors(ALIGNED, {"hard pick (B)": [0, 1]})),
    "permutation maps, 6 words": (
        "full",
        lambda: permutation_maps(_panels("the cat sat on the mat".split())),
    ),
    "permutation maps, 40 words": ("full", lambda: permutation_maps(_panels(WORDS[:40]))),
    "PE matrix": (
        "full",
        lambda: pe_heatmap(_pe(64, 64), title="PE matrix (64 positions × 64 dimensions)"),
    ),
    "PE curves": (
        "full",
        lambda: pe_curves(_pe(64, 64), [0, 1, 4, 5], title="Chosen dimensions over position"),
    ),
    "position similarity": (
        "half",
        lambda: position_heatmap(
            np.corrcoef(_pe(64, 64)),
            title="learned: cosine similarity of positions",
            value_name="cosine",
            colorscale="RdBu_r",
            zmin=-1.0,
            zmax=1.0,
            zmid=0.0,
        ),
    ),
    "position lengths": (
        "full",
        lambda: position_norms_figure(
            {"sinusoidal": np.full(64, 5.66), "learned": np.linspace(0.1, 9, 64)},
            title="Length of each position's vector",
        ),
    ),
    "q·k histograms": (
        "half",
        lambda: _heights(
            dot_histograms(
                {f"d_k = {d}": np.random.default_rng(d).normal(size=4000) for d in (4, 64, 512)},
                title="with the scale: q·k / √d_k",
                x_title="score",
                y_title="density",
            ),
            420,
        ),
    ),
    "saturation": (
        "third",
        lambda: _heights(
            lines_over_dims(
                [4, 8, 16, 32, 64, 128, 256, 512],
                {"without the scale": np.linspace(0.5, 1, 8), "with the scale": np.full(8, 0.3)},
                title="gradient norm ‖∂p/∂s‖",
                x_title="d_k",
                y_title="gradient norm ‖∂p/∂s‖",
            ),
            400,
        ),
    ),
    "entropy per head": (
        "half",
        lambda: entropy_heatmap(
            np.random.default_rng(0).uniform(0, 3.3, size=(3, 8)),
            title="with the scale (as trained)",
            zmax=3.3,
            axis_names=("head", "layer"),
            value_name="entropy (bits)",
        ),
    ),
    "entropy per layer": (
        "full",
        lambda: _heights(
            grouped_bars(
                ["layer 1", "layer 2", "layer 3"],
                {"with the scale": np.array([2.5, 2.1, 2.8]), "without the scale": np.ones(3)},
                title="mean row entropy per layer (over heads)",
                y_title="entropy (bits)",
            ),
            380,
        ),
    ),
    "lab probe": ("half", lambda: _probe("Attention at step 3,000")),
    "lab probe player": ("half", _player),
    "lab truth": ("half", lambda: _probe("True alignment")),
    "training curves": (
        "full",
        lambda: training_curves(_curves(), step=400, title="Training curves"),
    ),
    "accuracy by length": (
        "full",
        lambda: length_accuracy_chart(
            [
                (c.label, c.attention, [(n, 1 / n) for n in range(1, LabConfig().max_len + 1)])
                for c in _curves()
            ],
            title="Sequence accuracy at step 800",
        ),
    ),
}


@pytest.fixture(scope="module")
def blank(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.set_content("<div id='box'></div>")
        page.add_script_tag(path=str(PLOTLY_JS))
        yield page
    finally:
        context.close()


def _draw(page, spec: dict, column: int) -> None:
    """Draw a figure's legible dict as ``ui.charts.plotly_chart`` would in a column ``column`` px
    wide: a figure that asks for more width (``layout.width``) keeps it (the page lets it scroll)."""
    spec = go.Figure(spec).to_plotly_json()  # numpy arrays as lists, for the page
    width = max(column, spec["layout"].pop("width", 0) or 0)
    page.evaluate(
        """async ([spec, width]) => {
          const box = document.getElementById('box');
          Plotly.purge(box); box.style.width = width + 'px';
          await Plotly.newPlot(box, spec.data, spec.layout, {responsive: false});
        }""",
        [{"data": spec["data"], "layout": spec["layout"]}, width],
    )


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_chart_is_legible_on_every_screen(blank, name):
    span, build = FIGURES[name]
    problems = []
    for screen, classroom, columns in SCREENS:
        _draw(blank, legible(build().to_dict(), classroom=classroom), columns[span])
        problems += [f"{screen}: {p}" for p in check_page(blank, classroom=classroom)]
    assert not problems, "\n".join(problems)
