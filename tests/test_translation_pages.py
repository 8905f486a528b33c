"""AppTest for the Alignment, Local attention and Why attention pages, plus bad input.

Most tests point the pages at tiny random-weight checkpoints (``ATLAS_CHECKPOINTS``), so they do
not depend on training progress; ``test_real_checkpoints_*`` run against the shipped ones (skipped
while a checkpoint is absent, a failure when CI=true).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from models.checkpoints import CHECKPOINTS_ENV, SHIPPED_ROOT
from models.rnn.translator import Translator
from tests.app_helpers import charts, check_path, figures
from tests.requirements_env import need
from tests.tiny_seq2seq import build_tiny_checkpoints
from ui.fit import CLASSROOM_FONT, CLASSROOM_MIN_PX
from ui.text import read_text
from ui.translation import REFERENCE_BOX, SENTENCE_BOX, local_steps_chart
from ui.translation_results import (
    alignment_result,
    compare_result,
    gradients_result,
    local_result,
    scores_result,
    why_result,
)
from viz.alignment import alignment_heatmap, alignment_lines, entropy_heatmap, token_prob_bars
from viz.local_heatmap import local_heatmap
from viz.scores import soft_addressing_figure

APP = str(Path(__file__).resolve().parents[1] / "app.py")
ALIGNMENT, LOCAL, WHY = (
    "app_pages/alignment/alignment.py",
    "app_pages/local_attention/local_attention.py",
    "app_pages/why_attention/why_attention.py",
)
SENTENCE = "a black dog runs on the green grass ."


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_checkpoints"))


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


def _run(page: str, params: dict[str, str] | None = None, first: dict | None = None) -> AppTest:
    """Run the app (home, with the ``first`` URL params, e.g. classroom), then open ``page`` with
    ``params`` in its URL, as a browser does."""
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in (first or {}).items():
        at.query_params[name] = value
    at.run()
    at.switch_page(page)  # navigating clears the URL params, as in the browser
    for name, value in (params or {}).items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _arr(value: object) -> np.ndarray:
    """A plotly JSON array (tests/app_helpers.py's reader decodes typed arrays to lists)."""
    return np.asarray(value, dtype=float)


def _figures(at: AppTest) -> dict[str, dict]:
    """Plotly figures by title (escaped title text -> figure dict)."""
    figs = figures(at)
    return {f["layout"].get("title", {}).get("text", ""): f for f in figs}


def _figure(at: AppTest, title_part: str) -> dict:
    for title, fig in _figures(at).items():
        if title_part in title:
            return fig
    raise AssertionError(f"no chart titled {title_part!r} in {list(_figures(at))}")


def _texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [w.value for w in (*at.warning, *at.info, *at.error)]
    return "\n".join(parts)


# ---------------------------------------------------------------- alignment page


def test_alignment_heatmap_axes_are_the_tokens(tiny: Path):
    at = _run(ALIGNMENT, {"aln_text": SENTENCE})
    expected = Translator.load(tiny / "seq2seq-bahdanau").translate(SENTENCE)
    fig = _figure(at, "Bahdanau")
    assert fig["layout"]["xaxis"]["ticktext"] == [html.escape(t) for t in expected.source_tokens]
    assert fig["layout"]["yaxis"]["ticktext"] == [html.escape(t) for t in expected.target_tokens]
    z = _arr(fig["data"][0]["z"])
    assert np.allclose(z, expected.weights, atol=1e-6) and np.allclose(z.sum(1), 1, atol=1e-5)
    assert _figure(at, "as lines") and _figure(at, "addressed the source")
    assert _figure(at, "What it wrote next")
    assert len(at.get("download_button")) == 2


def test_alignment_empty_text_shows_a_hint(tiny: Path):
    at = _run(ALIGNMENT, {"aln_text": "   "})
    assert any("sentence is empty: type an English" in w.value for w in at.warning)
    assert not charts(at)


@pytest.mark.parametrize("invisible", ["\u00ad", "\ufeff", "\u00ad\ufeff \u200b"])
def test_alignment_invisible_sentence_or_reference_is_a_message(tiny: Path, invisible: str):
    """Soft hyphens, byte-order marks and zero-width spaces alone: the page and the model clean
    text with one rule, so the page says the sentence is empty (no exception, no chart)."""
    at = _run(ALIGNMENT, {"aln_text": invisible})
    assert any("sentence is empty: type an English" in w.value for w in at.warning)
    assert not charts(at)
    at = _run(ALIGNMENT, {"aln_text": SENTENCE, "aln_mode": "reference", "aln_ref": invisible})
    assert "Type a French reference" in _texts(at)


def test_alignment_long_text_is_truncated_with_a_notice(tiny: Path):
    at = _run(ALIGNMENT, {"aln_text": "the dog runs . " * 200})
    assert any("2,999 characters; only the first 2,000 are used" in i.value for i in at.info)
    # the model's own cut of what it read is in the same box (two boxes, one warning
    # and one info, pushed the heatmap below a projector's first screen)
    cuts = [i.value for i in at.info if "only the first 2,000" in i.value]
    assert len(cuts) == 1 and "the model reads the first 100" in cuts[0]  # its piece limit
    assert not [w.value for w in at.warning if "the model reads the first" in w.value]
    assert _figure(at, "Bahdanau")


def test_alignment_beam_hypotheses_and_step_from_url(tiny: Path):
    at = _run(
        ALIGNMENT,
        {"aln_text": SENTENCE, "aln_beam": "4", "aln_step": "2", "aln_model": "luong-dot"},
    )
    assert at.selectbox(key="aln_model").value == "luong-dot"
    assert at.slider(key="aln_step").value == 2 and _figure(at, "Step 2:")
    hypotheses = next(t.value for t in at.table if "rank" in t.value.columns)
    assert len(hypotheses) == 4 and list(hypotheses["rank"]) == [1, 2, 3, 4]
    assert _figure(at, "Hypothesis 1")


def test_alignment_step_beyond_the_sentence_is_clamped(tiny: Path):
    at = _run(ALIGNMENT, {"aln_text": "a dog", "aln_step": "999"})
    slider = at.slider(key="aln_step")
    assert slider.value == slider.max


def test_alignment_reference_mode_highlights_low_probabilities(tiny: Path):
    ref = "un chien noir court sur l'herbe verte ."
    at = _run(ALIGNMENT, {"aln_text": SENTENCE, "aln_mode": "reference", "aln_ref": ref})
    forced = Translator.load(tiny / "seq2seq-bahdanau").force(SENTENCE, ref)
    probs = _figure(at, "How likely")
    assert np.allclose(_arr(probs["data"][0]["x"]), forced.token_probs, atol=1e-6)  # one row each
    assert probs["layout"]["yaxis"]["ticktext"] == [html.escape(t) for t in forced.target_tokens]
    colours = probs["data"][0]["marker"]["color"]
    assert len(set(colours)) >= 1 and len(colours) == len(forced.target_tokens)
    assert _figure(at, "Forced alignment")["layout"]["yaxis"]["ticktext"] == [
        html.escape(t) for t in forced.target_tokens
    ]
    assert "below p = 0.1" in _texts(at)


def test_alignment_compare_mode_difference_and_entropy(tiny: Path):
    at = _run(
        ALIGNMENT, {"aln_text": SENTENCE, "aln_mode": "compare", "aln_model_b": "luong-concat"}
    )
    diff = _figure(at, "minus")
    assert diff["data"][0]["zmid"] == 0
    # the tiny models' 34 pieces are wider than the difference's column: wrapped in blocks of
    # columns (viz.wrap), each block's heatmap holding its own columns
    z = np.concatenate([_arr(t["z"]) for t in diff["data"] if t["type"] == "heatmap"], axis=1)
    assert np.allclose(z.sum(1), 0, atol=1e-5)  # two row-stochastic matrices
    entropy = _figure(at, "Entropy")
    assert entropy["layout"]["xaxis"]["ticktext"] == ["bahdanau", "luong-concat"]
    assert _arr(entropy["data"][0]["z"]).shape == (z.shape[0], 2)
    assert "Mean entropy" in _texts(at)


def test_alignment_word_view_merges_pieces(tiny: Path):
    at = _run(ALIGNMENT, {"aln_text": SENTENCE, "aln_view": "word"})
    fig = _figure(at, "Bahdanau")
    assert fig["layout"]["xaxis"]["ticktext"][:3] == ["a", "black", "dog"]
    assert np.allclose(_arr(fig["data"][0]["z"]).sum(1), 1, atol=1e-5)


def test_alignment_word_view_carries_into_the_step_inspector(tiny: Path):
    """In the word view the step inspector says which word its step's piece belongs
    to (the model takes one step per piece); the piece view says nothing of words."""
    at = _run(ALIGNMENT, {"aln_text": SENTENCE, "aln_view": "word", "aln_step": "1"})
    notes = [c.value for c in at.caption if c.value.startswith("Word view:")]
    assert len(notes) == 1 and "Step 1 is piece " in notes[0] and " of the word “" in notes[0]
    at = _run(ALIGNMENT, {"aln_text": SENTENCE, "aln_step": "1"})
    assert not [c.value for c in at.caption if c.value.startswith("Word view:")]


def test_alignment_sentence_box_reruns_the_translation(tiny: Path):
    # The URL write-back of bound widgets happens in the browser (see test_browser_translation).
    at = _run(ALIGNMENT)
    at.text_input(key="aln_text").set_value("the cat sits").run()
    ticks = _figure(at, "Bahdanau")["layout"]["xaxis"]["ticktext"]
    assert "".join(ticks).replace("▁", "").startswith("thecatsits")


def test_alignment_user_text_is_never_raw_html(tiny: Path):
    at = _run(ALIGNMENT, {"aln_text": "<img src=x onerror=alert(1)> **bold**"})
    for md in at.markdown:
        assert not (md.proto.allow_html and "onerror" in md.value)


def test_classroom_mode_recolours_the_heatmap(tiny: Path):
    at = _run(ALIGNMENT, {"aln_text": SENTENCE}, first={"classroom": "true"})
    assert at.session_state["classroom"] is True
    fig = _figure(at, "Bahdanau")
    # classroom mode's larger type: 20 px, or less where the map is fitted to its column, never
    # under 16 px
    assert CLASSROOM_MIN_PX <= fig["layout"]["font"]["size"] <= CLASSROOM_FONT
    assert fig["data"][0]["colorscale"][0][1] != "rgb(247,251,255)"  # not the default Blues


def test_missing_checkpoint_names_the_command_and_the_app_keeps_working(tmp_path, monkeypatch):
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tmp_path))
    for page in (ALIGNMENT, LOCAL):
        at = _run(page)
        assert at.error and "not available" in at.error[0].value
        assert "python -m training.train_seq2seq --attention" in at.code[0].value
    at = _run(WHY)
    assert "python -m training.train_seq2seq --attention none" in at.code[0].value
    assert "No model has a card yet" in _texts(at)
    at = _run("app_pages/anatomy/anatomy.py")  # another page is unaffected
    assert charts(at)


