"""The Multi-head attention and Positional encoding pages in Chinese.

In Chromium (``?lang=zh``): each page with its default input, then with typed Chinese: on the
Multi-head page the pretrained encoder (all-MiniLM-L6-v2) reads 注意力机制很重要, and the charts
label its pieces with the Chinese characters (``力`` is in its vocabulary; the others are its
``[UNK]`` token, labelled ``[UNK:注]``); on the Positional encoding page a Chinese sentence is
shuffled character by character. No English word is left on screen, in the charts' SVG text, in
their hover text or in the table's headers, other than the tokens of that very input and the
names and formulas listed below; no missing-glyph box; switching to English and back keeps the
sentence and the model. With AppTest: the pages' headers and titles are Chinese, the Chinese
sentence is labelled the same way, and a language switch keeps the view and its URL.

The server reads the shipped Transformer checkpoints when both are there, else tiny
random-weight ones; the pretrained encoder is always the real all-MiniLM-L6-v2.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest

from models.checkpoints import SHIPPED_ROOT
from models.transformer.pretrained import PretrainedEncoder
from models.transformer.translator import TransformerTranslator
from tests.app_helpers import figures
from tests.browser_helpers import (
    assert_chinese,
    chart_hover_texts,
    checkpoints_fixture,
    english_left,
    served_fixtures,
    shoot,
    shown_texts,
    switch_language,
    transformers_shipped,
    wait_settled,
)
from tests.test_browser_multi_head import _chart, _ticks, _wait_for_ticks
from tests.test_i18n_app import _app, _open, english_words
from tests.test_multi_head_page import title_of
from tests.tiny_transformer import build_tiny_transformers
from ui.multi_head import unknown_labels

MH, PE = (
    "app_pages/multi_head/multi_head.py",
    "app_pages/positional_encoding/positional_encoding.py",
)
CHINESE = "注意力机制很重要"  # "the attention mechanism matters": 力 is in MiniLM's vocabulary
TYPED_PE = "猫坐在垫子上"  # no spaces: the page shuffles it character by character
DEFAULT_MH = "A black dog is running on the green grass."  # the page's default sentence
DEFAULT_PE = "the cat sat on the mat"
# Names and formulas that stay as they are (docs/glossary.md), word by word: the model family of
# MiniLM, the paper cited, the key to press, the download format, and the special tokens that
# MiniLM adds or reads for what its vocabulary lacks ([CLS], [SEP], [UNK:注]; the page's text
# names them too).
MH_NAMES = {"BERT", "Vaswani", "Enter", "CSV"}
SPECIAL = {"CLS", "SEP", "UNK"}
# The PE formula's pos, sin and cos (also the curves' sin / cos), the paper cited and the download
# format; the symbols d_model and Multi30k are taken out whole.
PE_NAMES = {"pos", "sin", "cos", "Vaswani", "CSV"}
PE_SYMBOLS = ("d_model", "Multi30k")
HEAD = '[data-testid="stTable"] thead th'
HIDE = "k.dataset.display = k.style.display; k.style.display = 'none';"
SHOW = "k.style.display = k.dataset.display || '';"


def _labels(text: str) -> list[str]:
    """The pieces all-MiniLM-L6-v2 reads from ``text``, as the charts label them."""
    result = PretrainedEncoder.load().attend(text)
    return unknown_labels(result.tokens, result.spans)


def _transformer_words(root: Path, sentence: str) -> set[str]:
    """The Latin words of what the page shows of the Transformer's translation of ``sentence``:
    its source and target pieces and its text."""
    result = TransformerTranslator.load(root / "transformer-sinusoidal").translate(sentence)
    shown = [*result.source_tokens, *result.target_tokens, result.text]
    return {word for text in shown for word in english_words(text)}


def _without(texts: list[str], symbols: tuple[str, ...]) -> list[str]:
    """``texts`` with each of ``symbols`` taken out whole."""
    for symbol in symbols:
        texts = [text.replace(symbol, " ") for text in texts]
    return texts


def _check_chinese(page, allowed: set[str], symbols: tuple[str, ...] = ()) -> None:
    """No English word beyond ``allowed`` on screen, in the charts, their hover text or the
    tables' headers (``symbols`` taken out whole first); no missing-glyph box."""
    page.evaluate(f"document.querySelectorAll('.katex').forEach(k => {{ {HIDE} }})")
    try:  # formulas (KaTeX, with their symbols) are never translated: read the page without them
        texts = shown_texts(page) + chart_hover_texts(page)
    finally:
        page.evaluate(f"document.querySelectorAll('.katex').forEach(k => {{ {SHOW} }})")
    texts = _without(texts + page.locator(HEAD).all_text_contents(), symbols)
    assert_chinese(texts, allowed)


