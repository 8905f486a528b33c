"""Every chart drawn by the chart component has a full-screen button: the chart alone, fitted to
the screen; Esc returns it to its place and its own height."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
IN_FULL = "() => document.fullscreenElement && document.fullscreenElement.querySelector('.js-plotly-plot')"
HEIGHT = "() => document.querySelector('.js-plotly-plot')._fullLayout.height"


def test_full_screen_and_back(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.set_default_timeout(60_000)
    page.goto(f"{app_url}/lessons?lesson=bahdanau&step=1")
    page.locator(".js-plotly-plot .main-svg").first.wait_for()
    button = page.locator(".atlas-fullscreen").first
    button.wait_for()
    assert button.get_attribute("title") == "Full screen (Esc to return)"
    own = page.evaluate(HEIGHT)
    button.click()
    page.wait_for_function(IN_FULL)
    page.wait_for_function(f"() => ({HEIGHT})() >= window.innerHeight - 10")
    assert page.evaluate(HEIGHT) > own
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.fullscreenElement")
    page.wait_for_function(f"() => ({HEIGHT})() === {own}")


def test_the_button_speaks_chinese(page, app_url):
    page.goto(f"{app_url}/lessons?lesson=bahdanau&step=1&lang=zh")
    button = page.locator(".atlas-fullscreen").first
    button.wait_for()
    assert button.get_attribute("title") != "Full screen (Esc to return)"
