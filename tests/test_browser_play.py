"""The chart component's play behaviour (components/atlas-plotly/.../play.js) in real Chromium, on
the Local attention page's step chart and the Captions page's word player: press play, and the
chart moves through in-between states (the window slides along p_t; a word's picture crossfades
into the next) at 15 or more draws a second, the slider follows, nothing is sent to the server
while it plays (the websocket's frames are counted), pause stops it on a step that is exactly the
server's frame, and the slider and the shown step agree.

The server reads the shipped checkpoints where they exist and tiny random-weight ones otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.playing import (
    PLAYER,
    SAMPLE,
    TAKEN,
    assert_moved_and_stopped,
    count_sent,
    played,
)
from models.captioning.checkpoint import CAPTION_MODELS
from models.checkpoints import CHECKPOINTS_ENV
from tests.browser_helpers import (
    CHART,
    is_shipped,
    link_checkpoints,
    served_fixtures,
    served_with,
    shipped_root,
    wait_settled,
)
from tests.tiny_captions import build_tiny_caption_checkpoints
from tests.tiny_seq2seq import build_tiny_checkpoints
from ui.plotly_component import ENV

pytestmark = pytest.mark.browser
ATTENTIONS = ("local-m", "local-p", "luong-general")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped models the two pages read, tiny ones standing in where one is missing."""
    if root := shipped_root([*(f"seq2seq-{k}" for k in ATTENTIONS), *CAPTION_MODELS]):
        return root
    root = tmp_path_factory.mktemp("play_checkpoints")
    missing = tuple(k for k in ATTENTIONS if not is_shipped(f"seq2seq-{k}"))
    tiny = (
        build_tiny_checkpoints(tmp_path_factory.mktemp("tiny"), attentions=missing)
        if missing
        else None
    )
    link_checkpoints(root, (f"seq2seq-{k}" for k in ATTENTIONS), tiny)
    captions = None
    if not all(is_shipped(name) for name in CAPTION_MODELS):
        captions = build_tiny_caption_checkpoints(tmp_path_factory.mktemp("tiny_captions"))
    return link_checkpoints(root, CAPTION_MODELS, captions)


url, tab = served_fixtures("streamlit_play", 180_000)


