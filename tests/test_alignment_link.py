"""The Alignment page's hover link, Python side: the lines' part (``alignment_lines_link``) names
the lines and where each token is drawn (targets, the heatmap's rows, on the right; sources, its
columns, on the left, spread over the same height), the page sends both charts' parts to the chart
component in one group and says what hovering does; without the component
(``ATLAS_PLOTLY_COMPONENT=0``) neither the options nor the hint are there. The browser side: test_browser_alignment_link.py."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from models.checkpoints import CHECKPOINTS_ENV
from tests.app_helpers import charts, open_app
from tests.requirements_env import need
from tests.tiny_seq2seq import build_tiny_checkpoints
from ui import plotly_component
from viz.alignment import ACCENT, alignment_heatmap, alignment_lines
from viz.alignment import alignment_lines_link as lines_link
from viz.hover_link import HIGHLIGHT_PX, heatmap_link

PAGE = "app_pages/alignment/alignment.py"
SENTENCE = "a black dog runs on the green grass ."
HINT = "Hover a cell of the heatmap"
SRC = ["▁a", "▁black", "▁dog", "▁runs", "</s>"]
TGT = ["▁un", "▁chien", "</s>"]


def _weights() -> np.ndarray:
    return np.random.default_rng(3).dirichlet(np.ones(len(SRC)), size=len(TGT))  # (T_out, T_src)


def test_the_lines_part_names_every_line_and_where_each_token_is() -> None:
    w = _weights()
    fig = alignment_lines(w, SRC, TGT, threshold=0.0)
    link = lines_link(fig, "g")
    assert (link.group, link.role, link.n_queries, link.n_keys) == ("g", "lines", 3, 5)
    assert (link.query_x, link.colour, link.width) == (1, ACCENT, HIGHLIGHT_PX)
    # the sources spread over rows 0..4, the three targets over the same height
    assert link.key_y == (0.0, 1.0, 2.0, 3.0, 4.0) and link.query_y == (0.0, 2.0, 4.0)
    traces = fig.data
    assert link.linked and all(traces[n].mode == "lines" for n in link.linked)
    # every line (threshold 0: all 3 x 5) is a segment from a source (x = 0) to a target (x = 1)
    pairs = set()
    for n in link.linked:
        xs, ys = list(traces[n].x), list(traces[n].y)
        assert xs == [0.0, 1.0, None] * (len(xs) // 3)
        pairs |= {
            (link.query_y.index(ys[k + 1]), link.key_y.index(ys[k])) for k in range(0, len(ys), 3)
        }
    assert pairs == {(i, j) for i in range(3) for j in range(5)}
    options = link.options()
    assert json.loads(json.dumps(options)) == options
    assert options["query_y"] == [0.0, 2.0, 4.0] and options["linked"] == list(link.linked)


def test_its_heatmap_has_the_same_queries_and_keys() -> None:
    w = _weights()
    lines = lines_link(alignment_lines(w, SRC, TGT), "g")
    heatmap = heatmap_link(alignment_heatmap(w, SRC, TGT), "g")
    assert (heatmap.n_queries, heatmap.n_keys) == (lines.n_queries, lines.n_keys) == (3, 5)


def test_a_threshold_above_every_weight_leaves_no_lines_but_the_tokens() -> None:
    link = lines_link(alignment_lines(_weights(), SRC, TGT, threshold=1.0), "g")
    assert link.linked == () and len(link.query_y) == 3 and len(link.key_y) == 5
    with pytest.raises(ValueError, match="no token columns"):
        lines_link(alignment_heatmap(_weights(), SRC, TGT), "g")


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(
        tmp_path_factory.mktemp("tiny_aln_link"), attentions=("bahdanau",)
    )


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("mode", ["translate", "reference"])
def test_the_page_links_its_heatmap_and_lines(tiny_root: Path, monkeypatch, mode: str):
    """ATLAS_PLOTLY_COMPONENT=1 under AppTest: the heatmap and the lines of one alignment share
    a group, their sizes agree, and the hint says what hovering does."""
    need(importlib.util.find_spec("atlas_plotly") is not None, "atlas-plotly: run `make setup`")
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    monkeypatch.setenv(plotly_component.ENV, "1")
    params = {"aln_text": SENTENCE, "aln_model": "bahdanau", "aln_mode": mode}
    if mode == "reference":
        params["aln_ref"] = "un chien noir court sur l' herbe verte ."
    at = open_app(PAGE, params, timeout=120)
    sent = {c.key: c for c in charts(at)}
    assert all(c.component for c in sent.values())
    prefix = "aln_main" if mode == "translate" else "aln_ref"
    heatmap = sent[f"{prefix}_heatmap"].behaviours["link"]
    lines = sent[f"{prefix}_lines"].behaviours["link"]
    assert heatmap["group"] == lines["group"] == f"{prefix}-link"
    assert (heatmap["role"], lines["role"], lines["query_x"]) == ("heatmap", "lines", 1)
    rows = len(sent[f"{prefix}_heatmap"].data[0]["z"])
    assert rows == heatmap["n_queries"] == lines["n_queries"] == len(lines["query_y"])
    assert heatmap["n_keys"] == lines["n_keys"] == len(lines["key_y"])
    assert HINT in _captions(at)
    others = [k for k in sent if k not in (f"{prefix}_heatmap", f"{prefix}_lines")]
    assert others and all("link" not in sent[k].behaviours for k in others)


def test_without_the_component_there_is_no_hint(tiny_root: Path, monkeypatch):
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    monkeypatch.setenv(plotly_component.ENV, "0")
    at = open_app(PAGE, {"aln_text": SENTENCE, "aln_model": "bahdanau"}, timeout=120)
    assert at.get("plotly_chart") and HINT not in _captions(at)
