"""AppTest for the Multi-head attention page (tiny random-weight Transformers via
``ATLAS_CHECKPOINTS``, the real pretrained encoder), its pure view functions, and bad input."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.analysis.aggregate import GROUPS
from models.checkpoints import CHECKPOINTS_ENV
from models.transformer.pretrained import PretrainedEncoder
from models.transformer.translator import TransformerTranslator
from tests.app_helpers import charts, check_path, open_app
from tests.tiny_transformer import build_tiny_transformers
from ui.multi_head import hide_groups, transformer_view
from viz.multi_head import ZWSP, grid_tiles, head_grid, head_heatmap, pool_blocks
from viz.multi_head_lines import head_lines

PAGE = "app_pages/multi_head/multi_head.py"
SENTENCE = "a black dog runs on the green grass ."


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_transformers(tmp_path_factory.mktemp("tiny_mh"))


def _run(params: dict[str, str]) -> AppTest:
    return open_app(PAGE, params, timeout=180)


def _texts(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.info, *at.warning, *at.error, *at.markdown])


@pytest.mark.parametrize("attention", ["encoder", "decoder", "cross"])
def test_transformer_kinds(tiny: Path, attention: str) -> None:
    at = _run({"mh_model": "transformer", "mh_kind": attention, "mh_text": SENTENCE})
    assert len(charts(at)) >= 4
    assert "Translation:" in _texts(at)


def test_pretrained_encoder(tiny: Path) -> None:
    at = _run({"mh_model": "pretrained", "mh_text": SENTENCE, "mh_layer": "6", "mh_head": "12"})
    assert len(charts(at)) >= 4
    assert at.selectbox(key="mh_layer").value == 6


def test_classroom_mode_puts_the_model_in_a_list_and_the_rest_in_settings(tiny: Path) -> None:
    """At a projector the sentence and the model share one row (the model as a list:
    its two long buttons were cut there), the checkpoint, attention and beam in the Settings popover."""
    at = open_app(PAGE, {"mh_text": SENTENCE}, {"classroom": True}, timeout=180)
    assert at.selectbox(key="mh_model").value == "transformer"
    assert at.selectbox(key="mh_pos") and at.slider(key="mh_beam").value == 1
    assert "mh_model" not in [group.key for group in at.get("button_group")]  # not two buttons
    at.selectbox(key="mh_model").set_value("pretrained").run(timeout=180)
    assert not at.exception
    assert at.selectbox(key="mh_hf").value and len(charts(at)) >= 4


def test_missing_transformer_names_the_command(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tmp_path))
    at = _run({"mh_model": "transformer", "mh_text": SENTENCE})
    assert "not available" in _texts(at)
    assert any("train_transformer --positional" in c.value for c in at.code)


@pytest.mark.parametrize(
    "text", ["", "   ", "x" * 5000, "🐶" * 300 + " \u202e\u0000 漢字 <b>bold</b> $x$ `code`"]
)
def test_bad_input(tiny: Path, text: str) -> None:
    for model in ("transformer", "pretrained"):
        at = _run({"mh_model": model, "mh_text": text})
        if not text.strip():
            assert "empty" in _texts(at)


@pytest.mark.parametrize("invisible", ["\u200b", "\u200b\u200b \ufeff\u00ad"])
def test_transformer_mode_invisible_sentence_is_a_message(tiny: Path, invisible: str) -> None:
    """?mh_model=transformer&mh_text=%E2%80%8B: a message that the sentence is empty, not the
    model's exception (the page and the tokenizer clean text with one rule)."""
    at = _run({"mh_model": "transformer", "mh_text": invisible})
    assert "empty" in _texts(at)
    assert not charts(at)


def test_long_text_is_cut_with_a_notice(tiny: Path) -> None:
    at = _run({"mh_model": "pretrained", "mh_text": "word " * 700})
    assert "cut to the first 512" in _texts(at)


