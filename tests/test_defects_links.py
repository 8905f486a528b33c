"""AppTests for a defect: a link naming a model the page does not offer
(``?aln_model=foo``, ``?loc_model=foo``, ...) gets a notice that says so, and the page shows its
default model, as it does for the other bad values of a link (ui.url_state)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import CHECKPOINTS_ENV
from tests.app_helpers import charts, open_app
from tests.tiny_seq2seq import build_tiny_checkpoints
from tests.tiny_transformer import build_tiny_transformers

SENTENCE = "a black dog runs on the green grass ."
UNKNOWN = "foo"
ATTENTIONS = ("bahdanau", "luong-dot", "luong-general", "luong-concat", "local-p", "local-m")


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_links"), attentions=ATTENTIONS)
    return build_tiny_transformers(root)


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


def _notice(at: AppTest, name: str) -> str:
    """The one info box about the link's model ``name``."""
    notes = [i.value for i in at.info if f"**{name}**" in i.value]
    assert len(notes) == 1, [i.value for i in at.info]
    assert UNKNOWN not in notes[0]  # the link's own text is not repeated
    return notes[0]


def test_alignment_unknown_model(tiny: Path):
    at = open_app("app_pages/alignment/alignment.py", {"aln_text": SENTENCE, "aln_model": UNKNOWN})
    assert "uses bahdanau" in _notice(at, "aln_model")
    assert at.selectbox(key="aln_model").value == "bahdanau"
    assert at.query_params.get("aln_model") != [UNKNOWN]
    assert charts(at)  # the default model's alignment is drawn


def test_alignment_unknown_second_model(tiny: Path):
    params = {"aln_text": SENTENCE, "aln_mode": "compare", "aln_model_b": UNKNOWN}
    at = open_app("app_pages/alignment/alignment.py", params)
    assert "uses luong-dot" in _notice(at, "aln_model_b")
    assert at.selectbox(key="aln_model_b").value == "luong-dot"


def test_local_unknown_model(tiny: Path):
    at = open_app(
        "app_pages/local_attention/local_attention.py", {"loc_text": SENTENCE, "loc_model": UNKNOWN}
    )
    assert "uses local-p" in _notice(at, "loc_model")
    assert at.selectbox(key="loc_model").value == "local-p"
    assert charts(at)


@pytest.mark.parametrize(
    ("name", "default"), [("mh_model", "transformer"), ("mh_pos", "sinusoidal")]
)
def test_multi_head_unknown_model(tiny: Path, name: str, default: str):
    at = open_app(
        "app_pages/multi_head/multi_head.py", {"mh_text": SENTENCE, name: UNKNOWN}, timeout=180
    )
    assert f"uses {default}" in _notice(at, name)
    assert charts(at)


def test_a_known_model_gets_no_notice(tiny: Path):
    at = open_app(
        "app_pages/alignment/alignment.py", {"aln_text": SENTENCE, "aln_model": "luong-dot"}
    )
    assert not [i.value for i in at.info if "does not offer" in i.value]
    assert at.selectbox(key="aln_model").value == "luong-dot"