@pytest.fixture(scope="module")
def url_off(checkpoints: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app served with the chart component turned off (``ATLAS_PLOTLY_COMPONENT=0``)."""
    old = os.environ.get(ENV)
    os.environ[ENV] = "0"
    try:
        log = tmp_path_factory.mktemp("streamlit_play_off") / "server.log"
        with served_with(CHECKPOINTS_ENV, checkpoints, log) as base:
            yield base
    finally:
        os.environ.pop(ENV, None)
        if old is not None:
            os.environ[ENV] = old


def test_local_window_slides_along_p_t(tab, url):
    tab.__sent = count_sent(tab)
    tab.goto(f"{url}/local_attention")  # the default input: local-p on the first example
    wait_settled(tab, 3)
    host = tab.locator(PLAYER)
    assert host.count() == 1
    assert tab.get_by_text("the window slides along p_t").count() == 1
    samples, during, exact = played(tab, host, "Play", "Pause")
    assert_moved_and_stopped(tab, host, samples, during, exact)
    frames = host.evaluate(
        "h => h.querySelector('.js-plotly-plot')._transitionData._frames"
        ".map(f => [f.layout.shapes[0].x0, f.data[1].x[0]])"
    )
    assert len(frames) > 1
    # it slid, not jumped: the player drew states between two steps (its own count, whatever
    # moments the samples caught on a slow machine)
    assert int(host.get_attribute("data-play-between")) > 0


def test_the_pages_step_follows_the_chart(tab, url):
    """Local attention's two step controls, the page's slider and the chart's play
    slider, went their own ways. The step the chart comes to rest on (here: its slider clicked
    near the end) becomes the page's step: its slider, its numbers and the link."""
    tab.goto(f"{url}/local_attention")
    wait_settled(tab, 3)
    host = tab.locator(PLAYER)
    tab.wait_for_function(TAKEN, arg=host.element_handle(), timeout=30_000)
    host.locator(".slider-rail-touch-rect").scroll_into_view_if_needed()
    rail = host.locator(".slider-rail-touch-rect").bounding_box()
    tab.mouse.click(rail["x"] + rail["width"] * 0.8, rail["y"] + rail["height"] / 2)
    tab.wait_for_function("h => Number(h.dataset.playStep) > 0", arg=host.element_handle())
    step = int(host.get_attribute("data-play-step"))
    tab.wait_for_url(f"**loc_step={step}**")
    wait_settled(tab, 3)
    page_slider = tab.get_by_test_id("stSlider").filter(has_text="Target step")
    assert page_slider.get_by_test_id("stSliderThumbValue").inner_text() == str(step)
    assert tab.get_by_text(f"Step {step}: p_t =").count() == 1
    # the chart, drawn again by the server at that step, still shows it
    tab.wait_for_function(TAKEN, arg=host.element_handle(), timeout=30_000)
    assert host.evaluate(SAMPLE)["slider"] == step


def test_caption_crossfades_word_to_word(tab, url):
    tab.__sent = count_sent(tab)
    tab.goto(f"{url}/captions")  # the default input: the first example scene
    wait_settled(tab, 6)
    tab.wait_for_function(f"document.querySelectorAll('{PLAYER}').length === 2")
    for index in range(2):  # the soft model's player, then the hard one's (its circles fade)
        host = tab.locator(PLAYER).nth(index)
        host.scroll_into_view_if_needed()
        samples, during, exact = played(tab, host, "play", "pause")
        # the button toggles (the last sample may come after the player reached its last frame)
        playing = [s for s in samples if s["state"] == "playing"]
        assert playing and all(s["labels"] == ["❚❚ pause"] for s in playing), samples
        assert_moved_and_stopped(tab, host, samples, during, exact)
        # the next word's picture on top, neither absent nor opaque: a crossfade
        assert any(s["overlay"] is not None and 0 < s["overlay"] < 1 for s in samples), samples
        assert host.evaluate(SAMPLE)["labels"] == ["▶ play"]
        # the hard model's sampled cells differ from word to word: its circles fade out and in
        assert any(s["fading"] for s in samples) == (index == 1), samples


def test_without_the_component_plotlys_own_play_remains(tab, url_off):
    """st.plotly_chart draws the step chart: its own animate buttons play it, step by step."""
    tab.goto(f"{url_off}/local_attention")
    wait_settled(tab, 3)
    assert tab.locator(".atlas-plotly").count() == 0
    assert tab.get_by_text("the window slides along p_t").count() == 0
    steps = tab.locator(CHART).filter(has=tab.locator(".updatemenu-button"))
    assert "step 0:" in steps.locator(".gtitle").first.text_content()
    steps.locator(".updatemenu-button", has_text="Play").click()
    tab.wait_for_function(
        "() => [...document.querySelectorAll('.gtitle')].some(t => t.textContent.startsWith('step 2:'))"
    )
    steps.locator(".updatemenu-button", has_text="Pause").click()


def test_under_reduced_motion_play_shows_the_steps_without_motion(tab, url):
    """WCAG 2.3.3: with the system's "reduce motion" on, play shows step after step and nothing
    in between (every sample is one of the server's frames: no sliding window, no crossfade)."""
    tab.emulate_media(reduced_motion="reduce")
    try:
        tab.__sent = count_sent(tab)
        tab.goto(f"{url}/local_attention")
        wait_settled(tab, 3)
        host = tab.locator(PLAYER)
        samples, __, __ = played(tab, host, "Play", "Pause")
        frames = host.evaluate(
            "h => h.querySelector('.js-plotly-plot')._transitionData._frames"
            ".map(f => [f.layout.shapes[0].x0, f.data[1].x[0]])"
        )
        assert len(samples) > 1
        assert all([s["window"], s["p_t"]] in frames for s in samples), samples
        assert host.get_attribute("data-play-between") == "0"  # no state between two steps
    finally:
        tab.emulate_media(reduced_motion="no-preference")