def test_hide_special_tokens(tiny_root: Path) -> None:
    result = TransformerTranslator.load(tiny_root / "transformer-sinusoidal").translate(SENTENCE)
    view = transformer_view(result, "encoder")
    hidden = hide_groups(view, [GROUPS[1], GROUPS[2]])
    assert "</s>" not in hidden.key_tokens and "▁." not in hidden.key_tokens
    assert hidden.weights.shape[2] == hidden.weights.shape[3] == len(hidden.key_tokens)
    np.testing.assert_allclose(hidden.weights.sum(-1), 1.0, atol=1e-5)
    cross = hide_groups(transformer_view(result, "cross"), [GROUPS[1]])
    assert cross.weights.shape[2] == len(result.target_tokens)  # query rows kept for cross


def test_head_heatmap_labels_and_hover() -> None:
    fig = head_heatmap(np.eye(3), ["a", "<b>", "a"], ["x", "y", "z"])
    trace = fig.data[0]
    assert list(trace.x) == ["a", "&lt;b&gt;", "a" + ZWSP]  # repeats distinct, HTML escaped
    assert "query: %{y}" in trace.hovertemplate and "key: %{x}" in trace.hovertemplate
    with pytest.raises(ValueError, match="4 labels for 3"):
        head_heatmap(np.eye(3), ["a", "b", "c", "d"], ["x", "y", "z"])


def test_head_grid_tiles_every_panel_into_one_heatmap_and_pools_large_inputs() -> None:
    w = np.random.default_rng(0).random((6, 12, 130, 130)).astype(np.float32)
    fig = head_grid(w, selected=(1, 2))
    (heatmap,) = fig.data  # one trace: no click markers over the panels
    side, gap = 44, 2  # 130 -> blocks of 3 -> 44 cells a side; 5 % gap between the panels
    assert heatmap.z.shape == (6 * (side + gap) - gap, 12 * (side + gap) - gap)
    assert "a 3 x 3 block, keys summed" in fig.layout.annotations[0].text  # the title
    # panel (layer 1, head 2) is that head pooled (keys summed, queries averaged); gaps empty
    r, c = 1 * (side + gap), 2 * (side + gap)
    assert np.allclose(heatmap.z[r, c], w[1, 2, :3, :3].sum() / 3)
    assert np.isnan(heatmap.z[r - 1, c]) and np.isnan(heatmap.z[r, c - 1])
    assert heatmap.y[r] == "layer 2, query #0-2" and heatmap.x[c + 1] == "head 3, key #3-5"
    assert len(fig.layout.shapes) == 1  # the chosen head is framed
    # a click on any cell of a panel names it (grid_tiles: where the panels lie in the heatmap)
    tiles = grid_tiles(w.shape)
    assert (tiles.side_q, tiles.side_k, tiles.gap) == (side, side, gap)
    assert tiles.panel_at(r, c) == (1, 2) and tiles.panel_at(r + side - 1, c + side - 1) == (1, 2)
    assert tiles.panel_at(r - 1, c) is None and tiles.panel_at(r, c + side) is None  # gaps
    assert tiles.panel_at(*heatmap.z.shape) is None and tiles.panel_at(-1, 0) is None
    assert tiles.panel_at(heatmap.z.shape[0] - 1, heatmap.z.shape[1] - 1) == (5, 11)
    small = head_grid(w[:, :, :12, :12])
    assert small.data[0].z.shape == (6 * 13 - 1, 12 * 13 - 1)  # no pooling; a 1-cell gap
    assert small.data[0].x[0] == "head 1, key #0"
    pooled, k = pool_blocks(np.ones((2, 5)), 2)  # keys summed (3 and 2), queries averaged
    assert k == 3 and pooled.shape == (1, 2) and np.allclose(pooled, [[3.0, 2.0]])
    m = np.random.default_rng(1).random((2, 3, 11, 7)).astype(np.float32)  # ragged last blocks
    pooled, k = pool_blocks(m, 4)
    assert k == 3 and pooled.shape == (2, 3, 4, 3)
    assert np.isclose(pooled[1, 2, 3, 2], m[1, 2, 9:, 6:].sum() / 2)  # a 2 x 1 corner block
    assert np.isclose(pooled[0, 1, 1, 0], m[0, 1, 3:6, 0:3].sum() / 3)
    # a pooled row's sum is its queries' mean row sum: softmax rows still sum to 1
    row_sums = m.sum(-1)  # (2, 3, 11)
    assert np.allclose(pooled[..., 1, :].sum(-1), row_sums[..., 3:6].mean(-1), atol=1e-5)


