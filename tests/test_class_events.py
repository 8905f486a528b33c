"""The class's event stream (serve/class_events.py) and how the app is launched with it
(serve/asgi.py through serve/launch.py): the stream's events from a watcher's notices, a student
check before any stream, and ``app.py`` served through the ASGI entry wherever it is started."""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from pathlib import Path

from live.notify import Seen
from serve import class_events, launch


def _run(coroutine):
    """``asyncio.run`` on a thread of its own: the test process may already run an event loop
    (a browser test's Playwright, in the same xdist worker)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


ROOT = Path(__file__).resolve().parents[1]


class FakeWatcher:
    """A watcher whose notices the test sends."""

    def __init__(self) -> None:
        self.told = None
        self.stopped = False

    def subscribe(self, code, callback):
        self.told = callback
        return lambda: setattr(self, "stopped", True)


async def _read(stream, count: int) -> list[str]:
    return [await anext(stream) for _ in range(count)]


def test_the_stream_says_each_revision_then_gone():
    async def play() -> tuple[list[str], FakeWatcher]:
        watcher = FakeWatcher()
        stream = class_events._stream(watcher, "BCDFGH")
        got = await _read(stream, 1)  # the browser's retry interval first
        watcher.told(Seen(3, False))
        got += await _read(stream, 1)
        watcher.told(Seen(4, False))
        watcher.told(Seen(5, True))  # only the latest of a burst is sent
        got += await _read(stream, 1)
        watcher.told(None)
        got += await _read(stream, 1)
        assert await anext(stream, "ended") == "ended"
        return got, watcher

    got, watcher = _run(play())
    assert got == [
        f"retry: {class_events.RETRY_MS}\n\n",
        "data: 3\n\n",
        "data: 5\n\n",
        "event: gone\ndata: -1\n\n",
    ]
    assert watcher.stopped


def test_an_idle_stream_sends_a_comment(monkeypatch):
    monkeypatch.setattr(class_events, "HEARTBEAT_S", 0.01)

    async def play() -> list[str]:
        stream = class_events._stream(FakeWatcher(), "BCDFGH")
        got = await _read(stream, 2)
        await stream.aclose()
        return got

    assert _run(play())[1] == ":\n\n"


def test_no_stream_without_a_student(monkeypatch):
    class Store:
        def student(self, code, me):
            return None

    monkeypatch.setattr(class_events, "_shared", lambda: (Store(), FakeWatcher()))

    class Request:
        def __init__(self, query: dict[str, str]) -> None:
            self.query_params = query

    for query in (
        {},
        {"code": "BCDFGH"},
        {"code": "nope", "me": "x"},
        {"code": "BCDFGH", "me": "x"},
    ):
        response = _run(class_events.class_events(Request(query)))
        assert response.status_code == 404, query


def test_app_py_is_served_through_the_asgi_entry(tmp_path: Path):
    assert launch.entry_script("app.py", ROOT) == launch.ASGI_ENTRY == "serve/asgi.py"
    assert launch.entry_script("app.py", tmp_path) == "app.py"  # a checkout without it
    assert launch.entry_script("bench/empty.py", ROOT) == "bench/empty.py"
    asgi = (ROOT / launch.ASGI_ENTRY).read_text()
    assert re.search(r"^app = App\(ROOT / \"app.py\", routes=routes\(\)\)$", asgi, re.M)
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert f'"run", "{launch.ASGI_ENTRY}"' in dockerfile
    makefile = (ROOT / "Makefile").read_text()
    assert f"streamlit run {launch.ASGI_ENTRY} --server.port" in makefile
