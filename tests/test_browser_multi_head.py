"""The Multi-head attention page in real Chromium: type a sentence, press Enter, wait for the
charts, read the large head's tick labels (the tokens), toggle a head in the head view, and save
the README screenshot. A click on an overview panel and the hover link between the chosen head
and its lines: test_browser_multi_head_link.py.

The server reads the shipped Transformer checkpoints when both are there, else tiny random-weight
ones (``ATLAS_CHECKPOINTS``); the pretrained encoder is always the real all-MiniLM-L6-v2.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

from models.transformer.pretrained import PretrainedEncoder
from models.transformer.translator import TransformerTranslator
from tests.browser_helpers import (
    CHART,
    checkpoints_fixture,
    served_fixtures,
    shoot,
    transformers_shipped,
    wait_settled,
)
from tests.tiny_transformer import build_tiny_transformers

pytestmark = pytest.mark.browser
SENTENCE = "The black dog chased a ball across the park."
ZWSP = "\u200b"


# Not shipped yet (their training is pending): drive the page with tiny random-weight ones.
checkpoints = checkpoints_fixture(transformers_shipped, build_tiny_transformers, "tiny_mh_browser")
url, tab = served_fixtures("streamlit_mh")


def _chart(page, title: str):
    """The plotly chart whose title (its layout title, or the annotation the page's figures
    draw their titles with) or one of its panels' titles contains ``title``."""
    titles = page.locator(".gtitle, .annotation-text", has_text=title)
    return page.locator(CHART).filter(has=titles).first


def _ticks(chart, axis: str = "x") -> list[str]:
    texts = chart.locator(f".{axis}tick text").all_text_contents()
    return [t.replace(ZWSP, "") for t in texts]


def _wait_for_ticks(page, tokens: list[str]) -> None:
    """Some chart's x tick labels (zero-width spaces removed) are exactly ``tokens``."""
    page.wait_for_function(
        "(want) => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')].some(c =>"
        " JSON.stringify([...c.querySelectorAll('.xtick text')].map(t =>"
        " t.textContent.replaceAll('\\u200b', ''))) === JSON.stringify(want))",
        arg=tokens,
    )


