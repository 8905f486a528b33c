"""AppTest for the Alignment page's lesson and its honesty about its input:
each model's formulas, the step inspector's three stages with their numbers, the four-scores mode
on one shared translation, and the warning next to a translation of text that is not English.

The page reads tiny random-weight checkpoints (``ATLAS_CHECKPOINTS``); the expected numbers come
from the same checkpoints through the models' own API.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app_pages.alignment.formulas import FORMULAS
from app_pages.alignment.four_scores import pair_id
from models.checkpoints import CHECKPOINTS_ENV
from models.rnn.results import Result, tokens_view
from models.rnn.translator import Translator
from models.sentence import Sentence
from tests.app_helpers import charts, check_path, figures, open_app
from tests.tiny_seq2seq import build_tiny_checkpoints

ALIGNMENT = "app_pages/alignment/alignment.py"
SENTENCE = "a black dog runs on the green grass ."
GLOBAL = ("bahdanau", "luong-dot", "luong-general", "luong-concat")


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_alignment"), attentions=GLOBAL)


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


def _arr(value: object) -> np.ndarray:
    """A plotly JSON array (tests/app_helpers.py's reader decodes typed arrays to lists)."""
    return np.asarray(value, dtype=float)


def _figures(at: AppTest) -> list[dict]:
    return figures(at)


def _figure(at: AppTest, title_part: str) -> dict:
    for fig in _figures(at):
        if title_part in fig["layout"].get("title", {}).get("text", ""):
            return fig
    raise AssertionError(f"no chart titled {title_part!r}")


def _latex(at: AppTest) -> list[str]:
    """The formulas shown with st.latex, without the $$ around them."""
    return [x.value.strip().removeprefix("$$").removesuffix("$$").strip() for x in at.latex]


def _load(root: Path, kind: str) -> Translator:
    return Translator.load(root / f"seq2seq-{kind}")


# ---------------------------------------------------------------- formulas


@pytest.mark.parametrize("kind", GLOBAL)
def test_the_active_models_formulas_beside_the_heatmap(tiny: Path, kind: str):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "aln_model": kind})
    shown = _latex(at)
    assert shown[:3] == list(FORMULAS[kind])  # score, softmax, weighted sum
    if kind == "bahdanau":
        assert "s_{i-1}" in shown[0] and "U_a h_j" in shown[0]
    else:
        assert r"\operatorname{score}(h_t, \bar h_s)" in shown[0]
    assert r"\sum" in shown[2] and "c_" in shown[2]
    notes = " ".join(c.value for c in at.caption)
    assert ("previous state" in notes) is (kind == "bahdanau")
    assert ("W_1 h_t + W_2" in notes) is (kind == "luong-concat")


def test_each_score_formula_differs():
    scores = [FORMULAS[kind][0] for kind in GLOBAL]
    assert len(set(scores)) == 4
    assert r"h_t^{\top} \bar h_s" in FORMULAS["luong-dot"][0]
    assert r"h_t^{\top} W_a \bar h_s" in FORMULAS["luong-general"][0]
    assert r"[h_t; \bar h_s]" in FORMULAS["luong-concat"][0]


# ---------------------------------------------------------------- the step inspector


def test_step_inspector_shows_scores_weights_and_context(tiny: Path, chart_path: str):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "aln_model": "luong-general", "aln_step": "2"})
    check_path(at, chart_path)
    tr = _load(tiny, "luong-general").translate(SENTENCE)
    fig = _figure(at, "Step 2:")
    scores, weights = fig["data"]
    assert np.allclose(_arr(scores["y"]), tr.scores[2], atol=1e-4)
    assert np.allclose(_arr(weights["y"]), tr.weights[2], atol=1e-5)
    rows = at.table[0].value  # the tokens with the largest weights, with e and alpha
    top = int(np.argmax(tr.weights[2]))
    first = rows.iloc[0]
    assert int(first.iloc[0]) == top and first.iloc[1] == tr.source_tokens[top]
    assert float(first.iloc[2]) == pytest.approx(tr.scores[2, top], abs=1e-3)
    assert float(first.iloc[3]) == pytest.approx(tr.weights[2, top], abs=1e-3)
    latex = " ".join(_latex(at))
    assert f"{tr.weights[2, top]:.3f}" in latex  # alpha worked out from the scores
    assert f"{np.linalg.norm(tr.contexts[2]):.2f}" in latex  # ||c||
    assert f"{tr.contexts[2][0]:.2f}" in latex  # the context's first unit
    next_fig = _figure(at, "What it wrote next")
    assert np.allclose(_arr(next_fig["data"][0]["x"]), [p for __, p in tr.top_k[2]], atol=1e-6)


# ---------------------------------------------------------------- four scores


