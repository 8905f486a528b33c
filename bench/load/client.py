"""One headless student: a browser's conversation with the server, without the browser.

:class:`Session` loads the page over HTTP (the cookies a browser gets: Streamlit's XSRF cookie, a
proxy's affinity cookie), opens the websocket ``/_stcore/stream``, asks for the page, and then
changes one widget at a time, each change a rerun timed from the request to ``script_finished``.
It keeps the widgets' values as the browser does (every value it has set goes with each rerun, as
long as the widget is still drawn with the same id) and follows the query string the server
writes. Uploads go as the uploader sends them: ask for URLs, PUT the file, then rerun with the
uploader's state. Everything waits at most ``timeout`` seconds.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import urllib.parse
from collections.abc import Callable

import requests
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect

from bench.load import protocol
from bench.load.protocol import Widget

XSRF_COOKIE = "_streamlit_xsrf"
BROWSER_GETS = ("/", "/_stcore/health", "/_stcore/host-config")  # before the websocket opens
_REQUESTS = itertools.count()


class LoadError(RuntimeError):
    """A rerun that failed: the page showed an error, the server closed, or time ran out."""


class Session:
    """One student on one page (``page``: its url path) of the app at ``base`` (http://host:port).

    ``errors`` lists what went wrong (the page's error boxes, a missing widget), for the report."""

    def __init__(self, base: str, page: str, query: str = "", timeout: float = 120.0) -> None:
        self.base, self.page, self.query, self.timeout = base.rstrip("/"), page, query, timeout
        self.widgets: dict[str, Widget] = {}
        self.errors: list[str] = []
        self._states: dict[str, WidgetState] = {}
        self._http = requests.Session()
        self._ws: ClientConnection | None = None
        self._page_hash = ""
        self._session_id = ""

    # -- connection ----------------------------------------------------------------------------

    async def open(self) -> float:
        """Load the page as a browser does (the HTML; the health and host checks, which set the
        XSRF cookie; then the websocket); the first run's seconds."""
        for path in BROWSER_GETS:
            await asyncio.to_thread(self._http.get, self.base + path, timeout=self.timeout)
        cookies = "; ".join(f"{c.name}={c.value}" for c in self._http.cookies)
        url = "ws" + self.base[len("http") :] + "/_stcore/stream"
        headers = {"Origin": self.base, **({"Cookie": cookies} if cookies else {})}
        self._ws = await connect(
            url,
            subprotocols=["streamlit"],
            additional_headers=headers,
            max_size=None,
            open_timeout=self.timeout,
        )
        return await self._rerun(first=True)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        self._http.close()

    # -- what a student does ---------------------------------------------------------------------

    def widget(self, key: str) -> Widget:
        """The widget drawn under ``key`` in the last run; LoadError when the page has none."""
        if key not in self.widgets:
            raise LoadError(f"the page drew no widget with key {key!r}")
        return self.widgets[key]

    async def set(self, key: str, value: object) -> float:
        """Give widget ``key`` the value ``value`` (a label for a choice), as the browser sends it
        after a change; the rerun's seconds from request to finish."""
        self._states[key] = protocol.widget_state(self.widget(key), value)
        return await self._rerun()

    async def click(self, key: str) -> float:
        """Press button ``key``; the rerun's seconds."""
        return await self.set(key, True)

    async def upload(self, key: str, name: str, data: bytes, mime: str) -> float:
        """Send a file to uploader ``key`` and rerun, as the browser does; the seconds from the
        first request to the run's end (the transfer included)."""
        widget = self.widget(key)
        start = time.perf_counter()
        request_id = f"load-{next(_REQUESTS)}"
        await self._send(protocol.file_urls_msg(request_id, self._session_id, [name]))
        msg = await self._until(
            lambda m: (
                m.WhichOneof("type") == "file_urls_response"
                and m.file_urls_response.response_id == request_id
            )
        )
        urls = msg.file_urls_response.file_urls[0]
        await asyncio.to_thread(self._put, urls.upload_url, name, data, mime)
        info = protocol.uploaded_info(urls, name, len(data))
        self._states[key] = protocol.widget_state(widget, [info])
        await self._rerun()
        return time.perf_counter() - start

    # -- internals -------------------------------------------------------------------------------

    def _put(self, upload_url: str, name: str, data: bytes, mime: str) -> None:
        url = urllib.parse.urljoin(self.base + "/", upload_url.lstrip("/"))
        headers = {"X-Xsrftoken": self._http.cookies.get(XSRF_COOKIE, "")}
        files = {"file": (name, data, mime)}
        resp = self._http.put(url, files=files, headers=headers, timeout=self.timeout)
        if resp.status_code >= 400:
            raise LoadError(f"upload refused with HTTP {resp.status_code}")

    async def _send(self, data: bytes) -> None:
        if self._ws is None:
            raise LoadError("not connected")
        await self._ws.send(data)

    def _current_states(self) -> list[WidgetState]:
        """The values set so far for widgets still drawn with the same id (a widget drawn anew
        starts from its default, as in the browser); a click is sent once."""
        states = [
            s for k, s in self._states.items() if k in self.widgets and self.widgets[k].id == s.id
        ]
        self._states = {
            k: s for k, s in self._states.items() if s.WhichOneof("value") != "trigger_value"
        }
        return states

    async def _rerun(self, first: bool = False) -> float:
        """Ask for a rerun and read until it has finished; its seconds."""
        data = protocol.rerun_msg(
            self._current_states(),
            page_name=self.page if first or not self._page_hash else "",
            page_hash=self._page_hash,
            query=self.query,
        )
        start = time.perf_counter()
        await self._send(data)
        await self._until(protocol.finished)
        return time.perf_counter() - start

    async def _until(self, done: Callable[[ForwardMsg], bool]) -> ForwardMsg:
        """Read messages (noting widgets, errors, the query string and the page) until one that
        ``done`` accepts; LoadError after ``timeout`` seconds or when the server closes."""
        if self._ws is None:
            raise LoadError("not connected")
        try:
            async with asyncio.timeout(self.timeout):
                while True:
                    msg = protocol.parse(await self._ws.recv())
                    self._note(msg)
                    if done(msg):
                        return msg
        except TimeoutError as exc:
            raise LoadError(f"no answer within {self.timeout:.0f} s") from exc

    def _note(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self._session_id = msg.new_session.initialize.session_id
            self._page_hash = msg.new_session.page_script_hash or self._page_hash
        elif kind == "navigation":
            self._page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            self.errors.append(f"page not found: {self.page}")
        for widget in protocol.widgets_in(msg):
            self.widgets[widget.key] = widget
        error = protocol.error_in(msg)
        if error:
            self.errors.append(error)
