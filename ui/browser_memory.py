"""What this browser remembers for the app between its sessions: a cookie, written by a tiny
components-v2 script and read back on the server from the request that opened the session.

A Streamlit session ends with its page: a reload, or a server that died (the browser reconnects,
through the proxy, to another one) starts a new session with empty session state. A value the
page must find again there (the live class's teacher key, a student's anonymous id) is kept in a
cookie: ``remember(name, value)`` writes it (``path=/; SameSite=Strict``, ``Secure`` on https;
never in the URL, never drawn on the page), ``recalled(name)`` reads it, ``forget(name)`` clears
it. Writing draws the script (at the sidebar's end), so a page writes in its script's run, not in
a widget's callback.

The browser sends its cookies once, when the session's connection opens (``st.context.cookies``),
so a value written or cleared during a session is read back from session state for the rest of
it. Under AppTest the script does nothing (AppTest has no browser) and :func:`browser_cookies`,
the one place cookies are read, is what a test replaces to play a browser's cookies.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping

import streamlit as st

from ui import plotly_component
from ui.script_component import script_component

DAY_S = 24 * 3600
WRITTEN = "browser_memory"  # session state: name -> value written (None: cleared) this session
SESSION = "browser_memory_session"  # session state: a random mark of this session
_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")
_VALUE = re.compile(r"[A-Za-z0-9._-]{1,300}")  # codes, URL-safe secrets: nothing to escape
# The page's document, not the component's shadow root: a cookie of the whole site (path=/),
# Secure where the page is served over https.
COOKIE_JS = """
export default function (component) {
  const { data, parentElement } = component;
  const doc = parentElement.ownerDocument || document;
  const secure = doc.location && doc.location.protocol === "https:" ? "; Secure" : "";
  // it draws nothing, and says so on its element (bench/register.py's CHARTS_DRAWN)
  const host = parentElement.host || parentElement;
  (host.closest('[data-testid="stBidiComponentRegular"]') || host).setAttribute("data-draws-nothing", "");
  for (const [name, value, maxAge] of (data && data.cookies) || []) {
    doc.cookie = `${name}=${value}; path=/; max-age=${maxAge}; SameSite=Strict${secure}`;
  }
}
"""


def browser_cookies() -> Mapping[str, str]:
    """The cookies this browser sent when the session opened (none under AppTest, whose
    stand-in client has none: tests replace this function)."""
    return {} if plotly_component._under_apptest() else st.context.cookies


def recalled(name: str) -> str | None:
    """The value remembered as ``name`` in this browser; None when there is none."""
    written = st.session_state.get(WRITTEN, {})
    if name in written:
        return written[name]
    value = browser_cookies().get(name)
    return value if isinstance(value, str) and _VALUE.fullmatch(value) else None


def remember(name: str, value: str, max_age_s: int = DAY_S) -> None:
    """Keep ``value`` as ``name`` in this browser for ``max_age_s`` seconds (ValueError unless
    both are plain: letters, digits, ``._-``)."""
    if not _NAME.fullmatch(name) or not _VALUE.fullmatch(value):
        raise ValueError("a cookie's name and value are letters, digits and ._- only")
    if name not in st.session_state.get(WRITTEN, {}) and browser_cookies().get(name) == value:
        return  # the browser sent it when this session opened: it holds it already
    _write(name, value, max_age_s)


def forget(name: str) -> None:
    """Clear ``name`` in this browser."""
    if not _NAME.fullmatch(name):
        raise ValueError("a cookie's name is letters, digits and _ only")
    _write(name, None, 0)


def _write(name: str, value: str | None, max_age_s: int) -> None:
    """Record the value for this session and send the cookie to the browser in this run (the
    same cookie again is harmless). The script draws nothing; it sits at the sidebar's end,
    where its element's row takes no room from the page (folded away, it still runs)."""
    st.session_state.setdefault(WRITTEN, {})[name] = value
    if plotly_component._under_apptest():
        return
    mount = _mount()
    if mount is None:
        return
    cookie = [name, value or "", max(int(max_age_s), 0)]
    # the session's own mark in the data: the browser keeps a mounted component (and does not
    # run its script again) while its data is the same, also across a reconnection; a new
    # session (a reload, another replica) writes the cookie again
    session = st.session_state.setdefault(SESSION, secrets.token_hex(8))
    with st.sidebar:
        mount(key=f"browser_memory_{name}", data={"cookies": [cookie], "session": session})


def _mount() -> Callable | None:
    return script_component(
        "atlas_browser_memory", COOKIE_JS, "nothing is remembered beyond the session"
    )