def test_the_overview_of_a_long_sentence_keeps_its_contrast() -> None:
    """At 300+ MiniLM pieces the overview (then means of 5 x 5 blocks on a 0-1 scale)
    was almost white. The measure: each non-gap cell's place on the colour axis, z / cmax clipped
    to [0, 1]; its standard deviation over all panels, and the share of cells at a tenth of the
    axis or more (visibly coloured). Measured before (block means, axis 0-1): 0.010 and 0.3 %;
    with keys summed and the axis up to the 99th percentile: 0.13 and 10 %."""
    from models.transformer.pretrained import PretrainedEncoder

    encoder = PretrainedEncoder.load()
    sentence = "The old fisherman and his grandson walked along the quiet beach at sunrise. "
    attention = encoder.attend(sentence * 24)
    assert len(attention.tokens) >= 300
    fig = head_grid(attention.attentions, title="overview")
    z = np.asarray(fig.data[0].z, dtype=float)
    cells = z[np.isfinite(z)] / fig.layout.coloraxis.cmax
    place = np.clip(cells, 0.0, 1.0)
    assert place.std() >= 0.08 and (place >= 0.1).mean() >= 0.05, (
        place.std(),
        (place >= 0.1).mean(),
    )
    assert "99th percentile" in fig.layout.annotations[0].text


def test_head_lines_only_chosen_token_and_heads() -> None:
    w = np.zeros((3, 4, 4))
    w[:, np.arange(4), np.arange(4)] = 1.0
    fig = head_lines(w, list("abcd"), list("abcd"), heads=[0, 2], token=1)
    lines = [t for t in fig.data if t.mode == "lines" and t.x[0] is not None]
    assert {t.name for t in lines} == {"head 1", "head 3"}
    assert all(list(t.y) == [1, 1, None] for t in lines)


# ---------------------------------------------------------------- equations and one head's steps


def _chart(at: AppTest, key: str) -> dict:
    """The figure of the chart with Streamlit key ``key``."""
    found = [c for c in charts(at) if c.key == key]
    assert found, [c.key for c in charts(at)]
    return found[0].figure


def _array(value: object) -> np.ndarray:
    """A plotly JSON array (tests/app_helpers.py's reader decodes typed arrays to lists)."""
    return np.asarray(value, dtype=float)


def title_of(figure: dict) -> str:
    """A figure's title: layout.title, or the annotation named "title" (viz.head_steps)."""
    title = (figure["layout"].get("title") or {}).get("text")
    named = [a["text"] for a in figure["layout"].get("annotations", []) if a.get("name") == "title"]
    return title or (named[0] if named else "")


def _labels(values: list[str]) -> list[str]:
    """Axis categories as the tokens they show (HTML unescaped, zero-width spaces removed)."""
    return [html.unescape(v).replace(ZWSP, "") for v in values]


def _annotations(figure: dict) -> list[str]:
    return [a["text"] for a in figure["layout"].get("annotations", [])]


