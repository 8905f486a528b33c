"""The Recurrent networks page in Chromium: the equations render (KaTeX), the five diagrams and
the live charts draw; a typed sentence (Enter, kept in the URL) redraws the three live views — the
bidirectional GRU's hidden states, its update and reset gates, and the gradient of the plain RNN,
the LSTM and the GRU — with the typed sentence's tokens on their axes. With the shipped
checkpoints it saves the README's screenshot (``recurrent.png``).

The server reads the shipped checkpoints when ``seq2seq-bahdanau`` and the three
``rnn-encoder-*`` are all there, else tiny random-weight ones."""

from __future__ import annotations

import pytest

from models.checkpoints import SHIPPED_ROOT
from models.rnn.cells import encoder_trace
from models.rnn.translator import Translator
from tests.browser_helpers import CHART, checkpoints_fixture, served_fixtures, shoot, wait_settled
from tests.tiny_recurrent import ENCODER_CELLS, build_tiny_recurrent

N_CHARTS = (
    11  # five diagrams, two hidden-state heatmaps, the gate means, two gate heatmaps, gradient
)
TYPED = "the little girl is climbing the red stairs ."
# (part of the chart's title, what it shows): the page's three live views
LIVE = {
    "hidden state h_t, forward": "hidden states",
    "per word": "update and reset gates",
    "log scale": "gradient of RNN, LSTM and GRU",
}
NAMES = ("seq2seq-bahdanau", *(f"rnn-encoder-{cell_type}" for cell_type in ENCODER_CELLS))


def recurrent_shipped() -> bool:
    return all((SHIPPED_ROOT / name / "card.json").is_file() for name in NAMES)


checkpoints = checkpoints_fixture(recurrent_shipped, build_tiny_recurrent, "tiny_rc_browser")
url, tab = served_fixtures("streamlit_rc", 180_000)


def _chart(page, title_part: str):
    return page.locator(CHART).filter(has=page.locator(".gtitle", has_text=title_part)).first


def _x_ticks(chart) -> list[str]:
    return chart.locator(".xtick text").all_text_contents()


def _check_live(page, tokens: list[str]) -> None:
    """Each live view is drawn with every token of the sentence on its x axis."""
    for title in LIVE:
        chart = _chart(page, title)
        chart.wait_for()
        assert _x_ticks(chart) == tokens, (title, _x_ticks(chart))
    gradient = _chart(page, "log scale")
    assert gradient.locator(".legendtext").all_text_contents() == ["RNN", "LSTM", "GRU"]
    assert gradient.locator(".scatterlayer .trace").count() == 3


@pytest.mark.browser
def test_recurrent_page_types_a_sentence(tab, url, checkpoints, screenshots):
    tab.goto(f"{url}/recurrent")
    wait_settled(tab, N_CHARTS)
    tab.get_by_role("heading", name="Recurrent networks", exact=True).wait_for()
    katex = tab.locator(".katex-display")
    assert katex.count() >= 6  # RNN, deep, bidirectional, the chain rule, LSTM, GRU
    assert "tanh" in katex.first.inner_text()
    assert tab.locator(f"{CHART} .main-svg").count() >= N_CHARTS
    translator = Translator.load(checkpoints / "seq2seq-bahdanau")
    default = tab.get_by_role("textbox", name="English sentence").input_value()
    _check_live(tab, encoder_trace(translator, default).tokens)

    box = tab.get_by_role("textbox", name="English sentence")
    box.fill(TYPED)
    box.press("Enter")
    tab.wait_for_url("**rc_text=**")
    typed = encoder_trace(translator, TYPED).tokens
    tab.wait_for_function(
        "t => [...document.querySelectorAll('.xtick text')].some(e => e.textContent === t)",
        arg=typed[1],
    )
    wait_settled(tab, N_CHARTS)
    _check_live(tab, typed)
    tab.get_by_text("backward ←h", exact=True).click()
    tab.wait_for_url("**rc_dir=backward**")
    _chart(tab, "update gate z_t, backward").wait_for()
    if checkpoints == SHIPPED_ROOT:  # trained models: the README's screenshot
        shoot(tab, screenshots / "recurrent.png", 6000)
