"""Motion in the browser: how many times a second the chart component's play behaviour draws
(``data-play-fps``, and the draws counted over the samples), on the Local attention page's window
and the captions' word-by-word player, against :data:`viz.play.MIN_FPS`.

A timing, so it is measured here and not asserted by the browser tests (they check what plays,
not how fast, with the same helpers, ``bench/playing.py``): the rate depends on the machine's load.
"""

from __future__ import annotations

from bench.browser import launch_chromium
from bench.register import Row, timing
from serve.launch import streamlit_server
from viz.play import MIN_FPS

PAGES = (
    ("local window", "local_attention", "Play", "Pause", 3),
    ("caption", "captions", "play", "pause", 6),
)


@timing
def play_rates() -> list[Row]:
    """Press play on each page's first player, sample it for 2.4 s, pause; one row each."""
    from playwright.sync_api import sync_playwright

    from bench.browser import wait_settled
    from bench.playing import PLAYER, count_sent, play_rate, played

    rows = []
    with sync_playwright() as playwright, streamlit_server("app.py") as (url, _):
        browser = launch_chromium(playwright)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.__sent = count_sent(page)
        for name, path, play, pause, charts in PAGES:
            page.goto(f"{url}/{path}")
            wait_settled(page, charts)
            host = page.locator(PLAYER).first
            host.scroll_into_view_if_needed()
            samples, during, _ = played(page, host, play, pause)
            rate = play_rate(samples)
            met = "met" if min(rate, samples[-1]["fps"]) >= MIN_FPS else "missed"
            rows.append(
                Row(
                    f"play in the browser: {name}",
                    f"{rate:.1f} draws/s",
                    f"data-play-fps {samples[-1]['fps']}; {during} websocket frames sent while "
                    f"playing; floor {MIN_FPS} draws/s: {met}",
                )
            )
        browser.close()
    return rows
