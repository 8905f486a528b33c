"""AppTest: the Attention anatomy page in Chinese: its headers, text, widget labels and
help, options, table headers, chart titles, axes, legends and hover text; a link's ids (score,
preset) work in both languages; switching language keeps the view."""

from __future__ import annotations

import re

import pytest

from i18n import use_language
from tests.app_helpers import figures
from tests.test_i18n_app import _app, _open, english_words

ANATOMY = "app_pages/anatomy/anatomy.py"
# What stays as it is in Chinese (docs/glossary.md), word by word: the download formats, Luong's
# name of the general score beside its Chinese (双线性 (general)), the additive score's tanh.
KEPT = {"CSV", "JSON", "general", "tanh"}
PLOTLY_MARKUP = re.compile(r"%\{[^}]*\}|<[^>]*>")  # %{y:.3f}, <br>, <extra></extra>


def _page(params: dict[str, str]) -> object:
    return _open(_app({"lang": "zh"}), ANATOMY, {"lang": "zh", **params})


def _texts(at) -> list[str]:
    """Every text the page itself shows (not the sidebar: the home and sidebar areas')."""
    texts = [at.title[0].value, *(s.value for s in at.subheader), *(m.value for m in at.markdown)]
    texts += (
        [c.value for c in at.caption] + [i.value for i in at.info] + [w.value for w in at.warning]
    )
    for kind in ("selectbox", "number_input", "text_input", "toggle", "button"):
        for widget in at.main.get(kind):
            texts += [widget.label, widget.help or ""]
            texts += list(widget.options) if kind == "selectbox" else []  # shown labels
    texts += [button.proto.label for button in at.get("download_button")]
    return texts


def _chart_texts(at) -> list[str]:
    """Chart titles, axis titles, trace names and hover templates of every chart."""
    texts = []
    for spec in figures(at):
        layout = spec["layout"]
        texts += [layout.get("title", {}).get("text", "")]
        texts += [
            layout.get(axis, {}).get("title", {}).get("text", "") for axis in ("xaxis", "yaxis")
        ]
        for trace in spec["data"]:
            if trace.get("showlegend", True):
                texts.append(trace.get("name", ""))
            texts.append(PLOTLY_MARKUP.sub(" ", trace.get("hovertemplate", "")))
    return texts


def _english(texts: list[str]) -> set[str]:
    kept = {word.lower() for word in KEPT}
    return {w for text in texts for w in english_words(text) if w.lower() not in kept}


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"anat_score": "general", "anat_hard": "true"},
        {"anat_score": "additive", "anat_temp": "1000000"},
        {"anat_items": "1,1,1,0;1,1,0,1;1,1,-1,0", "anat_qx": "0", "anat_qy": "0"},
        {"anat_items": "1,0,1,0;0,1,0,1"},
    ],
)
def test_anatomy_in_chinese(params):
    at = _page(params)
    assert at.title[0].value == "注意力剖析"
    texts = _texts(at) + _chart_texts(at)
    assert not _english(texts), sorted(_english(texts))
    if "anat_score" in params or not params:
        assert [s.value for s in at.subheader] == [
            "第一阶段 · 分数",
            "第二阶段 · softmax 权重",
            "第三阶段 · 加权求和",
        ]
    assert at.number_input(key="anat_qx").label == "查询 x"


def test_anatomy_charts_and_table_in_chinese():
    at = _page({})
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert titles == ["分数 e_s", "权重 a_s (T = 1)", "查询、键、值与上下文向量"]
    first_row = [box.label for box in at.text_input if box.key.startswith("anat_items_cell_")][:4]
    assert first_row == ["键 x", "键 y", "值 x", "值 y"]  # the table's column names
    assert at.selectbox(key="anat_score").options == [
        "点积",
        "缩放点积",
        "双线性 (general)",
        "加性",
    ]


def test_links_keep_their_ids_in_both_languages():
    """AppTest reads a select's state through its format_func in the test's own thread: each run
    happens in the language the page is shown in (``use_language``), as a browser would send it."""
    at = _page({"anat_score": "scaled dot", "anat_preset": "All keys equal"})
    assert at.selectbox(key="anat_score").value == "scaled dot"
    assert at.selectbox(key="anat_preset").value == "All keys equal"
    with use_language("zh"):
        at.selectbox(key="anat_score").set_value("additive").run()
        assert at.query_params["anat_score"] == "additive"  # the id, not the label
        at.selectbox(key="anat_preset").set_value("A tiny temperature").run()
    assert at.number_input(key="anat_temp").value == 1e-6  # the preset applied
    assert at.query_params["anat_preset"] == "A tiny temperature"
    for shown, (lang, title) in zip(
        ("zh", "en"), (("en", "Attention anatomy"), ("zh", "注意力剖析")), strict=True
    ):
        with use_language(shown):
            at.sidebar.selectbox(key="lang").set_value(lang).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.title[0].value == title
        assert at.selectbox(key="anat_score").value == "additive"
        assert at.selectbox(key="anat_preset").value == "A tiny temperature"
        assert at.number_input(key="anat_temp").value == 1e-6
        assert at.query_params["anat_score"] == "additive"