def _keeps_state(
    page, box: dict[str, str], sentence: str, params: dict[str, str], title: dict[str, str]
) -> None:
    """Switch to English and back: the sentence box and the URL's params stay."""
    for name, code in (("English", "en"), ("简体中文", "zh")):
        switch_language(page, name, code)
        page.get_by_role("heading", name=title[code], exact=True).wait_for()
        assert page.get_by_role("textbox", name=box[code]).input_value() == sentence
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))
        assert {k: query.get(k) for k in params} == params, query
        wait_settled(page, 4)


checkpoints = checkpoints_fixture(transformers_shipped, build_tiny_transformers, "tiny_zh_mh")
url, tab = served_fixtures("streamlit_zh_mh", 180_000)


@pytest.mark.browser
def test_multi_head_in_chinese(tab, url, checkpoints, screenshots):
    tab.goto(f"{url}/multi_head?lang=zh")
    wait_settled(tab, 4)
    tab.get_by_role("heading", name="多头注意力", exact=True).wait_for()
    _check_chinese(tab, MH_NAMES | SPECIAL | _transformer_words(checkpoints, DEFAULT_MH))
    tab.get_by_role("radio", name="预训练编码器（MiniLM）").click()
    tab.wait_for_url("**mh_model=pretrained**")
    box = tab.get_by_role("textbox", name="句子")
    box.fill(CHINESE)
    box.press("Enter")
    labels = _labels(CHINESE)
    assert "力" in labels and "[UNK:注]" in labels and "[UNK:要]" in labels
    _wait_for_ticks(tab, labels)
    wait_settled(tab, 4)
    head = _chart(tab, "第 1 层，第 1 个头 · ")
    assert _ticks(head, "x") == labels and _ticks(head, "y") == labels
    steps = _chart(tab, "1. Q·Kᵀ：每个查询与每个键的点积")  # the head's steps, in Chinese
    assert _ticks(steps, "x") == labels
    lines = _chart(tab, "左：查询，即发出注意力的词元")
    assert "[UNK:机]" in lines.locator(".textpoint text").all_text_contents()
    _check_chinese(tab, MH_NAMES | SPECIAL)
    if checkpoints == SHIPPED_ROOT:  # trained models: the README's screenshot
        shoot(tab, screenshots / "multi_head.zh.png", 3000)
    params = {"mh_model": "pretrained", "mh_text": CHINESE}
    _keeps_state(
        tab,
        {"en": "Sentence", "zh": "句子"},
        CHINESE,
        params,
        {"en": "Multi-head attention", "zh": "多头注意力"},
    )
    head = _chart(tab, "第 1 层，第 1 个头 · ")
    assert _ticks(head, "x") == labels


@pytest.mark.browser
def test_positional_encoding_in_chinese(tab, url, checkpoints, screenshots):
    tab.goto(f"{url}/positional_encoding?lang=zh")
    wait_settled(tab, 4)
    tab.get_by_role("heading", name="位置编码", exact=True).wait_for()
    _check_chinese(tab, PE_NAMES | english_words(DEFAULT_PE), PE_SYMBOLS)
    box = tab.get_by_role("textbox", name="句子")
    box.fill(TYPED_PE)
    box.press("Enter")
    tab.wait_for_function(
        "[...document.querySelectorAll('.xtick text')].some(t => t.textContent === '垫')"
    )
    wait_settled(tab, 4)
    tab.get_by_text("恢复顺序后的最大 |差值|", exact=False).first.wait_for()
    _check_chinese(tab, PE_NAMES, PE_SYMBOLS)
    if checkpoints == SHIPPED_ROOT:
        shoot(tab, screenshots / "positional_encoding.zh.png", 6600)
    _keeps_state(
        tab,
        {"en": "Sentence", "zh": "句子"},
        TYPED_PE,
        {"pe_sentence": TYPED_PE},
        {"en": "Positional encoding", "zh": "位置编码"},
    )


