"""AppTest: the language in the UI. ``?lang=zh`` (or a Chinese browser) shows the home page, the
navigation's map and the sidebar in Chinese; switching language keeps the page's state (its
widgets and the URL) and survives navigation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from i18n import use_language
from models.checkpoints import CHECKPOINTS_ENV
from tests.tiny_seq2seq import build_tiny_checkpoints

APP = str(Path(__file__).resolve().parents[1] / "app.py")
ANATOMY, ALIGNMENT = "app_pages/anatomy/anatomy.py", "app_pages/alignment/alignment.py"
# Names and symbols that stay as they are in Chinese (docs/glossary.md).
KEPT = {
    "Bahdanau",
    "Luong",
    "Show",
    "Attend",
    "and",
    "Tell",
    "Transformer",
    "RNN",
    "LSTM",
    "GRU",
    "MiniLM",
    "CPU",
    "CUDA",
    "GPU",
    "BLEU",
    "README",
    "card",
    "json",
    "HTML",  # a file format's name (the charts' "Download as HTML")
    "checkpoints",
    "softmax",
    "local",
    "torch",
    "pip",
    "all",
    "site",
    "packages",
    "gt",
    "minilm",
}


def english_words(text: str) -> set[str]:
    """Latin words of three letters or more, other than the names kept in every language."""
    kept = {word.lower() for word in KEPT}
    return {word for word in re.findall(r"[A-Za-z]{3,}", text) if word.lower() not in kept}


def _app(first: dict[str, str], context: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if context:
        at.context = context
    for name, value in first.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _open(at: AppTest, page: str, params: dict[str, str]) -> AppTest:
    at.switch_page(page)  # navigating clears the URL params, as in the browser
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _home_texts(at: AppTest) -> list[str]:
    texts = [at.title[0].value, *(s.value for s in at.subheader), *(m.value for m in at.markdown)]
    texts += [c.value for c in at.caption] + [i.value for i in at.info]
    texts += [link.proto.label for link in at.get("page_link")]
    return texts + list(at.table[0].value.columns)


def _sidebar_texts(at: AppTest) -> list[str]:
    device, classroom = at.sidebar.selectbox(key="device"), at.sidebar.toggle(key="classroom")
    return [device.label, device.help, classroom.label, classroom.help]


def test_lang_zh_shows_home_and_sidebar_in_chinese():
    at = _app({"lang": "zh"})
    assert at.title[0].value == "注意力图谱"
    assert at.sidebar.selectbox(key="lang").value == "zh"
    assert at.sidebar.selectbox(key="device").label == "设备"
    links = [link.proto.label for link in at.get("page_link")]
    assert "对齐" in links and "多头注意力" in links
    for text in _home_texts(at) + _sidebar_texts(at):
        assert not english_words(text), f"English left in {text!r}"
    assert dict(at.query_params) == {"lang": "zh"}


def test_english_by_default_and_the_browser_language_otherwise():
    english = _app({})
    assert english.title[0].value == "Attention atlas"
    assert english.sidebar.selectbox(key="lang").value == "en"
    chinese = _app({}, context={"locale": "zh-CN"})
    assert chinese.title[0].value == "注意力图谱"
    assert chinese.query_params["lang"] == "zh"  # the choice goes into the URL
    url_wins = _app({"lang": "en"}, context={"locale": "zh-CN"})
    assert url_wins.title[0].value == "Attention atlas"


def test_an_unknown_lang_falls_back():
    at = _app({"lang": "xx"})
    assert at.sidebar.selectbox(key="lang").value == "en"
    assert at.query_params["lang"] == "en"


def test_switching_language_keeps_the_anatomy_view():
    at = _open(_app({"lang": "en"}), ANATOMY, {"anat_score": "general", "anat_temp": "0.5"})
    before = dict(at.query_params)
    at.sidebar.selectbox(key="lang").set_value("zh").run()
    assert not at.exception
    assert at.selectbox(key="anat_score").value == "general"
    assert at.number_input(key="anat_temp").value == 0.5
    assert dict(at.query_params) == {**before, "lang": "zh"}
    assert at.sidebar.selectbox(key="device").label == "设备"


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_checkpoints"))


def test_switching_language_keeps_the_alignment_sentence(tiny_root, monkeypatch):
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    sentence = "a black dog runs on the green grass ."
    at = _open(
        _app({"lang": "zh"}),
        ALIGNMENT,
        {"aln_text": sentence, "aln_model": "luong-dot", "aln_beam": "3"},
    )
    assert at.query_params["lang"] == "zh"  # put back after navigating
    for lang in ("en", "zh"):
        at.sidebar.selectbox(key="lang").set_value(lang).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.text_input(key="aln_text").value == sentence
        assert at.selectbox(key="aln_model").value == "luong-dot"
        assert at.slider(key="aln_beam").value == 3
        assert at.query_params["aln_text"] == sentence and at.query_params["lang"] == lang


def _choice_script():
    import streamlit as st

    from i18n import N_
    from ui.choices import choice_ui
    from ui.sidebar import language_ui

    language_ui()
    pages = {"alignment": N_("Alignment"), "home": N_("Home"), "lab": N_("Training lab")}
    st.session_state["picked"] = choice_ui(st.selectbox, "Page", pages, key="pg", default="home")


def test_choice_ui_keeps_ids_in_the_url_in_every_language():
    at = AppTest.from_function(_choice_script, default_timeout=60)
    at.query_params["lang"], at.query_params["pg"] = "zh", "alignment"
    at.run()
    box = at.selectbox(key="pg")
    assert box.value == "alignment" and box.options == ["对齐", "首页", "训练实验室"]
    assert at.query_params["pg"] == "alignment"  # the id, not the label
    # AppTest formats every shown option in this thread: in the language the page was drawn in.
    with use_language("zh"):
        box.set_value("lab").run()
        assert at.query_params["pg"] == "lab" and at.session_state["picked"] == "lab"
        at.sidebar.selectbox(key="lang").set_value("en").run()
    assert at.selectbox(key="pg").value == "lab" and at.query_params["pg"] == "lab"
    assert at.selectbox(key="pg").options == ["Alignment", "Home", "Training lab"]
    at.selectbox(key="pg").set_value("home").run()
    assert "pg" not in at.query_params  # the default is left out of the URL


def test_choice_ui_ignores_an_unknown_id():
    at = AppTest.from_function(_choice_script, default_timeout=60)
    at.query_params["pg"] = "参考"
    at.run()
    assert at.selectbox(key="pg").value == "home" and "pg" not in at.query_params
