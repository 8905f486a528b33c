"""The Alignment page's "Does attention explain?" section in real Chromium: type a sentence, press
Enter, choose a French word in the section's select and see its panel (the three measures, the
correlations, the counterfactual outputs) follow, and the choice go into the URL.

The server reads the shipped Bahdanau checkpoint where it exists, else a tiny random-weight one
that writes a word at every step (tests/tiny_explain.py).
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest

from models.analysis.explain import explain
from models.rnn.translator import Translator
from models.subword_merge import group_pieces, word_text
from tests.browser_helpers import (
    CHART,
    is_shipped,
    link_checkpoints,
    served_fixtures,
    shipped_root,
    shoot,
    wait_settled,
    wait_still,
)
from tests.legibility import chart_problems, collect
from tests.tiny_explain import several_word_checkpoints
from viz.explain import rho_text

pytestmark = pytest.mark.browser
SENTENCE = "A man in a blue shirt is standing on a ladder and cleaning the windows."
METRIC = '[data-testid="stMetricValue"]'


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if root := shipped_root(["seq2seq-bahdanau"]):
        return root
    tiny = several_word_checkpoints(tmp_path_factory.mktemp("tiny"), attentions=("bahdanau",))
    root = tmp_path_factory.mktemp("explain_checkpoints")
    return link_checkpoints(root, ["seq2seq-bahdanau"], tiny)


url, tab = served_fixtures("streamlit_explain", 180_000)


def _wait_title(page, text: str) -> None:
    """Wait until a chart's title reads ``text`` and the rerun is over."""
    page.wait_for_function(
        f"() => [...document.querySelectorAll('{CHART} .gtitle')]"
        f".some(t => t.textContent === {text!r})",
        polling=200,
    )
    page.wait_for_function("!document.querySelector('[data-stale=true]')", polling=200)


def test_choosing_a_french_word_updates_the_panel(tab, url, checkpoints, screenshots):
    tab.goto(f"{url}/alignment")
    wait_settled(tab, 4)
    box = tab.get_by_role("textbox", name="English sentence")
    box.fill(SENTENCE)
    box.press("Enter")
    tr = Translator.load(checkpoints / "seq2seq-bahdanau")
    target = tr.translate(SENTENCE).target_tokens
    groups = group_pieces(target)
    words = [word_text(target, g) for g in groups]
    assert len(words) >= 3, words
    toggle = tab.get_by_text("Measure which words mattered")
    toggle.scroll_into_view_if_needed()
    toggle.click()
    _wait_title(tab, f"Which words mattered for “{words[0]}”?")
    tab.wait_for_url(re.compile(r"expl=true"))
    select = tab.locator('[data-testid="stSelectbox"]', has_text="French word to explain")
    select.scroll_into_view_if_needed()
    select.click()
    tab.get_by_role("option", name=f"3. {words[2]}", exact=True).click()
    step = groups[2][0]
    _wait_title(tab, f"Which words mattered for “{words[2]}”?")
    _wait_title(tab, f"Step {step}: the next piece")
    tab.wait_for_url(re.compile(r"expl_word=3"))
    ex = explain(tr, SENTENCE, target, step)
    shown = tab.locator(METRIC).all_text_contents()
    assert shown[-3:] == [rho_text(r) for r in (ex.rho_loo, ex.rho_grad, ex.rho_loo_grad)]
    chart = tab.locator(CHART).filter(has_text="Which words mattered")
    assert chart.locator(".xtick text").all_text_contents() == ex.source_words
    assert "most likely piece changed" in tab.locator('[data-testid="stTable"]').last.inner_text()
    if is_shipped("seq2seq-bahdanau"):
        chart.scroll_into_view_if_needed()
        shoot(tab, screenshots / "explain.png", 1000)


# 46 words, as the legibility judge's long input (tests/test_browser_legibility.py)
LONG = (
    "The old fisherman and his young grandson walked slowly along the quiet beach at sunrise, "
    "carrying two wooden baskets of fresh bread and ripe apples, while a small brown dog ran "
    "ahead of them and chased the white birds that rested near the cold blue waves."
)
SCREENS = [  # (width, height, classroom, language)
    (1280, 720, True, "en"),
    (1920, 1080, True, "en"),
    (1280, 800, False, "en"),
    (390, 844, False, "en"),
    (1280, 800, False, "zh"),
]


@pytest.mark.parametrize(("width", "height", "classroom", "lang"), SCREENS)
def test_the_sections_charts_are_legible(browser, url, width, height, classroom, lang):
    """tests/legibility.py's rules on this section's two charts, for a 46-word sentence."""
    params = {"aln_text": LONG, "expl_word": "3", "lang": lang}
    if classroom:
        params["classroom"] = "true"
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(180_000)
    try:
        page.goto(f"{url}/alignment?{urllib.parse.urlencode(params)}")
        page.wait_for_selector(".st-key-expl_counterfactual .main-svg")
        wait_still(page)
        charts = [c for c in collect(page) if c["key"].startswith("expl_")]
        assert sorted(c["key"] for c in charts) == ["expl_counterfactual", "expl_measures"]
        problems = [p for c in charts for p in chart_problems(c, classroom=classroom)]
        assert not problems, "\n".join(problems)
    finally:
        context.close()
