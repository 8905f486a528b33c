"""The Why √d_k page: the pure math (models/analysis/scaling.py), the recomputation of the trained
Transformer's encoder attention from its own Q and K, and AppTests of the page (tiny random-weight
Transformers via ``ATLAS_CHECKPOINTS``), in English and in Chinese."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from models.analysis.scaling import (
    dot_sample,
    encoder_scores,
    entropy,
    jacobian_norm,
    row_entropy,
    saturation,
    softmax,
)
from models.checkpoints import CHECKPOINTS_ENV
from models.transformer.translator import TransformerTranslator
from tests.app_helpers import charts, check_path, figures
from tests.browser_helpers import english_left
from tests.test_i18n_app import _app, _open
from tests.tiny_transformer import build_tiny_transformers

PAGE = "app_pages/scaling/scaling.py"
SENTENCE = "a black dog runs on the green grass ."


@pytest.mark.parametrize("d_k", [4, 16, 64, 256, 512])
def test_variance_tracks_d_k(d_k: int) -> None:
    sample = dot_sample(d_k, n=2000)
    assert sample.raw.shape == sample.scaled.shape == (2000,)
    assert sample.raw.dtype == np.float64
    assert abs(sample.raw_var / d_k - 1) < 0.10
    assert abs(sample.scaled_var - 1) < 0.10
    assert np.allclose(sample.scaled, sample.raw / math.sqrt(d_k))


def test_dot_sample_is_seeded_and_refuses_bad_sizes() -> None:
    assert np.array_equal(dot_sample(8).raw, dot_sample(8).raw)
    with pytest.raises(ValueError):
        dot_sample(0)


def test_softmax_entropy_and_jacobian() -> None:
    p = softmax(np.array([[0.0, 0.0, 0.0, 0.0], [1000.0, 0.0, 0.0, 0.0]]))
    assert np.allclose(p.sum(-1), 1)
    assert np.allclose(entropy(p), [2.0, 0.0])
    jac = np.diag(p[0]) - np.outer(p[0], p[0])
    assert np.isclose(jacobian_norm(p)[0], np.linalg.norm(jac))
    assert np.isclose(jacobian_norm(p)[1], 0.0)


def test_unscaled_softmax_saturates_and_scaled_does_not() -> None:
    sat = saturation((4, 64, 512))
    assert np.all(np.diff(sat.raw_max_weight) > 0)
    assert np.all(np.diff(sat.raw_entropy) < 0)
    assert np.all(np.diff(sat.raw_grad_norm) < 0)
    assert sat.raw_max_weight[-1] > 0.9 and sat.raw_grad_norm[-1] < 0.1
    assert np.ptp(sat.scaled_max_weight) < 0.05 and np.ptp(sat.scaled_grad_norm) < 0.03


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_transformers(tmp_path_factory.mktemp("tiny_sdk"))


def test_recomputed_scores_reproduce_the_model(tiny_root: Path) -> None:
    translator = TransformerTranslator.load(tiny_root / "transformer-sinusoidal")
    src = translator._source(SENTENCE).src
    found = encoder_scores(translator.model, src)
    n_layers, n_heads = len(translator.model.encoder), translator.model.cfg.n_heads
    assert found.scores.shape == (n_layers, n_heads, src.shape[1], src.shape[1])
    recomputed = softmax(found.scores / math.sqrt(found.d_k))
    assert np.allclose(recomputed, found.weights, atol=1e-5)
    expected = translator.translate(SENTENCE).encoder_self
    assert np.allclose(found.weights, expected, atol=1e-5)  # the model's outputs are unchanged
    assert row_entropy(found.scores, found.d_k, scaled=True).shape == (n_layers, n_heads)
    with pytest.raises(ValueError):
        encoder_scores(translator.model, torch.zeros(3, dtype=torch.long))


def _figures(at) -> list[dict]:
    return figures(at)


def test_page_default(tiny: Path, chart_path: str) -> None:
    at = _open(_app({}), PAGE, {})
    check_path(at, chart_path)
    assert at.title[0].value == "Why √d_k"
    assert len(charts(at)) == 8
    assert any("softmax" in latex.value for latex in at.latex)
    table = at.table[0].value
    assert list(table["d_k"]) == [4, 64, 512]


def test_page_typed_sentence_and_dims(tiny: Path) -> None:
    params = {"sdk_text": SENTENCE, "sdk_dims": "16"}
    at = _open(_app({}), PAGE, params)
    assert list(at.table[0].value["d_k"]) == [16]
    assert len(charts(at)) == 8
    assert at.text_input(key="sdk_text").value == SENTENCE


@pytest.mark.parametrize(
    "params",
    [
        {"sdk_dims": "7"},
        {"sdk_dims": "Infinity"},
        {"sdk_text": ""},
        {"sdk_text": "🐶" * 300 + " \u202e\u0000 漢字 <b>bold</b> $x$ `code`"},
        {"sdk_text": "x" * 5000},
    ],
)
def test_page_bad_url_values(tiny: Path, params: dict[str, str]) -> None:
    at = _open(_app({}), PAGE, params)
    assert len(charts(at)) >= 5
    if params.get("sdk_text") == "":
        assert any("empty" in w.value for w in at.warning)


def test_page_missing_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tmp_path))
    at = _open(_app({}), PAGE, {})
    assert len(charts(at)) == 5
    assert any("train_transformer" in c.value for c in at.code)


def test_page_in_chinese(tiny: Path) -> None:
    at = _open(_app({"lang": "zh"}), PAGE, {"lang": "zh", "sdk_text": SENTENCE})
    assert at.title[0].value == "为什么除以 √d_k"
    headers = [s.value for s in at.subheader]
    assert headers[0] == "q·k 的方差随 d_k 增大"
    texts = headers + [c.value for c in at.caption] + [at.main.markdown[0].value]
    texts += [f["layout"]["title"]["text"] for f in _figures(at)]
    texts = [t.replace("d_k", " ").replace("softmax", " ") for t in texts]
    assert not english_left(texts, {"QKᵀ", "Vaswani", "Transformer"}), english_left(texts)
    assert at.text_input(key="sdk_text").value == SENTENCE
