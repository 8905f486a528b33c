"""What a person does, in real Chromium: open each page, type, press Enter, read the charts."""

from __future__ import annotations

import re

import pytest

from models.checkpoints import SHIPPED_ROOT
from tests.browser_helpers import shoot

pytestmark = pytest.mark.browser
CHART = '[data-testid="stPlotlyChart"]'


def _wait_for_app(page, n_charts: int = 1) -> None:
    """Wait until the script has finished and at least ``n_charts`` plotly charts are drawn."""
    page.wait_for_selector(f"{CHART} .main-svg")
    page.wait_for_function(f"document.querySelectorAll('{CHART} .main-svg').length >= {n_charts}")
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")


def _ticks(page, chart: int, axis: str = "x") -> list[str]:
    """Tick labels of one chart, read from the DOM."""
    return page.locator(CHART).nth(chart).locator(f".{axis}tick text").all_text_contents()


def _chart_titles(page) -> list[str]:
    return page.locator(f"{CHART} .gtitle").all_text_contents()


def test_home(page, app_url, screenshots):
    page.goto(app_url)
    page.get_by_role("heading", name="Attention atlas").wait_for()
    page.get_by_text("7. Transformer 2017").wait_for()
    for stage in ["Bahdanau 2015", "Luong 2015", "Show, Attend and Tell 2015", "Transformer 2017"]:
        assert page.get_by_text(stage, exact=False).count() >= 1
    page.locator('[data-testid="stSidebar"]').get_by_text("Device").wait_for()
    page.get_by_role("link", name="Attention anatomy").first.click()
    page.wait_for_url(re.compile(r"/anatomy"))
    _wait_for_app(page, 3)
    page.goto(app_url)
    page.get_by_text("7. Transformer 2017").wait_for()
    shoot(page, screenshots / "home.png", 1500)


def test_anatomy_temperature_and_url(page, app_url, screenshots):
    page.goto(f"{app_url}/anatomy")
    _wait_for_app(page, 3)
    assert _ticks(page, 0) == ["A", "B", "C", "D"]
    temperature = page.get_by_role("spinbutton", name="Temperature T")
    temperature.fill("1000000")
    temperature.press("Enter")
    page.wait_for_function(
        "[...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes('T = 1e+06'))"
    )
    page.wait_for_url(re.compile(r"anat_temp=1"))
    assert "almost uniform" in page.locator("body").inner_text()
    shoot(page, screenshots / "anatomy.png", 2600)
    url = page.url
    page.goto(url)  # a copied link reproduces the view
    _wait_for_app(page, 3)
    assert any("T = 1e+06" in t for t in _chart_titles(page))


def test_anatomy_preset_outside_the_fragment_reaches_the_stages(page, app_url):
    """The preset and the table live outside the stages' fragment: picking a preset reruns the
    page, and the stages must then use the new items (all keys equal: uniform weights), while a
    later temperature edit (a fragment rerun) keeps them."""
    page.goto(f"{app_url}/anatomy")
    _wait_for_app(page, 3)
    page.get_by_role("combobox", name="Preset").click()
    page.get_by_role("option", name="All keys equal").click()
    page.get_by_text("All scores are equal").wait_for()
    temperature = page.get_by_role("spinbutton", name="Temperature T")
    temperature.fill("3")
    temperature.press("Enter")
    page.wait_for_function(
        "[...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes('T = 3)'))"
    )
    assert page.get_by_text("All scores are equal").count() == 1


def test_anatomy_general_score_from_url(page, app_url):
    page.goto(f"{app_url}/anatomy?anat_score=general&anat_hard=true")
    _wait_for_app(page, 3)
    body = page.locator("body").inner_text()
    assert "Hard attention sampled item" in body
    page.get_by_role("button", name="Re-sample").click()
    page.get_by_text("(seed 1)").wait_for()
    page.wait_for_url(
        re.compile(r"anat_W=1%2C0%3B0%2C1")
    )  # the editable W, written back to the URL


def test_classroom_mode_survives_interaction(page, app_url):
    page.goto(f"{app_url}/anatomy")
    _wait_for_app(page, 3)
    page.locator('[data-testid="stSidebar"]').get_by_text("Classroom mode").click()
    page.wait_for_url(re.compile(r"classroom=true"))
    page.wait_for_function(
        "[...document.querySelectorAll('.gtitle')].some(t => parseFloat(t.style.fontSize) >= 20)"
    )
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_text("Device").count() == 1


def test_positional_encoding_sentence(page, app_url, screenshots):
    page.goto(f"{app_url}/positional_encoding")
    _wait_for_app(page, 4)
    assert any("64 positions" in t for t in _chart_titles(page))
    sentence = page.get_by_role("textbox", name="Sentence")
    sentence.fill("le chat noir dort ici")
    sentence.press("Enter")
    page.wait_for_function(
        "[...document.querySelectorAll('.xtick text')].some(t => t.textContent === 'noir')"
    )
    _wait_for_app(page, 4)
    checks = [
        t for t in page.locator(".annotation-text").all_text_contents() if "un-shuffling" in t
    ]
    plain, with_pe = (float(t.rsplit(": ", 1)[1]) for t in checks)
    assert plain < 1e-12 and with_pe > 1e-3
    xticks = [tick for i in range(page.locator(CHART).count()) for tick in _ticks(page, i)]
    assert {"le", "chat", "noir", "dort", "ici"} <= set(xticks)
    if all(
        (SHIPPED_ROOT / f"transformer-{p}" / "card.json").is_file()
        for p in ("sinusoidal", "learned")
    ):
        # the trained Transformers' position vectors, sinusoidal and learned, side by side
        page.wait_for_function(
            "[...document.querySelectorAll('.gtitle')].some(t => t.textContent.startsWith('Length'))"
        )
        titles = _chart_titles(page)
        assert "sinusoidal: cosine similarity of positions" in titles
        assert "learned: cosine similarity of positions" in titles
        assert "Length of each position's vector" in titles
    shoot(page, screenshots / "positional_encoding.png", 6600)


def test_positional_encoding_bad_sentence(page, app_url):
    page.goto(f"{app_url}/positional_encoding?pe_sentence=" + "x" * 2000)
    _wait_for_app(page, 3)
    assert "only the first 300 are used" in page.locator("body").inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