def _type(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Sentence")
    box.fill(text)
    box.press("Enter")


def test_pretrained_head_ticks_toggle_and_screenshot(tab, url, screenshots):
    tab.goto(f"{url}/multi_head?mh_model=pretrained")
    wait_settled(tab, 4)
    _type(tab, SENTENCE)
    tokens = PretrainedEncoder.load().attend(SENTENCE).tokens
    _wait_for_ticks(tab, tokens)
    wait_settled(tab, 4)
    head = _chart(tab, f"layer 1, head 1 · {len(tokens)} queries x {len(tokens)} keys")
    assert _ticks(head, "x") == tokens
    assert _ticks(head, "y") == tokens  # every token a tick, top-down (tickmode "array")
    steps = _chart(tab, "1. Q·Kᵀ")  # the chosen head's computation, every key a column
    assert _ticks(steps, "x") == tokens
    lines = _chart(tab, "left: queries")
    assert lines.locator(".legendtext").count() == 12
    tab.get_by_role("button", name="head 3", exact=True).click()  # toggle head 3 off
    tab.wait_for_function(
        "() => [...document.querySelectorAll('.legendtext')].filter(t =>"
        " t.textContent.startsWith('head ')).length === 11"
    )
    legend = _chart(tab, "left: queries").locator(".legendtext").all_text_contents()
    assert "head 3" not in legend and "head 4" in legend
    tab.evaluate("document.querySelector('[data-testid=\"stMain\"]')?.scrollTo(0, 0)")
    shoot(tab, screenshots / "multi_head.png", 3000)


def test_transformer_cross_attention(tab, url, checkpoints):
    query = urllib.parse.urlencode({"mh_model": "transformer", "mh_kind": "cross"})
    tab.goto(f"{url}/multi_head?{query}")
    wait_settled(tab, 4)
    _type(tab, SENTENCE)
    expected = TransformerTranslator.load(checkpoints / "transformer-sinusoidal").translate(
        SENTENCE
    )
    _wait_for_ticks(tab, expected.source_tokens)
    wait_settled(tab, 4)
    head = _chart(tab, "layer 1, head 1 · ")
    assert _ticks(head, "x") == expected.source_tokens
    assert _ticks(head, "y") == expected.target_tokens


def _hover_cell(page, chart, subplot: str, row: int, col: int, shape: tuple[int, int]) -> str:
    """Move the mouse over cell (row, col) of the heatmap in ``subplot`` ("xy", "x4y4") of
    ``chart``, a (rows, cols) grid; the hover label's text."""
    area = chart.locator(f".draglayer .{subplot} .nsewdrag").first
    area.scroll_into_view_if_needed()
    box = area.bounding_box()
    x = box["x"] + (col + 0.5) * box["width"] / shape[1]
    y = box["y"] + (row + 0.5) * box["height"] / shape[0]
    page.mouse.move(x - 3, y - 3)
    page.mouse.move(x, y)
    label = chart.locator(".hoverlayer .hovertext")
    label.first.wait_for()
    return label.first.text_content()


def test_equations_and_the_masked_heads_steps_with_a_typed_sentence(tab, url, checkpoints):
    """The equations render as KaTeX; the typed sentence's tokens label the step matrices of the
    decoder's masked self-attention (Q·Kᵀ, ÷√d_k, the mask, softmax; V and the output); a hover
    on a cell names its query and key and gives its number."""
    tab.goto(f"{url}/multi_head?mh_model=transformer&mh_kind=decoder")
    wait_settled(tab, 4)
    _type(tab, SENTENCE)
    result = TransformerTranslator.load(checkpoints / "transformer-sinusoidal").translate(SENTENCE)
    tokens = result.decoder_input_tokens
    _wait_for_ticks(tab, tokens)
    wait_settled(tab, 6)
    formulas = " ".join(tab.locator(".katex").all_inner_texts())
    assert tab.locator(".katex-display").count() >= 6
    for word in ("Attention", "softmax", "MultiHead", "Concat", "head"):
        assert word in formulas, (word, formulas)
    steps = _chart(tab, "3. + M: −∞ (grey) where the key comes after the query")
    assert _ticks(steps, "x") == tokens
    rows = tokens[:12]
    assert _ticks(steps, "y") == rows
    assert "−∞" in steps.locator(".heatmaplayer text, text").all_text_contents()
    text = _hover_cell(tab, steps, "x4y4", 0, 0, (len(rows), len(tokens)))
    assert "query: <s>" in text and "key: <s>" in text and re.search(r"weight: 1\.0", text), text
    text = _hover_cell(tab, steps, "xy", 1, 0, (len(rows), len(tokens)))
    assert re.search(r"Q·Kᵀ: -?\d+\.\d", text) and tokens[1].replace("▁", "") in text, text
    values = _chart(tab, "a. V: each key's value vector")
    assert _ticks(values, "y") == tokens


def test_zero_width_only_sentence_is_a_message_not_an_exception(tab, url):
    """The deep link ?mh_model=transformer&mh_text=%E2%80%8B (a zero-width space alone), and then
    a typed sentence of a byte-order mark and a soft hyphen: each time the page says the sentence
    is empty, with no exception box and no chart."""
    empty = "The sentence is empty: type something"  # the page's message, not the model's
    tab.goto(f"{url}/multi_head?mh_model=transformer&mh_text=%E2%80%8B")
    tab.get_by_text(empty).wait_for()
    tab.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")
    assert tab.locator('[data-testid="stException"]').count() == 0
    assert tab.locator(CHART).count() == 0
    _type(tab, SENTENCE)
    wait_settled(tab, 4)
    assert tab.get_by_text(empty).count() == 0
    _type(tab, "\ufeff\u00ad")
    tab.get_by_text(empty).wait_for()
    tab.wait_for_function(f"document.querySelectorAll('{CHART}').length === 0")  # stale ones gone
    assert tab.locator('[data-testid="stException"]').count() == 0
