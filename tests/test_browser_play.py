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

from models.captioning.checkpoint import CAPTION_MODELS
from models.checkpoints import CHECKPOINTS_ENV
from tests.browser_helpers import (
    CHART,
    is_shipped,
    link_checkpoints,
    served_fixtures,
    served_with,
    wait_settled,
)
from tests.tiny_captions import build_tiny_caption_checkpoints
from tests.tiny_seq2seq import build_tiny_checkpoints
from ui.plotly_component import ENV
from viz.play import MIN_FPS

pytestmark = pytest.mark.browser
KINDS = ("local-m", "local-p", "luong-general")
PLAYER = ".atlas-plotly:has(.updatemenu-button)"  # a component chart with a play button
SAMPLES, SAMPLE_MS = 16, 150  # what the tests read while the chart plays: 2.4 s

# One sample of a playing chart: the player's attributes, the slider, and the numbers that move.
_SAMPLE = """host => {
  const gd = host.querySelector('.js-plotly-plot');
  const layout = gd.layout, shapes = layout.shapes || [], images = layout.images || [];
  const overlay = images.find(i => i.name === 'atlas-play-overlay');
  return {
    now: performance.now(), state: host.dataset.playState, position: Number(host.dataset.playPosition),
    draws: Number(host.dataset.playDraws), fps: Number(host.dataset.playFps || 0),
    slider: layout.sliders[0].active,
    window: shapes.length ? shapes[0].x0 : null,
    p_t: gd.data[1] && gd.data[1].x ? gd.data[1].x[0] : null,
    overlay: overlay ? overlay.opacity : null,
    fading: gd.data.some(t => typeof t.opacity === 'number' && t.opacity > 0 && t.opacity < 1),
    labels: [...host.querySelectorAll('.updatemenu-button text')].map(t => t.textContent),
  };
}"""
# The player has attached to the drawn chart and taken over its play buttons.
_TAKEN = """host => {
  const gd = host.querySelector('.js-plotly-plot');
  return !host.hasAttribute('data-drawing') && host.dataset.playState === 'paused' && !!gd
    && gd.layout.updatemenus.every(m => m.buttons.every(b => b.execute === false));
}"""
# The chart against the server's frame of the step its slider shows: every trace's numbers and the
# shapes equal, and no overlay left.
_EXACT = """host => {
  const DTYPES = {f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array,
                  i1: Int8Array, u4: Uint32Array, u2: Uint16Array, u1: Uint8Array};
  const plain = v => {  // plotly.py's {dtype, bdata} and typed arrays as flat arrays of numbers
    if (ArrayBuffer.isView(v)) return Array.from(v);
    if (Array.isArray(v)) return v.flatMap(plain);
    if (v && typeof v === 'object' && typeof v.bdata === 'string') return Array.from(
      new DTYPES[v.dtype](Uint8Array.from(atob(v.bdata), c => c.charCodeAt(0)).buffer));
    return [v];
  };
  const gd = host.querySelector('.js-plotly-plot');
  const step = gd.layout.sliders[0].active;
  const frame = gd._transitionData._frames[step];
  const indices = frame.traces || frame.data.map((_, i) => i);
  const same = (a, b) => JSON.stringify(plain(a)) === JSON.stringify(plain(b));
  const traces = indices.every((index, j) => ['x', 'y', 'z', 'source'].every(
    key => frame.data[j][key] === undefined || same(gd.data[index][key], frame.data[j][key])));
  const shapes = same((gd.layout.shapes || []).map(s => [s.x0, s.x1]),
                      ((frame.layout || {}).shapes || []).map(s => [s.x0, s.x1]));
  const overlay = (gd.layout.images || []).some(i => i.name === 'atlas-play-overlay');
  const diff = indices.flatMap((index, j) => ['x', 'y', 'z', 'source'].filter(
    key => frame.data[j][key] !== undefined && !same(gd.data[index][key], frame.data[j][key]))
    .map(key => [index, key, JSON.stringify(gd.data[index][key]).slice(0, 200), JSON.stringify(frame.data[j][key]).slice(0, 200)]));
  return {step, name: frame.name, traces, shapes, overlay, diff,
          opacities: gd.data.map(t => t.opacity === undefined ? 1 : t.opacity)};
}"""


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped models the two pages read, tiny ones standing in where one is missing."""
    root = tmp_path_factory.mktemp("play_checkpoints")
    missing = tuple(k for k in KINDS if not is_shipped(f"seq2seq-{k}"))
    tiny = (
        build_tiny_checkpoints(tmp_path_factory.mktemp("tiny"), kinds=missing) if missing else None
    )
    link_checkpoints(root, (f"seq2seq-{k}" for k in KINDS), tiny)
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


def _count_sent(page) -> list[str]:
    """The frames the page sends on its websockets (Streamlit's BackMsgs), as they are sent."""
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    return sent


def _samples(page, host) -> list[dict]:
    out = []
    for __ in range(SAMPLES):
        out.append(host.evaluate(_SAMPLE))
        page.wait_for_timeout(SAMPLE_MS)
    return out


def _press(host, label: str) -> None:
    host.locator(".updatemenu-button", has_text=label).first.click()


def _played(page, host, play: str, pause: str) -> tuple[list[dict], int, dict]:
    """Press ``play``, sample the chart, press ``pause``: (the samples, the websocket frames sent
    while it played, the chart just after the pause)."""
    sent = page.__sent
    page.wait_for_function(_TAKEN, arg=host.element_handle(), timeout=30_000)
    assert host.get_attribute("data-play-state") == "paused"
    assert sent, "the websocket listener saw none of Streamlit's messages"  # it can count
    before, drawn = len(sent), host.get_attribute("data-draws")
    _press(host, play)
    page.wait_for_function(
        "h => h.dataset.playState === 'playing'", arg=host.element_handle(), timeout=10_000
    )
    samples = _samples(page, host)
    during = len(sent) - before
    assert host.get_attribute("data-draws") == drawn  # the server's figure was not drawn again
    _press(host, pause)
    page.wait_for_function(
        "h => h.dataset.playState === 'paused'", arg=host.element_handle(), timeout=10_000
    )
    page.wait_for_timeout(300)
    return samples, during, host.evaluate(_EXACT)


def _assert_moved_and_stopped(page, host, samples: list[dict], during: int, exact: dict) -> None:
    """Frames advanced with in-betweens, fast enough, without a websocket message; the pause
    stopped on the server's frame of the step the slider shows, and it stays there."""
    positions = [s["position"] for s in samples]
    assert positions == sorted(positions) and positions[-1] > positions[0], positions
    assert any(p != int(p) for p in positions), positions  # in-between states
    assert samples[-1]["slider"] > samples[0]["slider"], samples  # the slider follows
    # the slider marks the step last reached (read while a step may be arriving: at most one off)
    assert all(abs(s["slider"] - s["position"]) < 1 for s in samples), samples
    draws = samples[-1]["draws"] - samples[0]["draws"]
    seconds = (samples[-1]["now"] - samples[0]["now"]) / 1000
    print(
        f"\n{page.url}: {draws / seconds:.1f} draws/s sampled, data-play-fps "
        f"{samples[-1]['fps']}, {during} websocket frames sent while playing"
    )
    assert samples[-1]["fps"] >= MIN_FPS, samples[-1]
    assert draws / seconds >= MIN_FPS, (draws, seconds)  # counted here too
    assert during == 0, f"{during} websocket frames sent while playing"
    assert exact["traces"] and exact["shapes"] and not exact["overlay"], exact["diff"]
    assert all(o == 1 for o in exact["opacities"] if o != 0), exact  # faded traces restored
    still = host.evaluate(_SAMPLE)
    page.wait_for_timeout(600)
    again = host.evaluate(_SAMPLE)
    assert still["position"] == again["position"] == exact["step"], (still, again)
    assert again["slider"] == exact["step"] and again["draws"] == still["draws"]


def test_local_window_slides_along_p_t(tab, url):
    tab.__sent = _count_sent(tab)
    tab.goto(f"{url}/local_attention")  # the default input: local-p on the first example
    wait_settled(tab, 3)
    host = tab.locator(PLAYER)
    assert host.count() == 1
    assert tab.get_by_text("the window slides along p_t").count() == 1
    samples, during, exact = _played(tab, host, "Play", "Pause")
    _assert_moved_and_stopped(tab, host, samples, during, exact)
    frames = host.evaluate(
        "h => h.querySelector('.js-plotly-plot')._transitionData._frames"
        ".map(f => [f.layout.shapes[0].x0, f.data[1].x[0]])"
    )
    windows = {w for w, __ in frames}
    centres = {p for __, p in frames}
    # the window and p_t took values between the frames' (it slid, not jumped)
    assert any(s["window"] not in windows for s in samples), samples
    assert any(s["p_t"] not in centres for s in samples), samples


def test_caption_crossfades_word_to_word(tab, url):
    tab.__sent = _count_sent(tab)
    tab.goto(f"{url}/captions")  # the default input: the first example scene
    wait_settled(tab, 6)
    tab.wait_for_function(f"document.querySelectorAll('{PLAYER}').length === 2")
    for index in range(2):  # the soft model's player, then the hard one's (its circles fade)
        host = tab.locator(PLAYER).nth(index)
        host.scroll_into_view_if_needed()
        samples, during, exact = _played(tab, host, "play", "pause")
        assert all(s["labels"] == ["❚❚ pause"] for s in samples), samples  # the button toggles
        _assert_moved_and_stopped(tab, host, samples, during, exact)
        # the next word's picture on top, neither absent nor opaque: a crossfade
        assert any(s["overlay"] is not None and 0 < s["overlay"] < 1 for s in samples), samples
        assert host.evaluate(_SAMPLE)["labels"] == ["▶ play"]
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
