"""The translation pages in real Chromium: type a sentence, press Enter, wait for the charts, read
their tick labels, check the local window is drawn, and save the README screenshots.

The server reads the shipped checkpoints where they exist and tiny random-weight ones for the
others (``ATLAS_CHECKPOINTS``); screenshots are only saved from pages that showed trained models.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from pathlib import Path

import pytest

from models.rnn.seq2seq import ATTENTION_NAMES
from models.rnn.translator import Translator
from tests.browser_helpers import (
    CHART,
    is_shipped,
    link_checkpoints,
    served_fixtures,
    shipped_root,
    shoot,
    wait_settled,
)
from tests.requirements_env import IN_CI
from tests.tiny_seq2seq import build_tiny_checkpoints

pytestmark = pytest.mark.browser
ATTENTIONS = ATTENTION_NAMES  # every translator the pages offer
SENTENCE = "A black dog is running on the green grass."


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The root the server reads: each shipped checkpoint that exists (linked), tiny random-weight
    ones for the others, so the interaction is tested while training is still going."""
    missing = [k for k in ATTENTIONS if not is_shipped(f"seq2seq-{k}")]
    if missing and IN_CI:  # CI tests the shipped models; elsewhere tiny ones stand in
        pytest.fail(f"shipped checkpoints missing: {missing}")
    if root := shipped_root(f"seq2seq-{attention}" for attention in ATTENTIONS):
        return root
    tiny = (
        build_tiny_checkpoints(tmp_path_factory.mktemp("tiny"), attentions=tuple(missing))
        if missing
        else None
    )
    root = tmp_path_factory.mktemp("mixed_checkpoints")
    return link_checkpoints(root, (f"seq2seq-{attention}" for attention in ATTENTIONS), tiny)


def _shoot_if_real(page, path: Path, height: int, attentions: tuple[str, ...]) -> None:
    """Save the README screenshot only when the page showed trained models."""
    if all(is_shipped(f"seq2seq-{k}") for k in attentions):
        shoot(page, path, height)


url, tab = served_fixtures("streamlit_translation", 180_000)  # the CI machine also trains


def _ticks(page, chart: int, axis: str = "x") -> list[str]:
    return page.locator(CHART).nth(chart).locator(f".{axis}tick text").all_text_contents()


def test_alignment_enter_draws_the_heatmap_with_the_tokens(tab, url, checkpoints, screenshots):
    tab.goto(f"{url}/alignment")
    wait_settled(tab, 4)
    box = tab.get_by_role("textbox", name="English sentence")
    box.fill(SENTENCE)
    box.press("Enter")
    expected = Translator.load(checkpoints / "seq2seq-bahdanau").translate(SENTENCE)
    # the default sentence shares words with SENTENCE: wait for the whole new row of ticks
    want = json.dumps(expected.source_tokens)
    tab.wait_for_function(
        f"() => {{ const c = document.querySelectorAll('{CHART}')[0]; if (!c) return false; "
        "return JSON.stringify([...c.querySelectorAll('.xtick text')].map(t => t.textContent)) "
        f"=== JSON.stringify({want}); }}"
    )
    wait_settled(tab, 4)
    assert _ticks(tab, 0, "x") == expected.source_tokens
    assert _ticks(tab, 0, "y") == expected.target_tokens
    tab.wait_for_url(re.compile("aln_text=" + re.escape(urllib.parse.quote_plus("A black"))))
    _shoot_if_real(tab, screenshots / "alignment.png", 1750, ("bahdanau",))


def test_local_attention_window_and_play(tab, url, screenshots):
    query = urllib.parse.urlencode({"loc_text": SENTENCE, "loc_model": "local-p"})
    tab.goto(f"{url}/local_attention?{query}")
    wait_settled(tab, 3)
    steps = tab.locator(CHART).filter(has=tab.locator(".updatemenu-button"))  # the animated one
    assert steps.count() == 1
    assert steps.locator(".shapelayer path").count() >= 3  # the shaded window in each panel
    assert "step 0:" in steps.locator(".gtitle").first.text_content()
    steps.locator(".updatemenu-button").first.click()  # ▶ Play
    tab.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"] .gtitle')]"
        ".some(t => t.textContent.startsWith('step 2:'))"
    )
    steps.locator(".updatemenu-button").nth(1).click()  # ❚❚ Pause
    heat_titles = tab.locator(f"{CHART} .gtitle").all_text_contents()
    assert any("weights and p_t" in t for t in heat_titles)
    assert any("(global)" in t for t in heat_titles)
    _shoot_if_real(tab, screenshots / "local_attention.png", 2000, ("local-p", "luong-general"))


def test_why_attention_side_by_side_and_charts(tab, url, screenshots):
    tab.goto(f"{url}/why_attention")
    wait_settled(tab, 1)
    body = tab.locator("body").inner_text()
    assert "Without attention" in body and "With attention" in body
    assert tab.locator('[data-testid="stMetricValue"]').count() == 2  # BLEU vs the reference
    titles = tab.locator(f"{CHART} .gtitle").all_text_contents()
    assert any("h_T" in t for t in titles)
    _shoot_if_real(tab, screenshots / "why_attention.png", 2600, ("none", "bahdanau"))
