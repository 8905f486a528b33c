"""Tests for a defect: text of emoji or symbols alone ("🙂🙂", "!!! ???") got
confident French and no word about it; it now gets the same honest notice as other unfamiliar
input, next to the translation on each translation page."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.checkpoints import CHECKPOINTS_ENV
from models.english_check import check_english
from models.tokenizer import SubwordTokenizer
from tests.app_helpers import open_app
from tests.tiny_seq2seq import build_tiny_checkpoints

SYMBOLS = ("🙂🙂", "!!! ???", "→ ★ ♥ …")
NOTICE = "only symbols or emoji"
PAGES = {  # page -> its sentence parameter and other parameters
    "app_pages/alignment/alignment.py": ("aln_text", {}),
    "app_pages/local_attention/local_attention.py": ("loc_text", {}),
    "app_pages/why_attention/why_attention.py": ("why_text", {}),
}


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_input"))


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


@pytest.mark.parametrize("text", SYMBOLS)
def test_symbols_alone_are_suspicious(tiny_root: Path, text: str):
    tokenizer = SubwordTokenizer(str(tiny_root / "seq2seq-bahdanau" / "src.model"))
    check = check_english(text, tokenizer)
    assert check.symbols_only and check.suspicious


@pytest.mark.parametrize("text", ["a dog 🙂", "2 + 2", "", "   "])
def test_text_with_a_letter_or_digit_is_not_symbols_only(tiny_root: Path, text: str):
    tokenizer = SubwordTokenizer(str(tiny_root / "seq2seq-bahdanau" / "src.model"))
    assert not check_english(text, tokenizer).symbols_only


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("text", SYMBOLS[:2])
def test_each_translation_page_warns_next_to_the_translation(tiny: Path, page: str, text: str):
    param, extra = PAGES[page]
    at = open_app(page, {param: text, **extra})
    assert any(NOTICE in w.value for w in at.warning), [w.value for w in at.warning]


@pytest.mark.parametrize("mode", ["compare", "four"])
def test_alignment_modes_warn_too(tiny: Path, mode: str):
    at = open_app("app_pages/alignment/alignment.py", {"aln_text": "🙂🙂", "aln_mode": mode})
    assert any(NOTICE in w.value for w in at.warning)