# ---------------------------------------------------------------- local attention page


def test_local_page_steps_window_and_global(tiny: Path, chart_path: str):
    at = _run(LOCAL, {"loc_text": SENTENCE, "loc_model": "local-p", "loc_step": "1"})
    check_path(at, chart_path)
    tr = Translator.load(tiny / "seq2seq-local-p").translate(SENTENCE)
    steps = _figure(at, "step 1:")
    assert len(steps["frames"]) == len(tr.target_tokens)
    rect = steps["layout"]["shapes"][0]
    assert rect["x0"] == pytest.approx(tr.window[1, 0] - 0.5, abs=1e-4)
    assert steps["layout"]["updatemenus"][0]["buttons"][0]["label"] == "▶ Play"
    path = next(t for t in _figure(at, "weights and p_t")["data"] if t.get("name") == "p_t")
    assert np.allclose(_arr(path["x"]), tr.p_t, atol=1e-4)
    assert _figure(at, "luong-general (global)")
    assert "trained with **D = 3**" in _texts(at)


def test_local_page_d_changes_the_window(tiny: Path):
    at = _run(LOCAL, {"loc_text": SENTENCE, "loc_model": "local-m", "loc_D": "7"})
    assert "you are using D = 7" in _texts(at)
    assert "D = 7" in next(iter(t for t in _figures(at) if "weights and p_t" in t))
    path = next(t for t in _figure(at, "weights and p_t")["data"] if t.get("name") == "p_t")
    assert list(_arr(path["x"])[:3]) == [0, 1, 2]  # local-m: p_t = t


