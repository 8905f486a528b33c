"""AppTests for the Alignment page's defects of issue 30 (a teacher's report): the step
inspector's probabilities with three decimals, an unknown model in a link, and reference mode
starting from the model's own translation.

The page reads tiny random-weight checkpoints (``ATLAS_CHECKPOINTS``), as in
``tests/test_alignment_page.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import CHECKPOINTS_ENV
from tests.app_helpers import open_app
from tests.tiny_seq2seq import build_tiny_checkpoints

ALIGNMENT = "app_pages/alignment.py"
SENTENCE = "a black dog runs on the green grass ."
GLOBAL = ("bahdanau", "luong-dot", "luong-general", "luong-concat")
THREE_DECIMALS = re.compile(r"[01]\.[0-9]{3}")


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_defects"), kinds=GLOBAL)


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


def _figure(at: AppTest, title_part: str) -> dict:
    """The plotly chart whose title contains ``title_part``."""
    for chart in at.get("plotly_chart"):
        fig = json.loads(chart.proto.spec)
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