# ---------------------------------------------------------------- AppTest


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_transformers(tmp_path_factory.mktemp("tiny_zh_mh_apptest"))


def _figures(at) -> list[dict]:
    return figures(at)


def _group(at, key: str):
    """The button group (segmented control, pills) with ``key``."""
    return next(group for group in at.get("button_group") if group.key == key)


def _headers_and_titles(at) -> list[str]:
    """The title, headers, explanations, notices and chart titles (no user text, no tokens)."""
    texts = [at.title[0].value, *(s.value for s in at.subheader), *(c.value for c in at.caption)]
    texts += [m.value for m in at.main.markdown] + [i.value for i in at.info]
    texts += [title_of(f) for f in _figures(at)]
    return [re.sub(r"\$[^$]*\$", " ", text) for text in texts]  # formulas stay as they are


def test_multi_head_has_chinese_headers_and_labels_chinese_pieces(tiny):
    at = _open(
        _app({"lang": "zh"}), MH, {"lang": "zh", "mh_model": "pretrained", "mh_text": CHINESE}
    )
    assert at.title[0].value == "多头注意力"
    assert [s.value for s in at.subheader][:2] == ["总览：每一层、每一个头", "第 1 层，第 1 个头"]
    assert not english_left(_headers_and_titles(at), MH_NAMES | SPECIAL)
    labels = _labels(CHINESE)
    title = "all-MiniLM-L6-v2 自注意力<br>第 1 层，第 1 个头 · "
    head = next(f for f in _figures(at) if title_of(f).startswith(title))
    assert [x.replace("\u200b", "") for x in head["data"][0]["x"]] == labels
    assert "[UNK:注]" in labels and "力" in labels
    assert any("[UNK]" in i.value and "7" in i.value for i in at.info)  # 7 of the 10 pieces


def test_positional_encoding_has_chinese_headers(tiny):
    at = _open(_app({"lang": "zh"}), PE, {"lang": "zh", "pe_sentence": TYPED_PE})
    assert at.title[0].value == "位置编码"
    assert [s.value for s in at.subheader] == [
        "两个位置有多相似？",
        "打乱词序",
        "在我们训练的 Transformer 里：正弦还是可学习？",
    ]
    assert not english_left(_without(_headers_and_titles(at), PE_SYMBOLS), PE_NAMES)


def test_switching_language_keeps_the_multi_head_view(tiny):
    params = {"mh_model": "pretrained", "mh_text": CHINESE, "mh_layer": "2", "mh_head": "5"}
    at = _open(_app({"lang": "en"}), MH, params)
    at.multiselect(key="mh_hide").set_value(["punctuation", "first token"]).run()
    _group(at, "mh_heads").set_value(["1", "3"]).run()  # the heads shown: 1 and 3
    _group(at, "mh_agg").set_value("max over heads").run()
    before = dict(at.query_params)
    assert at.query_params["mh_heads"] == ["1", "3"]  # ids, not labels
    assert at.query_params["mh_hide"] == ["punctuation", "first token"]
    for lang in ("zh", "en", "zh"):
        at.sidebar.selectbox(key="lang").set_value(lang).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.text_input(key="mh_text").value == CHINESE
        assert _group(at, "mh_model").value == "pretrained"
        assert (at.selectbox(key="mh_layer").value, at.selectbox(key="mh_head").value) == (2, 5)
        assert at.multiselect(key="mh_hide").value == ["punctuation", "first token"]
        assert _group(at, "mh_agg").value == "max over heads"
        assert _group(at, "mh_heads").value == ["1", "3"]
        assert dict(at.query_params) == {**before, "lang": lang}
    assert at.multiselect(key="mh_hide").proto.options[-1] == "第一个词元"


def test_unknown_pieces_are_labelled_with_their_text():
    tokens = ["[CLS]", "[UNK]", "力", "[UNK]", "[SEP]"]
    spans = ["", "注", "力", "🐶🐶🐶🐶🐶🐶🐶🐶", ""]
    assert unknown_labels(tokens, spans) == [
        "[CLS]",
        "[UNK:注]",
        "力",
        "[UNK:🐶🐶🐶🐶🐶🐶…]",
        "[SEP]",
    ]
    assert unknown_labels(tokens, spans[:3]) == tokens  # offsets that do not line up: the tokens