def test_local_page_empty_text(tiny: Path):
    at = _run(LOCAL, {"loc_text": ""})
    assert any("sentence is empty: type an English" in w.value for w in at.warning)


# ---------------------------------------------------------------- why attention page


def test_why_page_side_by_side_bleu_chart_and_gradients(tiny: Path):
    at = _run(WHY, {"why_text": SENTENCE, "why_ref": "un chien noir ."})
    assert len(at.metric) == 2 and all("BLEU" in m.label for m in at.metric)
    chart = _figure(at, "BLEU by source sentence length")
    kinds = {"none", "bahdanau", "luong-dot", "luong-general", "luong-concat", "local-m", "local-p"}
    names = {t["name"] for t in chart["data"]}
    assert names == kinds | {f"{k} (joined pairs)" for k in kinds}
    none = next(t for t in chart["data"] if t["name"] == "none")
    assert none["line"]["dash"] == "solid" and len(_arr(none["x"])) == 4  # the 4 test buckets
    joined = next(t for t in chart["data"] if t["name"] == "none (joined pairs)")
    assert list(_arr(joined["x"])) == [3, 4]  # 21-30 and 31-45 words
    grads = _figure(at, "h_T")
    assert grads["layout"]["yaxis"]["type"] == "log" and len(grads["data"]) == 1  # `none` only
    at.multiselect(key="why_encoders").select("bahdanau").run()
    assert len(_figure(at, "h_T")["data"]) == 2  # same tokenizer: one chart, two encoders


