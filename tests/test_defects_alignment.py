"""AppTests for the Alignment page's defects (a teacher's report): the step
inspector's probabilities with three decimals, an unknown model in a link, and reference mode
starting from the model's own translation.

The page reads tiny random-weight checkpoints (``ATLAS_CHECKPOINTS``), as in
``tests/test_alignment_page.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import CHECKPOINTS_ENV
from models.rnn.translator import Translator
from tests.app_helpers import figures, open_app
from tests.tiny_seq2seq import build_tiny_checkpoints

ALIGNMENT = "app_pages/alignment/alignment.py"
SENTENCE = "a black dog runs on the green grass ."
GLOBAL = ("bahdanau", "luong-dot", "luong-general", "luong-concat")
THREE_DECIMALS = re.compile(r"[01]\.[0-9]{3}")


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_defects"), attentions=GLOBAL)


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


def _figure(at: AppTest, title_part: str) -> dict:
    """The plotly chart whose title contains ``title_part``."""
    for fig in figures(at):
        if title_part in fig["layout"].get("title", {}).get("text", ""):
            return fig
    raise AssertionError(f"no chart titled {title_part!r}")


# ---------------------------------------------------------------- probabilities, three decimals


def test_reference_mode_probabilities_have_three_decimals(tiny: Path):
    """The step inspector's candidates say 0.932; the bars of the same tokens said 0.93."""
    at = open_app(
        ALIGNMENT,
        {"aln_text": SENTENCE, "aln_mode": "reference", "aln_ref": "un chien noir court ."},
    )
    for title in ("How likely the model found each of your tokens", "What it wrote next"):
        texts = _figure(at, title)["data"][0]["text"]
        assert texts and all(THREE_DECIMALS.fullmatch(t) for t in texts), (title, texts)


# ---------------------------------------------------------------- reference mode's first reference


def _own_translation(root: Path, text: str) -> str:
    """The default model's greedy translation of ``text``, through the models' own API."""
    return Translator.load(root / "seq2seq-bahdanau").translate(text).text


def test_reference_mode_starts_from_the_models_translation(tiny: Path):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "aln_mode": "reference"})
    own = _own_translation(tiny, SENTENCE)
    assert own.strip()
    assert at.text_input(key="aln_ref").value == own
    assert not any("Type a French reference" in e.value for e in at.error)
    assert _figure(at, "Forced alignment")
    assert any("model's own translation" in c.value for c in at.caption)


def test_switching_to_reference_fills_the_empty_box(tiny: Path):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE})
    at.segmented_control(key="aln_mode").set_value("reference").run()
    assert not at.exception
    assert at.text_input(key="aln_ref").value == _own_translation(tiny, SENTENCE)
    assert _figure(at, "Forced alignment")


def test_a_reference_in_the_link_is_kept(tiny: Path):
    ref = "un chien noir court ."
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "aln_mode": "reference", "aln_ref": ref})
    assert at.text_input(key="aln_ref").value == ref
    assert not any("model's own translation" in c.value for c in at.caption)
