"""A sentence is one value: one Enter in the Alignment page's sentence box cleans the text once
(``models.sentence.clean_text``, by the box) and tokenizes it once (by the model, whose piece count
``Translation.n_source_pieces`` the page's notices read), through the whole page run: box, model,
notices, charts. A step that cleaned or tokenized the sentence again would count twice here.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import models.sentence
from models.checkpoints import CHECKPOINTS_ENV
from models.tokenizer import SubwordTokenizer
from tests.app_helpers import charts, open_app
from tests.tiny_seq2seq import build_tiny_checkpoints

ALIGNMENT = "app_pages/alignment/alignment.py"


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_once"), attentions=("bahdanau",))


def _count_calls(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """From now on, count the calls of the one cleaning rule (under every name a module
    imported it by) and of the subword tokenizers' encode."""
    calls: Counter = Counter()
    clean_text, encode = models.sentence.clean_text, SubwordTokenizer.encode

    def counted_clean(text: str) -> str:
        calls["clean_text"] += 1
        return clean_text(text)

    def counted_encode(self: SubwordTokenizer, text) -> list[int]:
        calls["encode"] += 1
        return encode(self, text)

    for module in list(sys.modules.values()):
        if getattr(module, "clean_text", None) is clean_text:
            monkeypatch.setattr(module, "clean_text", counted_clean)
    monkeypatch.setattr(SubwordTokenizer, "encode", counted_encode)
    return calls


@pytest.mark.parametrize("view", ["subword", "word"])
def test_one_enter_cleans_and_tokenizes_the_sentence_once(
    tiny_root: Path, monkeypatch: pytest.MonkeyPatch, view: str
):
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    at = open_app(ALIGNMENT, {"aln_text": "a black dog .", "aln_view": view})
    calls = _count_calls(monkeypatch)
    # a sentence no cache has seen (a fresh number in it: the model runs), with a zero-width
    # space and a double space for the box to clean, long enough to be cut at the tiny model's
    # piece limit, so that the model's cut is noticed too
    typed = f"a\u200b black  dog runs on the green grass {time.time_ns()} " * 8
    at.text_input(key="aln_text").set_value(typed).run()
    assert not at.exception, [e.value for e in at.exception]
    assert charts(at)  # the heatmap and the lines were drawn
    assert any("subword pieces" in i.value for i in at.info)  # the model's cut, from its count
    assert calls == Counter(clean_text=1, encode=1)