def test_four_scores_share_one_translation(tiny: Path):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "aln_mode": "four"})
    target = _load(tiny, "bahdanau").translate(SENTENCE).text
    forced = {k: _load(tiny, k).force(SENTENCE, target) for k in GLOBAL}
    maps = {k: _figure(at, label) for k, label in zip(GLOBAL, _labels(), strict=True)}
    for kind, fig in maps.items():
        assert np.allclose(_arr(fig["data"][0]["z"]), forced[kind].weights, atol=1e-5)
        assert fig["layout"]["yaxis"]["ticktext"] == maps["bahdanau"]["layout"]["yaxis"]["ticktext"]
        assert fig["data"][0]["zmax"] == 1.0  # one colour scale
    assert _latex(at) == [FORMULAS[k][0] for k in GLOBAL]
    diff = _figure(at, "luong-dot minus bahdanau")
    expected = forced["luong-dot"].weights - forced["bahdanau"].weights
    assert np.allclose(_arr(diff["data"][0]["z"]), expected, atol=1e-5)
    entropy = _figure(at, "Entropy")
    assert entropy["layout"]["xaxis"]["ticktext"] == list(GLOBAL)
    assert _arr(entropy["data"][0]["z"]).shape == (len(forced["bahdanau"].target_tokens), 4)
    assert at.selectbox(key="aln_pair").value == pair_id("bahdanau", "luong-dot")


def _labels() -> list[str]:
    return ["Bahdanau (additive)", "Luong global · dot", "Luong global · general", "concat"]


def test_four_scores_pair_from_the_url_and_the_widget(tiny: Path):
    pair = pair_id("luong-dot", "luong-concat")
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "aln_mode": "four", "aln_pair": pair})
    assert _figure(at, "luong-concat minus luong-dot")
    at.selectbox(key="aln_pair").select(pair_id("luong-general", "luong-concat")).run()
    assert _figure(at, "luong-concat minus luong-general")


def test_four_scores_with_another_reference_model_and_the_word_view(tiny: Path):
    params = {"aln_text": SENTENCE, "aln_mode": "four", "aln_model": "luong-dot"}
    at = open_app(ALIGNMENT, params | {"aln_view": "word"})
    target = _load(tiny, "luong-dot").translate(SENTENCE).text
    assert "luong-dot model's greedy output" in " ".join(c.value for c in at.caption)
    forced = _load(tiny, "bahdanau").force(SENTENCE, target)
    words = tokens_view(forced.source_tokens, forced.target_tokens, forced.weights, "word")
    z = _arr(_figure(at, "Bahdanau")["data"][0]["z"])
    assert np.allclose(z, words.weights, atol=1e-5) and np.allclose(z.sum(1), 1, atol=1e-5)


def test_four_scores_empty_sentence_is_a_hint(tiny: Path):
    at = open_app(ALIGNMENT, {"aln_text": "  ", "aln_mode": "four"})
    assert any("sentence is empty: type an English" in w.value for w in at.warning)
    assert not charts(at)


# ---------------------------------------------------------------- text that is not English


@pytest.mark.parametrize("mode", ["translate", "compare", "four"])
def test_chinese_text_gets_a_warning_next_to_the_translation(tiny: Path, mode: str):
    """Text in another script (注意力机制很重要) gets a warning beside its translation, so the
    page does not show confident French without a word."""
    at = open_app(ALIGNMENT, {"aln_text": "注意力机制很重要", "aln_mode": mode})
    assert any("not in the Latin alphabet" in w.value for w in at.warning)


def _warning_script(text: str, model_file: str) -> None:
    from types import SimpleNamespace

    from models.rnn.results import Result
    from models.sentence import Sentence
    from models.tokenizer import SubwordTokenizer
    from ui.translation import unfamiliar_input_ui

    config = SimpleNamespace(cfg=SimpleNamespace(max_src_len=100))  # a translator without a card
    fake = SimpleNamespace(src_tok=SubwordTokenizer(model_file), name="no-card", model=config)
    pieces = SimpleNamespace(
        n_source_pieces=len(fake.src_tok.encode(text))
    )  # what the model counts
    unfamiliar_input_ui(Result(Sentence(text), pieces), fake)


def _read_by(fake: SimpleNamespace, text: str) -> Result:
    """``text`` as a translation page holds it: the box's Sentence and the model's piece count."""
    pieces = SimpleNamespace(n_source_pieces=len(fake.src_tok.encode(text)))
    return Result(Sentence(text), pieces)


@pytest.fixture(scope="module")
def words_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tokenizer that holds common English words whole (the tiny ones are nearly all bytes)."""
    from tests.helpers_seq2seq import EN
    from training.tokenizer import train_tokenizer

    return str(train_tokenizer(EN * 20, tmp_path_factory.mktemp("words") / "src", 400).model_file)


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ("a black dog runs on the green grass .", None),
        ("Der Hund läuft über die Wiese", "6 of 6 words are not in the model's English vocabulary"),
        ("注意力机制很重要", "not in the Latin alphabet"),
    ],
)
def test_unfamiliar_input_warning(words_model: str, text: str, warning: str | None):
    at = AppTest.from_function(_warning_script, args=(text, words_model)).run()
    assert not at.exception
    if warning is None:
        assert not at.warning
    else:
        assert warning in at.warning[0].value


def test_the_helper_reports_what_it_showed(words_model: str):
    from models.tokenizer import SubwordTokenizer
    from ui.translation import unfamiliar_input_ui

    config = SimpleNamespace(cfg=SimpleNamespace(max_src_len=100))  # a translator without a card
    fake = SimpleNamespace(src_tok=SubwordTokenizer(words_model), name="no-card", model=config)
    assert unfamiliar_input_ui(_read_by(fake, "a black dog"), fake) is False
    assert unfamiliar_input_ui(_read_by(fake, "Собака бежит"), fake) is True
