"""The Why attention and Image captions pages in Simplified Chinese (``?lang=zh``).

AppTest (tiny random-weight checkpoints): the headers are Chinese, and no English word is left in
what the pages show: texts, widget labels and help, table headers, and the charts' titles, axes,
legends and hover text. Switching the language keeps the sentence and the scene.

Chromium (the shipped checkpoints where they exist, tiny ones otherwise): the rendered pages with
their default input and one typed input show no English word and no missing-glyph box, in the
page's text or in any SVG text node of its charts; switching to English and back keeps the input.

Left out, precisely: tokens (the sentence's pieces on the gradient chart, the translations the
models wrote, the scene vocabulary of the captions), model names, formulas (``$...$``, plotly's
``%{...}``), the names ``tests.test_i18n_app.KEPT`` lists, and Streamlit's own chrome.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from media.scenes import vocabulary_words
from models.captioning.checkpoint import CAPTION_MODELS
from tests.app_helpers import figures, open_app
from tests.browser_helpers import (
    CHART,
    assert_chinese,
    chart_hover_texts,
    english_left,
    is_shipped,
    link_checkpoints,
    served_fixtures,
    shipped_root,
    shown_texts,
    switch_language,
    wait_settled,
    wait_still,
)
from tests.tiny_captions import build_tiny_caption_checkpoints
from tests.tiny_seq2seq import build_tiny_checkpoints
from ui.translation import ALL_MODELS

WHY, CAPTIONS = "app_pages/why_attention/why_attention.py", "app_pages/captions/captions.py"
SEQ2SEQ = tuple(f"seq2seq-{kind}" for kind in ALL_MODELS)
SENTENCE = "A young girl is reading a book under a big tree."
# Names that stay as they are: the translators (none, bahdanau, luong-dot, ...), the data set
# (Multi30k), the Enter key, the captioner's parts and training (CNN, LSTM, REINFORCE), the file
# formats, log p.
MODEL_WORDS = {word for kind in ALL_MODELS for word in re.findall(r"[A-Za-z]{3,}", kind)}
WHY_KEPT = MODEL_WORDS | {"Multi", "Enter"}
FORMATS = {"PNG", "JPEG", "WebP", "JSON", "PDF", "GIF", "BMP", "TIFF", "SVG", "XML", "ZIP", "ICO"}
CAPTIONS_KEPT = set(vocabulary_words()) | FORMATS | {"CNN", "LSTM", "REINFORCE", "log"}
FORMULA = re.compile(r"\$[^$]*\$|%\{[^}]*\}|<[^>]*>")  # LaTeX, plotly placeholders, HTML tags


# ---------------------------------------------------------------- AppTest


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_zh"))
    return build_tiny_caption_checkpoints(root)


def _open(page: str, params: dict[str, str], lang: str = "zh") -> AppTest:
    """The app in ``lang``, then ``page`` with ``params`` in its URL (as a browser navigates)."""
    return open_app(page, params, {"lang": lang}, timeout=180)


def _figures(at: AppTest) -> list[dict]:
    return figures(at)


def _title(part: object) -> str:
    """A plotly title (a string, or a dict with 'text')."""
    return str(part.get("text", "")) if isinstance(part, dict) else str(part or "")


def _figure_texts(fig: dict) -> tuple[list[str], list[str]]:
    """(texts a person reads in ``fig``: titles, legends, hover text, slider and button labels;
    its tick labels, which are tokens on these pages' charts)."""
    layout = fig.get("layout", {})
    axes = [value for name, value in layout.items() if name.startswith(("xaxis", "yaxis"))]
    texts = [_title(layout.get("title")), _title(layout.get("legend", {}).get("title"))]
    texts += [_title(axis.get("title")) for axis in axes]
    texts += [s.get("currentvalue", {}).get("prefix", "") for s in layout.get("sliders", [])]
    texts += [b.get("label", "") for m in layout.get("updatemenus", []) for b in m["buttons"]]
    for trace in fig.get("data", []):
        texts += [str(trace.get(k, "")) for k in ("name", "hovertemplate")]
        texts += [str(v) for v in _flat(trace.get("text")) + _flat(trace.get("customdata"))]
    ticks = [str(t) for axis in axes for t in axis.get("ticktext", [])]
    ticks += [s["label"] for slider in layout.get("sliders", []) for s in slider["steps"]]
    return texts, ticks


def _flat(value: object) -> list:
    if isinstance(value, list):
        return [item for part in value for item in _flat(part)]
    return [] if value is None or isinstance(value, dict) else [value]


def _page_texts(at: AppTest) -> list[str]:
    """The texts, labels and help the page shows (the sidebar is the home area's)."""
    texts = [
        e.value
        for kind in (
            "title",
            "header",
            "subheader",
            "markdown",
            "caption",
            "info",
            "warning",
            "error",
        )
        for e in getattr(at.main, kind)
    ]
    for kind in (
        "text_input",
        "selectbox",
        "multiselect",
        "slider",
        "select_slider",
        "button",
        "button_group",
        "metric",
        "download_button",
        "file_uploader",
        "page_link",
    ):
        for widget in at.main.get(kind):
            proto = widget.proto
            texts += [getattr(proto, k, "") for k in ("label", "help", "placeholder", "caption")]
    texts += [
        str(col) for frame in [*at.main.dataframe, *at.main.table] for col in frame.value.columns
    ]
    texts += [img.caption for image in at.main.get("image") for img in image.proto.imgs]
    for fig in _figures(at):
        texts += _figure_texts(fig)[0]
    return [FORMULA.sub(" ", text) for text in texts if text]


def _outputs(at: AppTest) -> list[str]:
    """The two translations of the Why attention page: the text after each column's title."""
    values = [m.value for m in at.main.markdown]
    return [
        values[i + 1]
        for i, v in enumerate(values[:-1])
        if v.startswith("**无注意力") or v.startswith("**有注意力")
    ]


def test_why_attention_in_chinese(tiny):
    at = _open(WHY, {"why_text": SENTENCE, "why_ref": "une jeune fille lit un livre ."})
    assert at.title[0].value == "为什么需要注意力"
    headers = ["BLEU 随句子长度的变化", "你的句子：无注意力与有注意力", "梯度消失"]
    assert [h.value for h in at.header] == headers
    assert at.text_input(key="why_text").value == SENTENCE
    tokens = [t for fig in _figures(at) for t in _figure_texts(fig)[1]]
    outputs = _outputs(at)
    assert len(outputs) == 2 and tokens
    left = english_left(_page_texts(at), WHY_KEPT | english_left(tokens + outputs))
    assert not left, left
    assert any(link.proto.label == "多头注意力" for link in at.main.get("page_link"))


def test_image_captions_in_chinese(tiny):
    at = _open(CAPTIONS, {"cap_src": "compose", "cap_scene": "tree:30:20:64,car:40:80:64"})
    assert at.title[0].value.startswith("图像描述")
    assert [s.value for s in at.subheader][:3] == ["每个词的注意力", "图像描述", "逐词查看"]
    assert at.code[0].value == "a tree above a car"  # the caption: English tokens
    texts = _page_texts(at)
    assert not english_left(texts, CAPTIONS_KEPT), english_left(texts, CAPTIONS_KEPT)
    assert at.main.get("button_group")[0].options == ["示例场景", "自己摆放场景", "上传图像"]


def test_a_refused_upload_is_explained_in_chinese(tiny):
    at = _open(CAPTIONS, {"cap_src": "upload"})
    at.file_uploader(key="cap_upload").set_value(("x.png", b"%PDF-1.4 no", "image/png")).run()
    assert [e.value for e in at.error] == [
        "本页无法把这个文件当作图像读取（它看起来是 PDF 文档）：请上传 PNG、JPEG 或 WebP 图像。"
    ]
    assert not english_left(_page_texts(at), CAPTIONS_KEPT)


def test_switching_language_keeps_the_sentence_and_the_scene(tiny):
    at = _open(WHY, {"why_text": SENTENCE}, lang="en")
    at.multiselect(key="why_encoders").select("bahdanau").run()
    for lang, title in (("zh", "为什么需要注意力"), ("en", "Why attention")):
        at.sidebar.selectbox(key="lang").set_value(lang).run()
        assert not at.exception and at.title[0].value == title
        assert at.text_input(key="why_text").value == SENTENCE
        assert at.multiselect(key="why_encoders").value == ["none", "bahdanau"]
    scene = "tree:30:20:64,car:40:80:64"
    at = _open(CAPTIONS, {"cap_src": "compose", "cap_scene": scene, "cap_n": "7"}, lang="en")
    for lang in ("zh", "en"):
        at.sidebar.selectbox(key="lang").set_value(lang).run()
        assert not at.exception and at.code[0].value == "a tree above a car"
        assert at.main.get("button_group")[0].value == "compose"
        assert at.slider(key="cap_n").value == 7
        assert at.query_params["cap_scene"] == scene and at.query_params["cap_src"] == "compose"


# ---------------------------------------------------------------- Chromium


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped translators and captioners, tiny ones where one is missing."""
    if root := shipped_root([*SEQ2SEQ, *CAPTION_MODELS]):
        return root
    missing = tuple(kind for kind in ALL_MODELS if not is_shipped(f"seq2seq-{kind}"))
    tiny = build_tiny_caption_checkpoints(tmp_path_factory.mktemp("tiny"))
    if missing:
        build_tiny_checkpoints(tiny, attentions=missing)
    root = tmp_path_factory.mktemp("zh_checkpoints")
    return link_checkpoints(root, (*SEQ2SEQ, *CAPTION_MODELS), tiny)


url, tab = served_fixtures("streamlit_zh", 180_000)


def _check_chinese(page, kept: set[str]) -> None:
    """No English word other than ``kept`` and no missing-glyph box on the page or its charts."""
    texts = shown_texts(page) + chart_hover_texts(page)
    assert_chinese(texts, kept)


def _why_tokens(page) -> set[str]:
    """The tokens on the Why attention page: the sentence's pieces on the gradient chart and the
    two translations (the text after each column's title)."""
    ticks = page.locator(CHART).last.locator(".xtick text").all_text_contents()
    outputs = [
        page.locator('[data-testid="stColumn"]', has_text=title)
        .locator('[data-testid="stMarkdown"]')
        .nth(1)
        .inner_text()
        for title in ("无注意力", "有注意力")
    ]
    return english_left(ticks + outputs)


@pytest.mark.browser
def test_why_attention_page_in_chinese(tab, url):
    tab.goto(f"{url}/why_attention?lang=zh")
    wait_settled(tab, 2)
    assert tab.locator("h1").first.inner_text() == "为什么需要注意力"
    _check_chinese(tab, WHY_KEPT | _why_tokens(tab))
    box = tab.locator('[data-testid="stTextInput"] input').first  # the English sentence
    box.fill(SENTENCE)
    box.press("Enter")
    tab.wait_for_url("**why_text=*young*")
    tab.wait_for_function(  # the gradient chart shows the new sentence's pieces
        f"[...document.querySelectorAll('{CHART}')].pop().textContent.includes('girl')"
    )
    wait_still(tab, least=2)  # and the run has ended: the translations above it are the new ones
    _check_chinese(tab, WHY_KEPT | _why_tokens(tab))
    for name, code, title in (
        ("English", "en", "Why attention"),
        ("简体中文", "zh", "为什么需要注意力"),
    ):
        switch_language(tab, name, code)
        tab.locator("h1", has_text=title).wait_for()
        assert tab.locator('[data-testid="stTextInput"] input').first.input_value() == SENTENCE
    wait_settled(tab, 2)
    _check_chinese(tab, WHY_KEPT | _why_tokens(tab))


@pytest.mark.browser
def test_image_captions_page_in_chinese(tab, url, tmp_path: Path):
    tab.goto(f"{url}/captions?lang=zh")
    wait_settled(tab, 5)
    tab.wait_for_function(f"document.querySelectorAll('{CHART} image').length >= 4")
    assert tab.locator("h1").first.inner_text().startswith("图像描述")
    _check_chinese(tab, CAPTIONS_KEPT)
    tab.get_by_text("自己摆放场景").click()
    tab.wait_for_url("**cap_src=compose**")
    tab.get_by_text("a dog to the left of an apple").first.wait_for()  # the layout's caption
    wait_settled(tab, 5)
    _check_chinese(tab, CAPTIONS_KEPT)
    for name, code, title in (("English", "en", "Image captions"), ("简体中文", "zh", "图像描述")):
        switch_language(tab, name, code)
        tab.locator("h1", has_text=title).wait_for()
        assert "cap_src=compose" in tab.url
        codes = tab.locator('[data-testid="stCode"] code').all_text_contents()
        assert codes[0] == "a dog to the left of an apple"
    wait_settled(tab, 5)
    _check_chinese(tab, CAPTIONS_KEPT)
    (tmp_path / "broken.png").write_bytes(b"this is not a picture")
    tab.get_by_text("上传图像").click()
    tab.wait_for_url("**cap_src=upload**")
    tab.locator('input[type="file"]').set_input_files(str(tmp_path / "broken.png"))
    tab.get_by_text("本页无法把这个文件当作图像读取").wait_for()
    _check_chinese(tab, CAPTIONS_KEPT | {"broken"})  # the file's name, as the uploader shows it
