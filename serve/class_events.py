"""The live class's event stream: ``GET /live/events?code=CODE&me=TOKEN``, served beside
Streamlit's own routes (:mod:`serve.asgi`), tells a student's page each new revision of its
class (the teacher moved, revealed or ended it) as server-sent events, so that the page reruns
only when something changed (``ui/class_follow.py`` listens in the browser).

An idle stream costs no query and no thread: every stream of a process waits on the one
:class:`live.notify.Watcher` of that process (PostgreSQL ``LISTEN``, or SQLite's one cheap check
for all classes), which wakes them when the database says a class changed. The stream is a
student's: the code and the student's own token are checked once, when it opens (404 otherwise:
a guessed code learns nothing here that the join form does not say).

The events: ``data: REVISION`` when the stream opens and on each change; ``event: gone`` when the
class was deleted or expired (the stream then ends); a comment every :data:`HEARTBEAT_S` seconds,
so that a proxy or a phone's network keeps the connection and a closed one is noticed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator

import anyio
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from live.codes import normal_code
from live.notify import Seen, Watcher, open_watcher
from live.store import Store, open_store

_LOG = logging.getLogger(__name__)
EVENTS_PATH = "/live/events"
HEARTBEAT_S = 15.0
RETRY_MS = 2000  # the browser's wait before it opens a dropped stream again
TOKEN_CHARS = 200

_opened: tuple[Store, Watcher] | None = None
_opening = threading.Lock()


def _shared() -> tuple[Store, Watcher]:
    """This process's class store and watcher (opened on the first stream)."""
    global _opened
    with _opening:
        if _opened is None:
            store = open_store()
            _opened = (store, open_watcher())
        return _opened


def _event(seen: Seen | None) -> str:
    return "event: gone\ndata: -1\n\n" if seen is None else f"data: {seen.revision}\n\n"


async def _stream(watcher: Watcher, code: str) -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[Seen | None] = asyncio.Queue()

    def told(seen: Seen | None) -> None:  # the watcher's thread
        with contextlib.suppress(RuntimeError):  # the loop closed: the server is stopping
            loop.call_soon_threadsafe(inbox.put_nowait, seen)

    stop = watcher.subscribe(code, told)
    try:
        yield f"retry: {RETRY_MS}\n\n"
        while True:
            try:
                seen = await asyncio.wait_for(inbox.get(), HEARTBEAT_S)
            except TimeoutError:
                yield ":\n\n"
                continue
            while not inbox.empty():  # only the latest matters
                seen = inbox.get_nowait()
            yield _event(seen)
            if seen is None:
                return
    finally:
        stop()


async def class_events(request: Request) -> Response:
    """A student's stream of its class's revisions (module docstring); 404 for anyone else."""
    code = normal_code(request.query_params.get("code", "")[:20])
    me = request.query_params.get("me", "")[:TOKEN_CHARS]
    if not code or not me:
        return Response(status_code=404)
    try:
        store, watcher = await anyio.to_thread.run_sync(_shared)
        student = await anyio.to_thread.run_sync(store.student, code, me)
    except Exception:  # the store cannot be opened or read: the page polls slowly instead
        _LOG.exception("the class event stream could not read the class store")
        return Response(status_code=503)
    if student is None:
        return Response(status_code=404)
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}  # nginx: send at once
    return StreamingResponse(
        _stream(watcher, code), media_type="text/event-stream", headers=headers
    )


def routes() -> list[Route]:
    """The app's own routes, mounted beside Streamlit's."""
    return [Route(EVENTS_PATH, class_events, methods=["GET"])]
