"""Tests for a defect: a translation of a sentence longer than any the model saw in
training said nothing about it. The longest training source is measured into the card
(``Card.train_lengths``, training.lengths); the pages warn next to the translation beyond it,
and, for a card that does not record it, beyond the config's ``max_src_len`` (and say which)."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest

from models.checkpoints import CHECKPOINTS_ENV, read_card, write_card
from models.tokenizer import SubwordTokenizer
from tests.app_helpers import open_app
from tests.tiny_seq2seq import build_tiny_checkpoints
from training.lengths import record, train_lengths

SHORT = "a black dog runs ."
LONG = "a black dog runs on the green grass with a red ball and a white cat sits ."
MEASURED = "the longest sentence this model saw in training had"
CONFIGURED = "max_src_len of 100"
BEYOND = "beyond the training lengths; expect a poor translation"


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tiny translators; the cards of bahdanau and none say that their longest training source
    had as many pieces as SHORT (luong-dot's card does not say)."""
    root = build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_lengths"))
    lengths = {"src_pieces": _pieces(root, SHORT), "src_words": 5, "split": "train"}
    for kind in ("bahdanau", "none"):
        folder = root / f"seq2seq-{kind}"
        write_card(folder, replace(read_card(folder), train_lengths=lengths))
    return root


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


def _pieces(root: Path, text: str, kind: str = "bahdanau") -> int:
    """``text``'s source pieces for checkpoint ``seq2seq-<kind>`` under ``root``."""
    return len(SubwordTokenizer(str(root / f"seq2seq-{kind}" / "src.model")).encode(text))


def _warnings(page: str, params: dict[str, str]) -> list[str]:
    return [w.value for w in open_app(page, params).warning]


def test_a_sentence_as_long_as_the_training_ones_gets_no_warning(tiny: Path):
    assert not [
        w for w in _warnings("app_pages/alignment/alignment.py", {"aln_text": SHORT}) if BEYOND in w
    ]


@pytest.mark.parametrize("mode", ["translate", "reference", "compare"])
def test_a_longer_sentence_is_beyond_the_measured_training_lengths(tiny: Path, mode: str):
    params = {"aln_text": LONG, "aln_mode": mode}
    found = [w for w in _warnings("app_pages/alignment/alignment.py", params) if BEYOND in w]
    assert len(found) == 1, found
    n, limit = _pieces(tiny, LONG), _pieces(tiny, SHORT)
    assert f"has {n} subword pieces; {MEASURED} {limit}" in found[0]


def test_the_why_page_warns_too(tiny: Path):
    assert any(
        BEYOND in w
        for w in _warnings("app_pages/why_attention/why_attention.py", {"why_text": LONG})
    )


def test_without_a_measured_length_the_config_limit_is_used_and_named(tiny: Path):
    very_long = " ".join([LONG] * 6)
    assert _pieces(tiny, very_long) > 100
    params = {"aln_text": very_long, "aln_model": "luong-dot"}
    found = [w for w in _warnings("app_pages/alignment/alignment.py", params) if BEYOND in w]
    assert len(found) == 1 and CONFIGURED in found[0] and MEASURED not in found[0]
    params["aln_text"] = LONG  # longer than bahdanau's measured limit, not than max_src_len
    assert not [w for w in _warnings("app_pages/alignment/alignment.py", params) if BEYOND in w]


def test_train_lengths_counts_pieces_as_training_cut_them(tiny_root: Path):
    tok = SubwordTokenizer(str(tiny_root / "seq2seq-bahdanau" / "src.model"))
    got = train_lengths([SHORT, LONG], tok, max_src_len=100)
    assert got == {"src_pieces": len(tok.encode(LONG)), "src_words": 18, "split": "train"}
    assert train_lengths([LONG], tok, max_src_len=4)["src_pieces"] == 4


def test_record_writes_the_card(tmp_path: Path):
    root = build_tiny_checkpoints(tmp_path / "ckpt", attentions=("luong-dot",))
    data = tmp_path / "data"
    data.mkdir()
    for lang, lines in (("en", [SHORT, LONG]), ("fr", ["un chien .", "un chat ."])):
        with gzip.open(data / f"train.{lang}.gz", "wt", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    folder = root / "seq2seq-luong-dot"
    lengths = record(str(folder), data)
    card = read_card(folder)
    assert card.train_lengths == lengths
    assert lengths["src_pieces"] == _pieces(root, LONG, "luong-dot")
    assert "python -m training.lengths --model seq2seq-luong-dot" in card.evaluate_commands
