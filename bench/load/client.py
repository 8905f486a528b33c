"""One headless student: a browser's conversation with the server, without the browser.

:class:`Session` loads the page over HTTP (the cookies a browser gets: Streamlit's XSRF cookie, a
proxy's affinity cookie), opens the websocket ``/_stcore/stream``, asks for the page, and then
changes one widget at a time, each change a rerun timed from the request to the ``script_finished``
of the run that served it. It keeps the widgets' values as the browser does (every value it has
set goes with each rerun, as long as the widget is still drawn with the same id; a widget the
page's last run did not draw loses its value) and follows the query string the server writes.
A form's fields are staged (:meth:`Session.stage`) and go with its submit button's click. Uploads
go as the uploader sends them: ask for URLs, PUT the file, then rerun with the uploader's state.

With ``auto_rerun`` the session also keeps the page's ``run_every`` fragments running as the
browser does (:class:`bench.load.protocol.AutoReruns`): while it reads, every fragment's timer
sends that fragment's rerun; :meth:`Session.listen` reads (and so follows the page) for a while.
``on_message`` sees every message the server sends. Everything waits at most ``timeout`` seconds.
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
# What the page's own script asks before it opens a websocket again after losing one (Streamlit's
# frontend: CONNECTED -> PINGING_SERVER -> CONNECTING): the checks, not the page again
RECONNECT_GETS = BROWSER_GETS[1:]
_REQUESTS = itertools.count()


class LoadError(RuntimeError):
    """A rerun that failed: the page showed an error, the server closed, or time ran out."""


class Session:
    """One student on one page (``page``: its url path) of the app at ``base`` (http://host:port).

    ``errors`` lists what went wrong (the page's error boxes, a missing widget), for the report."""

    def __init__(
        self,
        base: str,
        page: str,
        query: str = "",
        timeout: float = 120.0,
        *,
        auto_rerun: bool = False,
    ) -> None:
        self.base, self.page, self.query, self.timeout = base.rstrip("/"), page, query, timeout
        self.auto_rerun = auto_rerun
        self.widgets: dict[str, Widget] = {}
        self.drawn: frozenset[str] = frozenset()  # the keys the last run of the page drew
        self.errors: list[str] = []
        self.fragment_reruns = 0  # sent by the fragments' timers
        self.on_message: Callable[[ForwardMsg], None] | None = None
        self.timers = protocol.AutoReruns()
        self._states: dict[str, WidgetState] = {}
        self._drawing: set[str] = set()  # widget ids drawn by the run in progress
        self._in_fragment: dict[str, str] = {}  # widget key -> the fragment that drew it
        self._rerunning: frozenset[str] = frozenset()  # the fragments of the run in progress
        self._run_began: float | None = None  # when the page's unfinished run began
        self._http = requests.Session()
        self._gets = BROWSER_GETS  # what open() asks before the websocket
        self._ws: ClientConnection | None = None
        self._page_hash = ""
        self._session_id = ""

    # -- connection ----------------------------------------------------------------------------

    def reconnection(self) -> Session:
        """This page as the browser brings it back after its websocket was lost (a replica that
        died): a new session of the same page and query, in the same browser (its cookies: the
        proxy's affinity, the XSRF token), whose :meth:`open` does not load the page again."""
        again = Session(self.base, self.page, self.query, self.timeout, auto_rerun=self.auto_rerun)
        again._http.cookies.update(self._http.cookies)
        again._gets = RECONNECT_GETS
        return again

    async def open(self) -> float:
        """Load the page as a browser does (the HTML; the health and host checks, which set the
        XSRF cookie; then the websocket); the first run's seconds. A :meth:`reconnection` skips
        the HTML, as the page's script does."""
        for path in self._gets:
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

    def stage(self, key: str, value: object) -> None:
        """Give widget ``key`` the value ``value`` without a rerun (a form's field: it goes with
        the next rerun, the form's submit button's)."""
        self._states[key] = protocol.widget_state(self.widget(key), value)

    async def set(self, key: str, value: object) -> float:
        """Give widget ``key`` the value ``value`` (a label for a choice), as the browser sends it
        after a change: a rerun of the fragment that drew the widget (the whole page for a widget
        outside fragments); the rerun's seconds from request to finish."""
        self.stage(key, value)
        return await self._rerun(fragment=self._in_fragment.get(key, ""))

    def unfinished_for(self) -> float:
        """Seconds since a run of the page began that has not finished (0 when none): what a
        browser shows as a page still running."""
        return 0.0 if self._run_began is None else time.monotonic() - self._run_began

    async def listen(
        self, seconds: float, done: Callable[[ForwardMsg], bool] | None = None
    ) -> ForwardMsg | None:
        """Read what the server sends for ``seconds`` (keeping the fragments' timers going with
        ``auto_rerun``), or until a message that ``done`` accepts, which is returned."""
        return await self._read(done or (lambda _msg: False), time.monotonic() + seconds)

    async def trigger(self, state: WidgetState, fragment_id: str = "") -> None:
        """Send a component's trigger ``state`` as the browser does: a rerun of ``fragment_id``
        (the whole page when empty) with every value; the answer is read by :meth:`listen`."""
        await self._send(
            protocol.rerun_msg(
                [*self._current_states(), state],
                page_hash=self._page_hash,
                query=self.query,
                fragment_id=fragment_id,
                auto_rerun=False,
            )
        )

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

    async def _rerun(self, first: bool = False, fragment: str = "") -> float:
        """Ask for a rerun (of ``fragment`` only, where given) and read until the run that served
        it has finished (not another fragment's run, nor a run that had started before); its
        seconds."""
        data = protocol.rerun_msg(
            self._current_states(),
            page_name=self.page if first or not self._page_hash else "",
            page_hash=self._page_hash,
            query=self.query,
            fragment_id=fragment,
            auto_rerun=False,  # a widget's change, not a timer's
        )
        started: set[str] = set()  # the runs begun since the request that serve it

        def serves(msg: ForwardMsg) -> bool:
            if not fragment:
                return protocol.full_run(msg)
            return fragment in msg.metadata.run.fragment_ids

        def served(msg: ForwardMsg) -> bool:
            if msg.WhichOneof("type") not in ("new_session", "script_finished") or not serves(msg):
                return False
            if msg.WhichOneof("type") == "new_session":
                started.add(protocol.run_id(msg))
                return False
            return protocol.finished(msg) and bool(started) and protocol.run_id(msg) in started

        start = time.perf_counter()
        await self._send(data)
        await self._until(served)
        return time.perf_counter() - start

    async def _until(self, done: Callable[[ForwardMsg], bool]) -> ForwardMsg:
        """Read messages until one that ``done`` accepts; LoadError after ``timeout`` seconds or
        when the server closes."""
        msg = await self._read(done, time.monotonic() + self.timeout)
        if msg is None:
            raise LoadError(f"no answer within {self.timeout:.0f} s")
        return msg

    async def _read(self, done: Callable[[ForwardMsg], bool], until: float) -> ForwardMsg | None:
        """Read messages (noting widgets, errors, the query string and the page) until one that
        ``done`` accepts, or None at ``until`` (monotonic seconds); with ``auto_rerun``, send each
        fragment's rerun when its timer fires."""
        if self._ws is None:
            raise LoadError("not connected")
        while True:
            await self._fire_timers()
            now = time.monotonic()
            if now >= until:
                return None
            wake = min(until, self.timers.next_due() or until) if self.auto_rerun else until
            try:
                async with asyncio.timeout(wake - now):  # cancelling recv() loses nothing
                    data = await self._ws.recv()
            except TimeoutError:
                continue
            msg = protocol.parse(data)
            self._note(msg)
            if done(msg):
                return msg

    async def _fire_timers(self) -> None:
        """The fragments' reruns that are due, as their timers send them: with every value."""
        if not self.auto_rerun:
            return
        for fragment in self.timers.due(time.monotonic()):
            self.fragment_reruns += 1
            await self._send(
                protocol.rerun_msg(
                    self._current_states(),
                    page_hash=self._page_hash,
                    query=self.query,
                    fragment_id=fragment,
                )
            )

    def _note(self, msg: ForwardMsg) -> None:
        msg_type = msg.WhichOneof("type")
        if msg_type == "new_session":
            self._session_id = msg.new_session.initialize.session_id
            self._page_hash = msg.new_session.page_script_hash or self._page_hash
            if protocol.full_run(msg):
                self._drawing = set()
                self._run_began = time.monotonic()
            else:
                self._drawing = set()
                self._rerunning = frozenset(msg.metadata.run.fragment_ids)
        elif msg_type == "navigation":
            self._page_hash = msg.navigation.page_script_hash
        elif msg_type == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif msg_type == "page_not_found":
            self.errors.append(f"page not found: {self.page}")
        elif msg_type == "script_finished" and protocol.full_run(msg):
            self._run_began = None
            if protocol.finished(msg):
                self._forget_undrawn()
        elif msg_type == "script_finished" and protocol.finished(msg):
            self._fragments_drawn()
        for widget in protocol.widgets_in(msg):
            self.widgets[widget.key] = widget
            self._drawing.add(widget.id)
            self._in_fragment[widget.key] = msg.delta.fragment_id
        error = protocol.error_in(msg)
        if error:
            self.errors.append(error)
        self.timers.note(msg, time.monotonic())
        if self.on_message is not None:
            self.on_message(msg)

    def _fragments_drawn(self) -> None:
        """After a run of fragments only: the widgets those fragments drew replace the ones they
        drew before; the rest of the page stays as it was."""
        kept = {k for k in self.drawn if self._in_fragment.get(k) not in self._rerunning}
        fresh = {
            k
            for k, w in self.widgets.items()
            if w.id in self._drawing and self._in_fragment.get(k) in self._rerunning
        }
        self.drawn = frozenset(kept | fresh)

    def _forget_undrawn(self) -> None:
        """After a run of the page: the values of widgets it did not draw are dropped, as the
        browser drops them."""
        self.drawn = frozenset(k for k, w in self.widgets.items() if w.id in self._drawing)
        self._states = {k: s for k, s in self._states.items() if s.id in self._drawing}