def test_why_page_without_reference_has_no_bleu(tiny: Path):
    at = _run(WHY, {"why_text": SENTENCE, "why_ref": ""})
    assert not at.metric and "Give a French reference" in _texts(at)


# ---------------------------------------------------------------- any Unicode, 200 strings


@pytest.fixture(scope="module")
def tiny_translators(tiny_root: Path) -> dict[str, Translator]:
    return {
        k: Translator.load(tiny_root / f"seq2seq-{k}")
        for k in ("none", "bahdanau", "luong-general", "local-p")
    }


def test_a_beam_out_of_range_is_the_models_message(tiny_translators: dict[str, Translator]):
    """The slider and the link check hold the beam to 1-10; past them, the model's own check
    (check_beam) answers through the guard: a message, no clamp and no exception."""
    sentence = read_text(SENTENCE_BOX, SENTENCE)
    result = alignment_result(tiny_translators["bahdanau"], sentence, beam=11)
    assert not result.ok and result.error == "Beam must be between 1 and 10, got 11"
    assert alignment_result(tiny_translators["bahdanau"], sentence, beam=10).ok


def _draw_everything(t: dict[str, Translator], raw: str) -> None:
    """What the three pages compute and draw for ``raw``, read as their boxes read it."""
    text, reference = read_text(SENTENCE_BOX, raw), read_text(REFERENCE_BOX, raw)
    res = alignment_result(t["bahdanau"], text, level="word")
    if res.ok:
        v = res.view
        alignment_heatmap(v.weights, v.source, v.target)
        alignment_lines(v.weights, v.source, v.target, threshold=0.1)
    forced = alignment_result(t["bahdanau"], text, reference=reference)
    if forced.ok:
        token_prob_bars(forced.translation.token_probs, forced.translation.target_tokens)
    compare_result(t["bahdanau"], t["luong-general"], text)
    four = scores_result(
        {"bahdanau": t["bahdanau"], "luong-general": t["luong-general"]}, "bahdanau", text
    )
    if four.ok and four.shared:
        views = four.views
        entropy_heatmap({k: v.weights for k, v in views.items()}, four.view.target)
        tr = four.translation
        soft_addressing_figure(tr.scores[0], tr.weights[0], tr.source_tokens)
    loc = local_result(t["local-p"], text, window=4)
    if loc.ok:
        tr = loc.translation
        local_steps_chart(tr)
        local_heatmap(tr.weights, tr.source_tokens, tr.target_tokens, tr.p_t, tr.window)
    why_result({"none": t["none"], "bahdanau": t["bahdanau"]}, text, reference=reference)
    gradients_result(t["none"], text)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(st.characters(codec="utf-8"), max_size=60))
def test_any_unicode_goes_through_the_pages_without_exception(tiny_translators, text):
    _draw_everything(tiny_translators, text)


# ---------------------------------------------------------------- the shipped checkpoints


def _need_real(*kinds: str) -> None:
    missing = [
        k for k in kinds if not (SHIPPED_ROOT / f"seq2seq-{k}" / "model.safetensors").is_file()
    ]
    need(
        not missing,
        f"checkpoints not built yet: {missing} (python -m training.train_seq2seq --attention NAME)",
    )


@pytest.fixture
def real(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CHECKPOINTS_ENV, raising=False)


@pytest.mark.checkpoints
def test_real_checkpoints_alignment(real):
    _need_real("bahdanau")
    at = _run(ALIGNMENT, {"aln_text": "A black dog is running on the green grass."})
    fig = _figure(at, "Bahdanau")
    x, y = fig["layout"]["xaxis"]["ticktext"], fig["layout"]["yaxis"]["ticktext"]
    z = _arr(fig["data"][0]["z"])
    row = next(i for i, tok in enumerate(y) if "chien" in tok)
    assert "dog" in x[int(z[row].argmax())]


@pytest.mark.checkpoints
def test_real_checkpoints_local(real):
    _need_real("local-p")
    at = _run(
        LOCAL, {"loc_text": "A black dog is running on the green grass.", "loc_model": "local-p"}
    )
    assert _figure(at, "step 0:")["frames"]


@pytest.mark.checkpoints
def test_real_checkpoints_why(real):
    _need_real("none", "bahdanau")
    at = _run(WHY)
    assert len(at.metric) == 2 and _figure(at, "h_T")


def test_json_download_text_serialises_numpy():
    from ui.downloads import json_text

    text = json_text({"w": np.eye(2, dtype=np.float32), "p": np.float32(0.5), "tok": "▁chien"})
    assert json.loads(text) == {"w": [[1.0, 0.0], [0.0, 1.0]], "p": 0.5, "tok": "▁chien"}
