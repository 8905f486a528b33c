"""The Alignment and Local attention pages in Chinese.

In Chromium (``?lang=zh``): the default sentence, then a typed one; no English word is left on
screen, in the charts' SVG text or in their hover text, other than the tokens of that very
translation and the names and formulas listed below; no missing-glyph box; switching to English
and back keeps the sentence, the model, the step and the window. With AppTest: the pages' headers,
widget labels and chart titles are Chinese.

The server reads the shipped checkpoints where the pages' models all exist, else tiny
random-weight ones; the Chinese screenshots are saved only from trained models.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest

from models.analysis.explain import explain
from models.checkpoints import SHIPPED_ROOT
from models.rnn.translator import Translator
from tests.app_helpers import figures
from tests.browser_helpers import (
    CHART,
    assert_chinese,
    chart_hover_texts,
    checkpoints_fixture,
    english_left,
    is_shipped,
    served_fixtures,
    shoot,
    shown_texts,
    switch_language,
    wait_settled,
)
from tests.test_i18n_app import _app, _open, english_words
from tests.tiny_seq2seq import build_tiny_checkpoints
from ui.translation import EXAMPLES, GLOBAL_MODELS, LOCAL_MODELS

ALIGNMENT, LOCAL = (
    "app_pages/alignment/alignment.py",
    "app_pages/local_attention/local_attention.py",
)
WIDGETS = ("text_input", "selectbox", "slider", "button_group")  # AppTest's element types
ATTENTIONS = ("luong-dot", "luong-general", "local-m")  # the models the tests open
TYPED = "Two children are playing with a red ball in the park."
# Names and formulas that stay as they are (docs/glossary.md), word by word: the model ids shown
# in the selects and titles, the example in the Alignment text ("a black dog" → "un chien noir"),
# the key to press, the download format, the local-p formula and the Gaussian's sigma.
MODEL_IDS = {
    word for attention in (*GLOBAL_MODELS, *LOCAL_MODELS) for word in english_words(attention)
}
# The formulas' LaTeX in the notes (\bar h_s, \tilde h_t, \operatorname{softmax}, log2) and the
# names of the "Does attention explain?" section's methods and authors, kept in brackets.
FORMULA_WORDS = {"bar", "tilde", "operatorname", "softmax", "tanh", "log", "exp", "score"}
EXPLAIN_NAMES = {"Jain", "Wallace", "Spearman", "TVD", "leave", "one", "out", "gradient", "input"}
EXPLAIN_NAMES |= {"Wiegreffe", "Pinter", "Attention", "not", "Explanation"}  # the papers' titles
ALIGNMENT_NAMES = (
    MODEL_IDS | FORMULA_WORDS | EXPLAIN_NAMES | {"black", "dog", "chien", "noir", "Enter", "CSV"}
)
LOCAL_NAMES = MODEL_IDS | {"sigmoid", "tanh", "sigma", "Enter", "CSV"}


# The shipped checkpoints when the pages' models all exist, else tiny random-weight ones.
checkpoints = checkpoints_fixture(
    lambda: all(is_shipped(f"seq2seq-{attention}") for attention in ATTENTIONS),
    build_tiny_checkpoints,
    "tiny_zh",
)


def _token_words(root: Path, attention: str, sentence: str) -> set[str]:
    """The Latin words inside what the page shows of ``attention``'s translation of ``sentence``: its
    source and target pieces, its text, every step's top-k candidates and the explained step's."""
    translator = Translator.load(root / f"seq2seq-{attention}")
    tr = translator.translate(sentence)
    shown = [sentence, *tr.source_tokens, *tr.target_tokens, tr.text]  # words merge pieces
    shown += [str(token) for step in tr.top_k for token, __ in step]
    # "Does attention explain?" explains the first French word by default: its candidates under
    # the model's own, uniform and permuted attention
    shown += explain(translator, sentence, tr.target_tokens, 0).candidates
    return {word for text in shown for word in english_words(text)}


def _check_chinese(page, allowed: set[str]) -> None:
    """No English word beyond ``allowed`` on screen, in the charts or their hover text; no box."""
    hover = chart_hover_texts(page)
    assert any("权重" in text for text in hover), hover  # the heatmaps' hover text was read
    texts = shown_texts(page) + hover
    assert_chinese(texts, allowed)


def _type(page, sentence: str, first_source_tokens: list[str]) -> None:
    """Type ``sentence`` in the sentence box, press Enter, wait for the first chart's new ticks."""
    box = page.get_by_role("textbox").first
    box.fill(sentence)
    box.press("Enter")
    want = json.dumps(first_source_tokens)
    page.wait_for_function(
        f"() => {{ const c = document.querySelectorAll('{CHART}')[0]; if (!c) return false; "
        "return JSON.stringify([...c.querySelectorAll('.xtick text')].map(t => t.textContent)) "
        f"=== JSON.stringify({want}); }}"
    )
    page.wait_for_function(
        "!document.querySelector('[data-stale=true], [data-testid=stStatusWidget]')", polling=200
    )


def _keeps_state(page, params: dict[str, str], sentence: str, title: dict[str, str]) -> None:
    """Switch to English and back: the sentence box, the URL's params and the charts stay."""
    for name, code in (("English", "en"), ("简体中文", "zh")):
        switch_language(page, name, code)
        page.get_by_role("heading", name=title[code], exact=True).wait_for()
        assert page.get_by_role("textbox").first.input_value() == sentence
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))
        assert {k: query.get(k) for k in params} == params, query
        wait_settled(page, 3)


