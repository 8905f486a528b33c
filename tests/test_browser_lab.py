"""The Training lab in real Chromium: open a link with a small configuration, press Train, wait
for the run to end, read the probe heatmap's tick labels, scrub the timeline back to step 0, play
the probe's map through the snapshots (in the browser: no websocket frame while it plays), scrub
forward again, save the README screenshot; then start a long run and cancel it.

The training is real: the server's worker processes train the small model on its CPU."""

from __future__ import annotations

import pytest

from bench.playing import PLAYER, assert_moved_and_stopped, count_sent, played
from models.lab.tasks import probe_example
from tests.browser_helpers import CHART, shoot, wait_settled

pytestmark = pytest.mark.browser
SMALL = "lab_len=6&lab_steps=300&lab_bi=false"  # learns reverse in ~10 s, and shows it
TINY = "lab_len=4&lab_hidden=32&lab_bi=false"
TIMELINE = "Timeline: scrub through training"
TRAIN_WAIT_MS = 360_000
ZWSP = "\u200b"


def _chart(page, title: str):
    """The plotly chart whose title contains ``title``."""
    return page.locator(CHART).filter(has=page.locator(".gtitle", has_text=title)).first


def _ticks(chart, axis: str) -> list[str]:
    return [t.replace(ZWSP, "") for t in chart.locator(f".{axis}tick text").all_text_contents()]


def test_train_scrub_play_and_screenshot(page, app_url, screenshots):
    page.__sent = count_sent(page)
    page.goto(f"{app_url}/lab?{SMALL}&lab_seed=21")
    page.get_by_role("button", name="Train", exact=True).click()
    # the run has ended: the results are drawn. In a full suite the two runs share the cores with
    # other workers' browsers and servers and take many times longer than alone: the wait is for
    # the work, not a timing (timings are `make bench`'s)
    page.get_by_text(TIMELINE).wait_for(timeout=TRAIN_WAIT_MS)
    wait_settled(page, 4)
    heatmap = _chart(page, "Attention at step 300")
    heatmap.wait_for()
    probe = probe_example("reverse", 6)
    assert _ticks(heatmap, "x") == [*probe.source, "</s>"]
    assert _ticks(heatmap, "y") == [*probe.target, "</s>"]
    assert _chart(page, "True alignment").is_visible()
    assert page.get_by_text("GRU, no attention").first.is_visible()
    thumb = page.get_by_role("slider", name=TIMELINE)
    thumb.focus()
    page.keyboard.press("Home")
    _chart(page, "Attention at step 0").wait_for()
    wait_settled(page, 4)
    host = page.locator(PLAYER)  # the probe's map plays through the snapshots in the browser
    assert host.count() == 1
    host.scroll_into_view_if_needed()
    samples, during, exact = played(page, host, "play", "pause")
    assert_moved_and_stopped(page, host, samples, during, exact)
    assert exact["step"] > 0
    thumb.focus()  # the play button took the focus
    page.keyboard.press("End")
    _chart(page, "Attention at step 300").wait_for()
    wait_settled(page, 4)
    page.evaluate("document.querySelector('[data-testid=\"stMain\"]')?.scrollTo(0, 0)")
    shoot(page, screenshots / "lab.png", 2600)


def test_cancel_a_run(page, app_url):
    page.goto(f"{app_url}/lab?{TINY}&lab_steps=3000&lab_seed=22")
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Run 1 of 2").wait_for()  # the progress bar: training has started
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text("Cancelled.").wait_for()
    assert page.get_by_role("button", name="Train", exact=True).is_enabled()
    assert page.get_by_text("Run 1 of 2").count() == 0
