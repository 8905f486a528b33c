"""A headless student's class event stream, read as the page's listener reads it in the browser
(``app_pages/lessons/follow_events.py``): ``/live/events`` (:mod:`serve.class_events`), each
revision handed to the student, which asks its page to rerun only when it was drawn at an older
one; a dropped stream is opened again after a jittered pause; a refused one falls back to a slow,
jittered poll."""

from __future__ import annotations

import asyncio
import random
import urllib.parse
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.load.lecture_hall import HallStudent
    from bench.load.live_outcome import LiveOutcome

EVENTS_PATH = "/live/events"
STREAM_REOPEN_S = 3.0  # a dropped stream is opened again after about this (jittered)
POLL_FALLBACK_S = 10.0  # without a stream, the page asks this often (jittered), as the browser


async def _events(reader: asyncio.StreamReader) -> AsyncIterator[str]:
    """The events of a chunked ``text/event-stream`` body: each event's text."""
    buffer = ""
    while True:
        size_line = await reader.readline()
        if not size_line:
            return
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            return
        buffer += (await reader.readexactly(size + 2))[:-2].decode()
        while "\n\n" in buffer:
            event, buffer = buffer.split("\n\n", 1)
            yield event


async def listen(st: HallStudent, base: str, code: str, out: LiveOutcome) -> None:
    """The student's event stream until cancelled: each revision to :meth:`HallStudent.check`;
    opened again when dropped; refused: the slow poll instead."""
    parts = urllib.parse.urlsplit(base)
    query = urllib.parse.urlencode({"code": code, "me": st.me})
    while True:
        writer = None
        try:
            reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
            writer.write(
                f"GET {EVENTS_PATH}?{query} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                "Accept: text/event-stream\r\n\r\n".encode()
            )
            status = (await reader.readline()).split()
            while (await reader.readline()).strip():
                pass  # the headers
            if len(status) < 2 or status[1] != b"200":
                out.streams_refused += 1
                await poll(st)
                return
            async for event in _events(reader):
                lines = dict(line.split(": ", 1) for line in event.splitlines() if ": " in line)
                if lines.get("event") == "gone":
                    st.ask()
                    return
                if "data" in lines:
                    out.events += 1
                    st.latest = int(lines["data"])
                    st.check()
        except (OSError, ValueError, asyncio.IncompleteReadError):
            pass
        finally:
            if writer is not None:
                writer.close()
        await asyncio.sleep(STREAM_REOPEN_S * random.uniform(2 / 3, 4 / 3))


async def poll(st: HallStudent) -> None:
    """The listener's fallback: ask every POLL_FALLBACK_S, jittered."""
    while True:
        await asyncio.sleep(POLL_FALLBACK_S * random.uniform(2 / 3, 4 / 3))
        st.ask()
