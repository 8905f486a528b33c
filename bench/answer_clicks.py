"""Students answering in a live class, click after click: is every answer shown as saved?

A class on the Bahdanau lesson at its first question (step 2), ``pages`` students joined through
the store, each on their own page (phones and laptops in turn) of one app server. Round after
round, each student clicks another option and waits for the page's "Saved: <option>"; a round
ends after a pause of 0-1 s (seeded). A click whose "Saved:" does not come within ``WAIT_MS`` is
lost: a screenshot is kept (``runs/answer-clicks/``), the page reloaded, and the rounds go on. Each page also follows the
class every second (its timed fragment), so the clicks meet that fragment's runs at every phase.

This measured Streamlit's fragment race (docs/deployment.md, "A second race"): 6 of 1,890 clicks
lost before ``ui.errors.fragment`` drew timed fragments alone in a container, 0 of 1,830 after.

    .venv/bin/python -m bench.answer_clicks [rounds] [pages]     # default 300 rounds, 3 pages
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

LESSON, STEP = "bahdanau", 2  # a question: the sentence's English words are the options
WORDS = ("black", "dog", "green", "grass")  # options of that question
WAIT_MS = 10_000


@dataclass(frozen=True)
class Clicks:
    made: int
    lost: int


def word_for(round_: int, student: int) -> str:
    """The option student ``student`` clicks in round ``round_``: another one each round, and
    students side by side on different options."""
    return WORDS[(round_ + student) % len(WORDS)]


def click_rounds(browser, url: str, rounds: int, pages: int, shots: Path, seed: int = 0) -> Clicks:
    """``rounds`` rounds of clicks by ``pages`` students of a new class on the server at
    ``url`` (its class store is this process's ``ATLAS_CLASS_DIR``)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from live.store import open_store

    store = open_store()
    try:
        info, __ = store.create_class(LESSON, STEP)
        students = [store.join(info.code, f"s{i}") for i in range(pages)]
    finally:
        store.close()
    shown = f"Step {STEP} of"
    opened = []
    for i, student in enumerate(students):
        size = {"width": 390, "height": 844} if i % 2 == 0 else {"width": 1280, "height": 800}
        page = browser.new_page(viewport=size)
        page.set_default_timeout(60_000)
        page.goto(f"{url}/join?code={info.code}&me={student.id}")
        page.get_by_text(shown, exact=False).first.wait_for()  # (the live region says it too)
        opened.append(page)
    pause = random.Random(seed)
    lost = 0
    for r in range(rounds):
        for s, page in enumerate(opened):
            word = word_for(r, s)
            try:
                page.locator("[data-testid=stButtonGroup] button").filter(
                    has_text=word
                ).first.click(timeout=WAIT_MS)
                page.get_by_text(f"Saved: {word}", exact=False).wait_for(timeout=WAIT_MS)
            except PlaywrightTimeout:
                lost += 1
                page.screenshot(path=str(shots / f"lost-{r}-{s}.png"))
                page.reload()
                page.get_by_text(
                    shown, exact=False
                ).first.wait_for()  # (the live region says it too)
        time.sleep(pause.random())  # 0-1 s between rounds
    for page in opened:
        page.close()
    return Clicks(rounds * pages, lost)


def main(rounds: int, pages: int) -> None:
    from playwright.sync_api import sync_playwright

    from bench.browser import launch_chromium
    from serve.launch import streamlit_server

    shots = Path("runs/answer-clicks")
    shots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as classes:
        os.environ["ATLAS_CLASS_DIR"] = classes  # the server's store and this process's
        with sync_playwright() as playwright, streamlit_server("app.py") as (url, __):
            browser = launch_chromium(playwright)
            clicks = click_rounds(browser, url, rounds, pages, shots)
            browser.close()
    print(f"answer clicks: {clicks.made} made, {clicks.lost} lost (no 'Saved:' in 10 s)")
    if clicks.lost:
        print(f"the pages as they were: {shots}/lost-*.png")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*(args + [300, 3][len(args) :]))
