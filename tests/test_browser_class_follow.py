"""A student's page follows the teacher by the class's event stream, not by a timer: in real
Chromium against the app as it is served (``serve/asgi.py``), an idle student's page sends the
server nothing (no rerun) while the class stays still, and shows the teacher's next step when the
teacher moves. Without the stream (refused, as behind a proxy that does not pass it), the page
still follows, by its slow jittered poll."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from live.store import Store, open_store
from tests.server import served_with

pytestmark = pytest.mark.browser
LESSON = "self-attention"
FOLLOW_MS = 15_000  # a page that listens shows a move within this (the machine may be busy)
POLL_FOLLOW_MS = 60_000  # by the fallback's poll (every 10 s, jittered by a third)
IDLE_MS = 4_000  # the old page reran its fragment every second: four reruns here
HIDDEN_MS = 15_000  # the fallback's longest wait between polls is 13.3 s
SETTLED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning'
    && app.getAttribute('data-test-connection-state') === 'CONNECTED'
    && !document.querySelector('[data-stale="true"]');
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    folder = tmp_path_factory.mktemp("classes")
    log = tmp_path_factory.mktemp("server") / "server.log"
    with served_with("ATLAS_CLASS_DIR", folder, log) as url:
        store = open_store(f"sqlite:///{Path(folder) / 'classes.sqlite3'}")
        yield url, store
        store.close()


def _student_page(browser, url: str, store: Store, refuse_stream: bool = False):
    """A class at step 1 and one student's page on it, in a context of its own; (context, page,
    frames sent, code, teacher key)."""
    info, key = store.create_class(LESSON)
    student = store.join(info.code, "ann")
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    page.set_default_timeout(120_000)
    if refuse_stream:
        page.route("**/live/events**", lambda route: route.fulfill(status=404, body=""))
    sent: list[object] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    page.goto(f"{url}/join?code={info.code}&me={student.id}")
    page.get_by_text("Step 1 of 6", exact=False).first.wait_for()
    page.wait_for_function(SETTLED)
    return context, page, sent, info.code, key


def test_an_idle_students_page_sends_nothing_and_follows_a_move(browser, served):
    url, store = served
    context, page, sent, code, key = _student_page(browser, url, store)
    page.wait_for_function("document.documentElement.dataset.atlasFollow === 'stream'")
    page.wait_for_function(SETTLED)
    before = len(sent)
    page.wait_for_timeout(IDLE_MS)  # the window measured: nothing may happen in it
    assert len(sent) == before, f"an idle page sent {len(sent) - before} messages"
    store.set_step(code, key, 2)
    page.get_by_text("Step 2 of 6", exact=False).first.wait_for(timeout=FOLLOW_MS)
    page.wait_for_function(SETTLED)
    assert page.evaluate("document.documentElement.dataset.atlasFollow") == "stream"
    marks = page.evaluate("({...document.documentElement.dataset})")
    assert int(marks.get("atlasFollowAsks", 0)) >= 1 and "atlasFollowPolls" not in marks
    store.end_class(code, key)
    page.get_by_text("The teacher ended the class", exact=False).first.wait_for(timeout=FOLLOW_MS)
    context.close()


HIDE = """(hidden) => {
  Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => hidden ? 'hidden' : 'visible'});
  document.dispatchEvent(new Event('visibilitychange'));
}"""
ASKS = "Number(document.documentElement.dataset.atlasFollowAsks || 0)"


def test_without_the_stream_the_page_follows_by_its_slow_poll(browser, served):
    url, store = served
    context, page, sent, code, key = _student_page(browser, url, store, refuse_stream=True)
    page.wait_for_function("document.documentElement.dataset.atlasFollow === 'poll'")
    store.set_step(code, key, 2)
    page.get_by_text("Step 2 of 6", exact=False).first.wait_for(timeout=POLL_FOLLOW_MS)
    page.wait_for_function(SETTLED)
    page.evaluate(HIDE, True)  # a hidden tab does not poll
    asks = page.evaluate(ASKS)
    page.wait_for_timeout(HIDDEN_MS)  # the window measured: longer than the longest poll wait
    assert page.evaluate(ASKS) == asks
    store.set_step(code, key, 3)
    page.evaluate(HIDE, False)  # shown again: it looks at once
    page.get_by_text("Step 3 of 6", exact=False).first.wait_for(timeout=FOLLOW_MS)
    assert page.evaluate(ASKS) > asks
    context.close()