url, tab = served_fixtures("streamlit_zh_alignment", 180_000)


@pytest.mark.browser
def test_alignment_in_chinese(tab, url, checkpoints, screenshots):
    params = {"aln_model": "luong-dot", "aln_step": "1"}
    tab.goto(f"{url}/alignment?{urllib.parse.urlencode({'lang': 'zh', **params})}")
    wait_settled(tab, 4)
    tab.get_by_role("heading", name="对齐", exact=True).wait_for()
    assert tab.get_by_text("单步查看").is_visible()
    _check_chinese(tab, ALIGNMENT_NAMES | _token_words(checkpoints, "luong-dot", EXAMPLES[0]))
    if checkpoints == SHIPPED_ROOT:
        shoot(tab, screenshots / "alignment.zh.png", 1750)
    typed = Translator.load(checkpoints / "seq2seq-luong-dot").translate(TYPED)
    _type(tab, TYPED, typed.source_tokens)
    wait_settled(tab, 4)
    _check_chinese(tab, ALIGNMENT_NAMES | _token_words(checkpoints, "luong-dot", TYPED))
    _keeps_state(tab, {**params, "aln_text": TYPED}, TYPED, {"en": "Alignment", "zh": "对齐"})


@pytest.mark.browser
def test_local_attention_in_chinese(tab, url, checkpoints, screenshots):
    params = {"loc_model": "local-m", "loc_D": "2", "loc_step": "1"}
    tab.goto(f"{url}/local_attention?{urllib.parse.urlencode({'lang': 'zh', **params})}")
    wait_settled(tab, 3)
    tab.get_by_role("heading", name="局部注意力", exact=True).wait_for()
    steps = tab.locator(CHART).filter(has=tab.locator(".updatemenu-button"))
    assert steps.locator(".updatemenu-button").first.text_content().strip() == "▶ 播放"
    assert steps.locator(".gtitle").first.text_content().startswith("第 1 步：")
    words = _token_words(checkpoints, "local-m", EXAMPLES[0])
    _check_chinese(tab, LOCAL_NAMES | words)
    if checkpoints == SHIPPED_ROOT:
        shoot(tab, screenshots / "local_attention.zh.png", 2000)
    typed = Translator.load(checkpoints / "seq2seq-local-m").translate(TYPED)
    _type(tab, TYPED, typed.source_tokens)
    wait_settled(tab, 3)
    _check_chinese(tab, LOCAL_NAMES | _token_words(checkpoints, "local-m", TYPED))
    title = {"en": "Local attention", "zh": "局部注意力"}
    _keeps_state(tab, {**params, "loc_text": TYPED}, TYPED, title)


# ---------------------------------------------------------------- AppTest: the headers


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_zh_apptest"), attentions=ATTENTIONS)


def _labels_and_titles(at) -> list[str]:
    """Headers, widget labels, help and options, explanations and chart titles (no user text)."""
    texts = [at.title[0].value, *(s.value for s in at.subheader)]
    widgets = [w for attention in WIDGETS for w in at.main.get(attention)]
    texts += [w.proto.label for w in widgets] + [w.proto.help for w in widgets]
    texts += [option for choice in at.main.get("button_group") for option in choice.options]
    texts += [c.value for c in at.caption] + [i.value for i in at.info]
    texts += [link.proto.label for link in at.main.get("page_link")]
    return texts + [f["layout"]["title"]["text"] for f in figures(at)]


@pytest.mark.parametrize(
    ("page", "params", "title", "headers"),
    [
        (
            ALIGNMENT,
            {"aln_model": "luong-dot", "aln_beam": "2", "expl": "true"},
            "对齐",
            ["单步查看", "束搜索的候选译文", "注意力能解释模型吗？"],
        ),
        (LOCAL, {"loc_model": "local-m", "loc_D": "2"}, "局部注意力", ["逐步演示"]),
    ],
)
def test_pages_have_chinese_headers(tiny, page, params, title, headers):
    at = _open(_app({"lang": "zh"}), page, params)
    assert at.title[0].value == title and [s.value for s in at.subheader] == headers
    assert [link.proto.label for link in at.main.get("page_link")] == ["多头注意力"]
    if page == ALIGNMENT:  # the choices show Chinese labels and keep their ids
        assert [c.options for c in at.main.get("button_group")] == [
            ["翻译", "参考译文", "比较", "四种打分"],
            ["子词", "词"],
        ]
        assert at.button_group(key="aln_mode").value == "translate"
    texts = [text for text in _labels_and_titles(at) if text]
    tokens = {
        word for attention in ATTENTIONS for word in _token_words(tiny, attention, EXAMPLES[0])
    }
    assert not english_left(texts, ALIGNMENT_NAMES | LOCAL_NAMES | tokens)


def test_chinese_text_points_to_the_multi_head_page(tiny):
    """The translation pages say they translate English; Chinese text makes that a warning."""
    at = _open(_app({"lang": "en"}), ALIGNMENT, {"aln_text": EXAMPLES[0]})
    assert any("translate English into French" in c.value for c in at.caption)
    assert not any("Multi-head attention page" in w.value for w in at.warning)
    at = _open(at, LOCAL, {"loc_text": "一只黑狗在草地上奔跑。"})
    assert any("Multi-head attention page" in w.value for w in at.warning)
    assert [link.proto.label for link in at.main.get("page_link")] == ["Multi-head attention"]
