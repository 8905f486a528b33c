"""The Why attention page's first example (chosen by a stated rule) and its French
reference, which always belongs to the sentence in the box (pick the long example, then
type "Dog", and BLEU was still computed against the example's French).

AppTest with tiny random-weight translators (``ATLAS_CHECKPOINTS``); the check that the committed
choice is what the rule gives on the shipped models and the Multi30k test set needs both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_pages.why_attention.example import (
    EXAMPLE_FILE,
    FALLBACK,
    first_example,
    parse_example,
    rule_text,
)
from models.checkpoints import CHECKPOINTS_ENV, SHIPPED_ROOT
from tests.app_helpers import check_path, figures, open_app
from tests.requirements_env import need
from tests.tiny_seq2seq import build_tiny_checkpoints
from training.choose_why_example import Candidate, median_index
from ui.translation import EXAMPLE_PAIRS, EXAMPLES

WHY = "app_pages/why_attention/why_attention.py"
LONG = EXAMPLES[-1]  # the shared examples' long one, with its reference


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(
        tmp_path_factory.mktemp("tiny_why"), attentions=("none", "bahdanau")
    )


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


def _open(params: dict[str, str] | None = None) -> AppTest:
    return open_app(WHY, params, timeout=180)


def _reference(at: AppTest) -> str:
    return at.text_input(key="why_ref").value


def _captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


# ---------------------------------------------------------------- the first example


def test_committed_example_follows_its_rule():
    """The file's chosen line is the lower middle one of its candidates ranked by gap, and the
    numbers it states are that candidate's."""
    doc = json.loads(EXAMPLE_FILE.read_text(encoding="utf-8"))
    candidates = [Candidate(**c) for c in doc["candidates"]]
    assert all(c.words >= doc["rule"]["min_words"] for c in candidates)
    chosen = candidates[median_index(candidates)]
    assert (chosen.line, chosen.gap, chosen.bleu) == (doc["line"], doc["gap"], doc["bleu"])
    gaps = sorted(c.gap for c in candidates)
    assert gaps[(len(gaps) - 1) // 2] == doc["gap"] <= doc["median_gap"] <= gaps[len(gaps) // 2]
    # the point of the page, not backwards: attention reads this sentence better
    assert doc["bleu"]["bahdanau"] > doc["bleu"]["none"] and doc["gap"] > 0
    assert len(doc["source"].split()) == doc["words"] >= 25


def test_median_index_ties_and_odd_counts():
    def c(line: int, gap: float) -> Candidate:
        return Candidate(line, 30, gap, {})

    assert median_index([c(1, 5.0), c(2, 1.0), c(3, 9.0)]) == 0  # 1, 5, 9: the middle is 5
    assert median_index([c(1, 5.0), c(2, 1.0), c(3, 9.0), c(4, 7.0)]) == 0  # lower middle: 5
    assert median_index([c(7, 2.0), c(3, 2.0)]) == 1  # a tie goes by line number
    with pytest.raises(ValueError):
        median_index([])


def test_damaged_example_file_falls_back(tmp_path: Path):
    bad = tmp_path / "why_example.json"
    bad.write_text("{not json", encoding="utf-8")
    assert first_example(bad) == FALLBACK and rule_text(FALLBACK) is None
    with pytest.raises(KeyError):
        parse_example({"source": "A dog.", "reference": "Un chien."})


def test_page_opens_on_the_chosen_sentence_and_states_the_rule(tiny: Path, chart_path: str):
    at = _open()
    check_path(at, chart_path)
    chosen = first_example()
    assert chosen.chosen_by_rule and at.text_input(key="why_text").value == chosen.source
    assert _reference(at) == chosen.reference and len(at.metric) == 2
    rule = _captions(at)
    assert "chosen by a rule" in rule and f"line {chosen.line} of the test set" in rule
    assert f"{chosen.bleu['bahdanau']:.1f} with attention" in rule
    # the evidence comes first: the BLEU-by-length chart is the page's first chart
    first = figures(at)[0]
    assert "BLEU by source sentence length" in first["layout"]["title"]["text"]


# ---------------------------------------------------------------- the reference follows the text


def test_typing_a_new_sentence_drops_the_examples_reference(tiny: Path):
    at = _open()
    at.selectbox(key="why_example").select(LONG).run()
    assert at.text_input(key="why_text").value == LONG
    assert _reference(at) == EXAMPLE_PAIRS[LONG] and len(at.metric) == 2
    at.text_input(key="why_text").input("Dog").run()
    assert not at.exception
    assert _reference(at) == "" and not at.metric  # no BLEU against the long example's French
    assert "belonged to the previous sentence" in _captions(at)
    assert at.selectbox(key="why_example").value is None  # the picker no longer claims LONG


def test_own_reference_stays_while_the_sentence_does(tiny: Path):
    at = _open({"why_text": "A dog runs.", "why_ref": ""})
    at.text_input(key="why_ref").input("Un chien court.").run()
    assert len(at.metric) == 2
    at.multiselect(key="why_encoders").select("bahdanau").run()  # another widget: no change
    assert _reference(at) == "Un chien court." and len(at.metric) == 2
    at.text_input(key="why_text").input(EXAMPLES[0]).run()  # an example: its own reference
    assert _reference(at) == EXAMPLE_PAIRS[EXAMPLES[0]]


def test_link_with_a_sentence_but_no_reference_gets_no_foreign_reference(tiny: Path):
    at = _open({"why_text": "Dog"})
    assert _reference(at) == "" and not at.metric
    at = _open({"why_text": EXAMPLES[1]})
    assert _reference(at) == EXAMPLE_PAIRS[EXAMPLES[1]]
    at = _open({"why_text": "Dog", "why_ref": "Chien"})  # a link's own pair is kept
    assert _reference(at) == "Chien" and len(at.metric) == 2


# ---------------------------------------------------------------- the shipped models


@pytest.mark.checkpoints
@pytest.mark.data
def test_committed_choice_is_what_the_rule_gives_on_the_shipped_models(monkeypatch):
    """Rerun the rule (12 sentences, two models, a few seconds) and compare with the file: it is
    stale when a model was retrained (run `python -m training.choose_why_example`)."""
    from models.rnn.translator import Translator
    from training.choose_why_example import MODELS, choose_example
    from training.data import DEFAULT_DATA, load_pairs
    from training.evaluate import TEST_SPLIT

    need(DEFAULT_DATA.is_dir(), f"Multi30k not found at {DEFAULT_DATA}")
    need(
        all((SHIPPED_ROOT / f"seq2seq-{k}" / "model.safetensors").is_file() for k in MODELS),
        "the none and bahdanau checkpoints are not built",
    )
    translators = {k: Translator.load(SHIPPED_ROOT / f"seq2seq-{k}") for k in MODELS}
    doc = choose_example(load_pairs(DEFAULT_DATA, TEST_SPLIT), translators, 25)
    committed = json.loads(EXAMPLE_FILE.read_text(encoding="utf-8"))
    assert doc == committed


@pytest.mark.checkpoints
def test_page_shows_the_files_numbers_with_the_shipped_models(monkeypatch):
    need(
        all((SHIPPED_ROOT / f"seq2seq-{k}" / "model.safetensors").is_file() for k in ("none",)),
        "the shipped translators are not built",
    )
    monkeypatch.delenv(CHECKPOINTS_ENV, raising=False)
    at = _open()
    chosen = first_example()
    shown = [float(m.value) for m in at.metric]
    assert shown == [round(chosen.bleu["none"], 1), round(chosen.bleu["bahdanau"], 1)]


def test_text_that_is_not_english_is_flagged_next_to_the_translations(tiny: Path):
    """Text in another script (注意力机制很重要) is flagged beside the translations, and the
    English example is not."""
    at = _open({"why_text": "注意力机制很重要"})
    warnings = "\n".join(w.value for w in at.warning)
    assert "not in the Latin alphabet" in warnings and "the French above" in warnings
    at = _open({"why_text": EXAMPLES[0]})
    assert not any("Latin alphabet" in w.value for w in at.warning)