def test_equations_with_the_models_numbers_and_the_masked_heads_steps(
    tiny: Path, chart_path: str
) -> None:
    params = {"mh_model": "transformer", "mh_kind": "decoder", "mh_text": SENTENCE}
    at = _run(params | {"mh_layer": "2", "mh_head": "3"})
    check_path(at, chart_path)
    latex = " ".join(e.value for e in at.latex)
    assert r"\mathrm{softmax}" in latex and r"\mathrm{MultiHead}" in latex
    assert r"\mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)" in latex
    assert r"\mathrm{head}_i = \mathrm{Attention}(Q W_i^Q, K W_i^K, V W_i^V)" in latex
    assert "M_{ts}" in latex and r"-\infty" in latex  # the decoder's mask
    assert "h = 4" in latex and r"\mathbb{R}^{16 \times 4}" in latex  # the tiny model's numbers
    assert r"\mathrm{head}_{3}" in latex and r"\sqrt{4}" in latex  # the chosen head
    assert "Layer 2, head 3: its computation step by step" in [s.value for s in at.subheader]
    steps = _chart(at, "mh_steps")
    assert title_of(steps).startswith("decoder self-attention (masked), layer 2, head 3")
    assert "rows: queries, the tokens that attend" in title_of(steps)
    assert [a.split(":")[0] for a in _annotations(steps)[:4]] == [
        "1. Q·Kᵀ",
        "2. ÷ √d_k = ÷ 2.00",
        "3. + M",
        "4. softmax of each row",
    ]
    translator = TransformerTranslator.load(tiny / "transformer-sinusoidal")
    result = translator.translate(SENTENCE)
    tokens = result.decoder_input_tokens
    masked, weights = _array(steps["data"][2]["z"]), _array(steps["data"][3]["z"])
    T = len(tokens)
    assert masked.size == weights.size == T * T
    masked, weights = masked.reshape(T, T), weights.reshape(T, T)
    later = np.triu(np.ones((T, T), dtype=bool), k=1)
    assert np.isnan(masked[later]).all() and not np.isnan(masked[~later]).any()
    np.testing.assert_allclose(weights, result.decoder_self[1, 2], atol=1e-6)
    assert _labels(steps["data"][0]["x"]) == tokens
    values = _chart(at, "mh_steps_v")
    assert (
        _annotations(values)[0].startswith("5a. V") and "head 3's output" in _annotations(values)[1]
    )


def test_cross_attention_steps_say_which_side_is_which(tiny: Path) -> None:
    at = _run({"mh_model": "transformer", "mh_kind": "cross", "mh_text": SENTENCE})
    steps = _chart(at, "mh_steps")
    assert "rows: queries, the French pieces that attend (decoder)" in title_of(steps)
    assert "columns: keys, the English pieces attended to (encoder)" in title_of(steps)
    axes = steps["layout"]
    assert axes["yaxis"]["title"]["text"] == "query (French)"
    assert axes["xaxis"]["title"]["text"] == "key (English)"
    assert len(_annotations(steps)) == 4  # three steps (no mask) and the title
    latex = " ".join(e.value for e in at.latex)
    assert "(Y W_{1}^Q)(H W_{1}^K)" in latex


def test_typed_text_moves_the_pretrained_heads_steps_and_its_window(tiny: Path) -> None:
    at = _run({"mh_model": "pretrained", "mh_text": SENTENCE, "mh_layer": "4", "mh_head": "7"})
    typed = "the old fisherman and his young grandson walked slowly along the quiet beach"
    at.text_input(key="mh_text").input(typed).run()
    assert not at.exception
    tokens = PretrainedEncoder.load().attend(typed).tokens  # 15 pieces: a window of 12 rows
    assert len(tokens) == 15
    steps = _chart(at, "mh_steps")
    assert _labels(steps["data"][0]["x"]) == tokens
    assert _labels(steps["data"][0]["y"]) == tokens[:12]
    assert "all-MiniLM-L6-v2 self-attention, layer 4, head 7" in title_of(steps)
    at.slider(key="mh_q0").set_value(3).run()  # rows from the 3rd query (of 1..4)
    steps = _chart(at, "mh_steps")
    assert _labels(steps["data"][0]["y"]) == tokens[2:14]
    latex = " ".join(e.value for e in at.latex)
    assert "h = 12" in latex and r"\mathbb{R}^{384 \times 32}" in latex
    assert any("agrees with the weights the model returned" in c.value for c in at.caption)
