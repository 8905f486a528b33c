"""Reading a playing chart (the chart component's play behaviour, play.js) in real Chromium:
press its play button, sample what it draws, count the websocket frames sent meanwhile, pause,
and check that it stopped on the server's frame of the step its slider shows.

Shared by ``make bench`` (``bench/scenarios_play.py``, which measures how fast it plays against
:data:`viz.play.MIN_FPS`) and the browser tests (which check what plays, not how fast: a timing
depends on the machine's load)."""

from __future__ import annotations

PLAYER = ".atlas-plotly:has(.updatemenu-button)"  # a component chart with a play button
SAMPLES, SAMPLE_MS = 16, 150  # what the tests read while the chart plays: 2.4 s

# One sample of a playing chart: the player's attributes, the slider, and the numbers that move.
SAMPLE = """host => {
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
TAKEN = """host => {
  const gd = host.querySelector('.js-plotly-plot');
  return !host.hasAttribute('data-drawing') && host.dataset.playState === 'paused' && !!gd
    && gd.layout.updatemenus.every(m => m.buttons.every(b => b.execute === false));
}"""
# The chart against the server's frame of the step its slider shows: every trace's numbers and the
# shapes equal, and no overlay left.
EXACT = """host => {
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


def count_sent(page) -> list[str]:
    """The frames the page sends on its websockets (Streamlit's BackMsgs), as they are sent."""
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    return sent


def sampled(page, host) -> list[dict]:
    """Up to ``SAMPLES`` samples, ``SAMPLE_MS`` apart, while the chart plays (on a busy machine
    each sample takes longer, and a short player may reach its last frame first)."""
    out = []
    for __ in range(SAMPLES):
        out.append(host.evaluate(SAMPLE))
        if out[-1]["state"] != "playing":
            break
        page.wait_for_timeout(SAMPLE_MS)
    return out


def press(host, label: str) -> None:
    """Click the chart's button ``label``. Forced: while the chart plays, plotly draws the button
    anew with every frame, so it never holds still for Playwright's wait for a stable element."""
    host.locator(".updatemenu-button", has_text=label).first.click(force=True)


def _press_while_playing(page, host, label: str) -> None:
    """Press ``label`` (pause) unless the chart reaches its last frame first: a single play
    button reads "pause" only while it plays."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        host.locator(".updatemenu-button", has_text=label).first.click(force=True, timeout=10_000)
    except PlaywrightTimeout:
        assert host.get_attribute("data-play-state") == "paused", "no pause button while playing"


def played(page, host, play: str, pause: str) -> tuple[list[dict], int, dict]:
    """Press ``play``, sample the chart, press ``pause``: (the samples, the websocket frames sent
    while it played, the chart just after the pause)."""
    sent = page.__sent
    page.wait_for_function(TAKEN, arg=host.element_handle(), timeout=30_000)
    assert host.get_attribute("data-play-state") == "paused"
    assert sent, "the websocket listener saw none of Streamlit's messages"  # it can count
    before, drawn = len(sent), host.get_attribute("data-draws")
    press(host, play)
    # polled every 100 ms, not at each animation frame: a busy machine's Chromium may hold back
    # a tab's animation frames for seconds while the chart plays
    page.wait_for_function(
        "h => h.dataset.playState === 'playing'",
        arg=host.element_handle(),
        timeout=10_000,
        polling=100,
    )
    samples = sampled(page, host)
    during = len(sent) - before
    # the draws read before the state: a redraw only follows a rest
    redrawn = int(host.get_attribute("data-draws")) - int(drawn)
    rested = host.get_attribute("data-play-state") != "playing"
    if rested:
        # it reached its last step while sampled (a slow machine) and came to rest there: the
        # step it sends back then (play.js, rested: the page's step follows) is not sent while
        # playing, and the page's figure for that step may already be drawn
        during = max(0, during - 1)
    # the server's figure was not drawn again while the chart played
    assert redrawn <= (1 if rested else 0), (redrawn, rested)
    if host.get_attribute("data-play-state") == "playing":
        _press_while_playing(page, host, pause)
    page.wait_for_function(
        "h => h.dataset.playState === 'paused'",
        arg=host.element_handle(),
        timeout=10_000,
        polling=100,
    )
    page.wait_for_timeout(300)
    return samples, during, host.evaluate(EXACT)


def play_rate(samples: list[dict]) -> float:
    """Draws per second over ``samples`` (counted from the player's data-play-draws)."""
    draws = samples[-1]["draws"] - samples[0]["draws"]
    return draws / ((samples[-1]["now"] - samples[0]["now"]) / 1000)


def assert_moved_and_stopped(page, host, samples: list[dict], during: int, exact: dict) -> None:
    """Frames advanced with in-betweens, without a websocket message (the rate is printed); the pause
    stopped on the server's frame of the step the slider shows, and it stays there."""
    positions = [s["position"] for s in samples]
    assert positions == sorted(positions) and positions[-1] > positions[0], positions
    assert any(p != int(p) for p in positions), positions  # in-between states
    assert samples[-1]["slider"] > samples[0]["slider"], samples  # the slider follows
    # the slider marks the step last reached: at most one off, or ahead while the step it shows is
    # arriving (reached by the next sample: a slow machine skips steps, and plotly moves the
    # slider before the player has marked its new position), or one behind a step just reached
    # (the player marked the step before plotly moved the slider, which it has by the next sample)
    for sample, after in zip(samples, [*samples[1:], None], strict=True):
        arriving = after is not None and sample["position"] < sample["slider"] <= after["position"]
        lagging = (
            after is not None
            and sample["position"] == int(sample["position"])
            and sample["slider"] == sample["position"] - 1
            and after["slider"] >= sample["position"]
        )
        assert abs(sample["slider"] - sample["position"]) < 1 or arriving or lagging, samples
    print(
        f"\n{page.url}: {play_rate(samples):.1f} draws/s sampled, data-play-fps "
        f"{samples[-1]['fps']}, {during} websocket frames sent while playing"
    )
    assert play_rate(samples) > 0 and samples[-1]["fps"] > 0, samples[-1]  # it drew while playing
    assert during == 0, f"{during} websocket frames sent while playing"
    assert exact["traces"] and exact["shapes"] and not exact["overlay"], exact["diff"]
    assert all(o == 1 for o in exact["opacities"] if o != 0), exact  # faded traces restored
    still = host.evaluate(SAMPLE)
    page.wait_for_timeout(600)
    again = host.evaluate(SAMPLE)
    assert still["position"] == again["position"] == exact["step"], (still, again)
    assert again["slider"] == exact["step"] and again["draws"] == still["draws"]
