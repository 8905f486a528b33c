"""The Recurrent networks page in Chinese (``?lang=zh``), in Chromium: with its default sentence
and with a typed one, no English word is left on screen, in the charts' SVG text, their hover
text or the table's headers, other than the tokens of the sentence and the names, formulas and
commands listed below; no missing-glyph box; switching to English and back keeps the sentence
and the gate heatmaps' direction. With the shipped checkpoints it saves ``recurrent.zh.png``.

The server reads the shipped checkpoints when all four are there, else tiny random-weight ones."""

from __future__ import annotations

import urllib.parse

import pytest

from models.checkpoints import SHIPPED_ROOT
from models.rnn.cells import encoder_trace
from models.rnn.translator import Translator
from tests.browser_helpers import (
    assert_chinese,
    chart_hover_texts,
    checkpoints_fixture,
    served_fixtures,
    shoot,
    shown_texts,
    switch_language,
    wait_settled,
)
from tests.test_browser_recurrent import N_CHARTS, TYPED, recurrent_shipped
from tests.test_i18n_app import english_words
from tests.tiny_recurrent import build_tiny_recurrent

# Names that stay as they are (docs/glossary.md): the cells, the authors and the library cited,
# the metric, the function names of the formulas (tanh, diag), the key to press; and the
# command and checkpoint named in the text, taken out whole.
NAMES = {"RNN", "LSTM", "GRU", "BLEU", "tanh", "diag", "PyTorch", "Cho", "Bahdanau", "Gers"}
NAMES |= {"Hochreiter", "Schmidhuber", "Enter", "Multi30k"}
SYMBOLS = ("python -m training.train_encoders", "seq2seq-bahdanau", "Multi30k", "card.json")
CODE = '[data-testid="stCode"]'  # the commands that rebuild the encoders: never translated
HEAD = '[data-testid="stTable"] thead th'
TITLE = {"en": "Recurrent networks", "zh": "循环神经网络"}
BOX = {"en": "English sentence", "zh": "英文句子"}

checkpoints = checkpoints_fixture(recurrent_shipped, build_tiny_recurrent, "tiny_zh_rc")
url, tab = served_fixtures("streamlit_zh_rc", 180_000)


def _check_chinese(page, sentence_words: set[str]) -> None:
    texts = shown_texts(page) + chart_hover_texts(page) + page.locator(HEAD).all_text_contents()
    code = [line for block in page.locator(CODE).all_inner_texts() for line in block.splitlines()]
    for symbol in (*code, *SYMBOLS):
        texts = [text.replace(symbol, " ") for text in texts]
    assert_chinese(texts, NAMES | sentence_words)


def _words(checkpoints, text: str) -> set[str]:
    """The Latin words of ``text`` and of the pieces the encoder reads from it."""
    tokens = encoder_trace(Translator.load(checkpoints / "seq2seq-bahdanau"), text).tokens
    return {w for piece in [*tokens, text] for w in english_words(piece)}


@pytest.mark.browser
def test_recurrent_in_chinese(tab, url, checkpoints, screenshots):
    tab.goto(f"{url}/recurrent?lang=zh")
    wait_settled(tab, N_CHARTS)
    tab.get_by_role("heading", name=TITLE["zh"], exact=True).wait_for()
    default = tab.get_by_role("textbox", name=BOX["zh"]).input_value()
    _check_chinese(tab, _words(checkpoints, default))

    box = tab.get_by_role("textbox", name=BOX["zh"])
    box.fill(TYPED)
    box.press("Enter")
    tab.wait_for_url("**rc_text=**")
    tab.get_by_text("后向 ←h", exact=True).click()
    tab.wait_for_url("**rc_dir=backward**")
    wait_settled(tab, N_CHARTS)
    tab.locator(".gtitle", has_text="更新门 z_t，后向 ←h").first.wait_for()
    _check_chinese(tab, _words(checkpoints, TYPED))
    if checkpoints == SHIPPED_ROOT:
        shoot(tab, screenshots / "recurrent.zh.png", 6000)

    for name, code in (("English", "en"), ("简体中文", "zh")):
        switch_language(tab, name, code)
        tab.get_by_role("heading", name=TITLE[code], exact=True).wait_for()
        assert tab.get_by_role("textbox", name=BOX[code]).input_value() == TYPED
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(tab.url).query))
        assert query.get("rc_text") == TYPED and query.get("rc_dir") == "backward", query
        wait_settled(tab, N_CHARTS)
    _check_chinese(tab, _words(checkpoints, TYPED))
