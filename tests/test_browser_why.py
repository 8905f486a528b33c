"""The Why attention page in real Chromium: its French reference follows the sentence in the box
(pick the long example, then type "Dog", and BLEU was still computed against the
example's French), and it opens on the sentence its rule chose, with the rule stated.

The server reads the shipped ``none`` and ``bahdanau`` translators where they exist and tiny
random-weight ones otherwise (``ATLAS_CHECKPOINTS``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app_pages.why_attention.example import first_example
from tests.browser_helpers import (
    is_shipped,
    link_checkpoints,
    served_fixtures,
    shipped_root,
    wait_still,
)
from tests.tiny_seq2seq import build_tiny_checkpoints
from ui.translation import EXAMPLE_PAIRS, EXAMPLES

pytestmark = pytest.mark.browser
ATTENTIONS = ("none", "bahdanau")
LONG = EXAMPLES[-1]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if root := shipped_root(f"seq2seq-{k}" for k in ATTENTIONS):
        return root
    missing = tuple(k for k in ATTENTIONS if not is_shipped(f"seq2seq-{k}"))
    tiny = (
        build_tiny_checkpoints(tmp_path_factory.mktemp("tiny"), attentions=missing)
        if missing
        else None
    )
    root = tmp_path_factory.mktemp("why_checkpoints")
    return link_checkpoints(root, (f"seq2seq-{k}" for k in ATTENTIONS), tiny)


url, tab = served_fixtures("streamlit_why")


def _box(page, label: str):
    return page.get_by_role("textbox", name=label)


def _metrics(page) -> int:
    return page.locator('[data-testid="stMetricValue"]').count()


def test_the_reference_follows_the_sentence(tab, url):
    tab.goto(f"{url}/why_attention")
    wait_still(tab)
    chosen = first_example()
    assert _box(tab, "English sentence").input_value() == chosen.source
    reference = _box(tab, "French reference (optional, for BLEU)")
    assert reference.input_value() == chosen.reference and _metrics(tab) == 2
    assert "chosen by a rule" in tab.locator("body").inner_text()

    picker = tab.get_by_role("combobox", name="…or pick an example from the test set")
    picker.click()
    picker.fill("strapless gown")  # the list filters down to LONG
    tab.get_by_role("option", name=LONG).click()
    tab.wait_for_function(
        "(want) => [...document.querySelectorAll('input')].some(i => i.value === want)",
        arg=EXAMPLE_PAIRS[LONG],
    )
    wait_still(tab)
    assert _metrics(tab) == 2

    box = _box(tab, "English sentence")
    box.fill("Dog")
    box.press("Enter")
    tab.get_by_text("belonged to the previous sentence").wait_for()
    wait_still(tab)
    assert reference.input_value() == ""  # the box the person sees, not only the session
    assert _metrics(tab) == 0  # no BLEU against the long example's French
    tab.wait_for_function(  # nor does a link copied now carry it
        "(old) => new URLSearchParams(location.search).get('why_ref') !== old",
        arg=EXAMPLE_PAIRS[LONG],
        polling=200,
    )
