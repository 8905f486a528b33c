"""The Why √d_k page in Chromium, in English and in Chinese (``?lang=zh``): the formulas render
(KaTeX), the eight charts draw, a typed sentence redraws the trained Transformer's entropies, and
in Chinese no English word is left on screen, in the charts' SVG text or their hover text other
than the formulas' names listed below; no missing-glyph box; switching to English and back keeps
the sentence and the chosen d_k.

The server reads the shipped Transformer checkpoints when both are there, else tiny
random-weight ones."""

from __future__ import annotations

import urllib.parse

import pytest

from models.checkpoints import SHIPPED_ROOT
from tests.browser_helpers import (
    CHART,
    assert_chinese,
    chart_hover_texts,
    checkpoints_fixture,
    served_fixtures,
    shoot,
    shown_texts,
    switch_language,
    transformers_shipped,
    wait_settled,
)
from tests.tiny_transformer import build_tiny_transformers

N_CHARTS = 8
TYPED = "the little girl is climbing the red stairs ."
# The formulas as KaTeX writes them (Attention(Q, K, V), softmax, Var, diag) and the paper cited.
FORMULA_NAMES = {"Attention", "softmax", "Var", "diag", "Vaswani"}
TITLES = {"en": "Why √d_k", "zh": "为什么除以 √d_k"}
BOX = {"en": "English sentence", "zh": "英文句子"}


checkpoints = checkpoints_fixture(transformers_shipped, build_tiny_transformers, "tiny_sdk_browser")
url, tab = served_fixtures("streamlit_sdk", 180_000)


def _model_titles(page) -> list[str]:
    """The titles of the trained-model heatmaps (the last three charts)."""
    charts = page.locator(CHART)
    return [charts.nth(i).locator(".gtitle").first.text_content() for i in range(5, N_CHARTS)]


def _type(page, code: str) -> None:
    box = page.get_by_role("textbox", name=BOX[code])
    box.fill(TYPED)
    box.press("Enter")
    page.wait_for_url("**sdk_text=**")
    wait_settled(page, N_CHARTS)
    assert box.input_value() == TYPED


def _check_drawn(page) -> None:
    """Three formulas rendered by KaTeX, every chart drawn with its traces."""
    assert page.locator(".katex").count() >= 3
    assert "softmax" in page.locator(".katex").first.inner_text()
    assert page.locator(f"{CHART} .main-svg").count() >= N_CHARTS
    page.wait_for_function(  # every chart has its data and plotly has laid it out
        "[...document.querySelectorAll('.js-plotly-plot')].filter("
        "gd => gd.data && gd.data.length && gd._fullLayout).length >= " + str(N_CHARTS),
        polling=200,
    )
    assert all(title for title in _model_titles(page))


def _check_chinese(page) -> None:
    texts = shown_texts(page) + chart_hover_texts(page)
    assert_chinese(texts, FORMULA_NAMES)


@pytest.mark.browser
def test_scaling_in_english(tab, url, checkpoints, screenshots):
    tab.goto(f"{url}/scaling")
    wait_settled(tab, N_CHARTS)
    tab.get_by_role("heading", name=TITLES["en"], exact=True).wait_for()
    _check_drawn(tab)
    _type(tab, "en")
    _check_drawn(tab)
    tab.get_by_text("its heads have d_k =", exact=False).first.wait_for()  # the model's note
    if checkpoints == SHIPPED_ROOT:
        shoot(tab, screenshots / "scaling.png", 3000)


@pytest.mark.browser
def test_scaling_in_chinese(tab, url):
    tab.goto(f"{url}/scaling?lang=zh&sdk_dims=16&sdk_dims=256")
    wait_settled(tab, N_CHARTS)
    tab.get_by_role("heading", name=TITLES["zh"], exact=True).wait_for()
    _check_drawn(tab)
    _check_chinese(tab)
    _type(tab, "zh")
    _check_drawn(tab)
    _check_chinese(tab)
    for name, code in (("English", "en"), ("简体中文", "zh")):
        switch_language(tab, name, code)
        tab.get_by_role("heading", name=TITLES[code], exact=True).wait_for()
        assert tab.get_by_role("textbox", name=BOX[code]).input_value() == TYPED
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(tab.url).query)
        assert query["sdk_dims"] == ["16", "256"] and query["sdk_text"] == [TYPED]
        wait_settled(tab, N_CHARTS)
    _check_chinese(tab)
