"""How a student's page learns that the teacher moved, revealed or ended the class: a tiny
components-v2 script listens to the class's event stream (:mod:`serve.class_events`, on the
page's own origin) and asks for a rerun of the page (a trigger) only when the class's revision
differs from the one the page was drawn at. An idle student's page sends nothing and runs nothing.
It is mounted in the fragment that holds the class's view, so that its ask reruns that view only;
a page that reconnected to another replica has a new session there, in which no fragment exists
until the page has run (Streamlit 1.67 does not rerun an idle page on reconnecting), and there
the ask runs the whole page (:mod:`serve.fresh_sessions`).

Where the stream cannot be had (the app served as ``streamlit run app.py``, a proxy that does not
pass it, a browser without ``EventSource``), or while it is down (a replica died: the browser
opens it again after a jittered wait), the script falls back to asking every
:data:`POLL_S` seconds, jittered by a third either way so that a hall's phones do not ask in the
same second, and never from a hidden tab; a tab shown again asks at once. A change that arrives
while the tab is hidden is asked for when it is shown.

The script's state lives on its element, so a rerun that only changes the revision keeps the
stream open; a stream is closed when its element leaves the page. Its data carries a mark of the
session, so that a page drawn by a new session (a replica died) calls the script again. An ask
that had no effect (sent while the connection was being replaced) is sent again after
:data:`REASK_S` seconds, jittered, until the page is drawn at the revision.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from urllib.parse import urlencode

import streamlit as st

from serve.class_events import EVENTS_PATH
from ui.announce import SAY_JS, keep_said
from ui.script_component import script_component

POLL_S = 10.0  # the fallback's mean interval between asks
REOPEN_S = 3.0  # the mean wait before a dropped stream is opened again
SESSION = "join_follow_session"  # session state: a random mark of this session
REASK_S = 4.0  # the mean wait before an ask the page did not act on is sent again

FOLLOW_JS = (
    SAY_JS
    + """
const KEY = "__atlasClassFollow";

function follower(data, win, doc, host) {
  const f = { url: data.url, drawn: data.revision, latest: null, asked: null, listening: false,
              source: null, poll: null, reopen: null, again: null, stopped: false, trigger: null, mounts: 0,
              asks: 0 };
  const jitter = (ms) => ms * (2 / 3 + (2 / 3) * Math.random());
  const visible = () => doc.visibilityState !== "hidden";
  const alive = () => {
    if (!f.stopped && !host.isConnected) f.stop();
    return !f.stopped;
  };
  f.ask = (why) => {
    if (!alive() || !f.trigger) return;
    f.asks += 1;
    const mark = doc.documentElement.dataset;  // for the tests: how often, and why
    mark.atlasFollowAsks = String(f.asks);
    if (why === "poll") mark.atlasFollowPolls = String(Number(mark.atlasFollowPolls || 0) + 1);
    f.trigger("moved", { why, revision: f.latest, n: f.asks });
  };
  f.check = () => {
    // revisions only grow: a page drawn at a later one than the stream said is not behind
    if (f.latest === null || f.latest <= f.drawn || f.asked === f.latest || !visible()) return;
    f.asked = f.latest;
    f.ask("changed");
    // an ask can be lost (sent while the page's connection is being replaced): asked again
    // until the page is drawn at the revision
    win.clearTimeout(f.again);
    f.again = win.setTimeout(() => {
      f.asked = null;
      if (alive()) f.check();
    }, jitter(data.reask_ms));
  };
  const poll = () => {  // the fallback: only while the stream is not listening
    win.clearTimeout(f.poll);
    f.poll = win.setTimeout(() => {
      if (!alive()) return;
      if (!f.listening && visible()) f.ask("poll");
      poll();
    }, jitter(data.poll_ms));
  };
  const open = () => {
    f.reopen = null;
    if (!alive() || !data.url || !win.EventSource) return;
    const source = (f.source = new win.EventSource(data.url));
    source.onopen = () => {
      f.listening = true;
      doc.documentElement.dataset.atlasFollow = "stream";  // for the tests: how it follows
    };
    source.onmessage = (event) => {
      const revision = parseInt(event.data, 10);
      f.listening = true;
      if (!Number.isNaN(revision)) {
        f.latest = revision;
        f.check();
      }
    };
    source.addEventListener("gone", () => {
      source.close();
      f.source = null;
      f.listening = false;
      f.ask("gone");
    });
    source.onerror = () => {
      f.listening = false;
      doc.documentElement.dataset.atlasFollow = "poll";
      if (source.readyState === 2 && f.reopen === null && alive()) {  // CLOSED: not retried
        f.source = null;
        f.reopen = win.setTimeout(open, jitter(data.reopen_ms));
      }
    };
  };
  const shown = () => {
    if (!alive() || !visible()) return;
    if (!f.listening) f.ask("shown");  // a phone that slept: look now
    else f.check();
  };
  f.stop = () => {
    f.stopped = true;
    if (f.source) f.source.close();
    win.clearTimeout(f.poll);
    win.clearTimeout(f.reopen);
    win.clearTimeout(f.again);
    doc.removeEventListener("visibilitychange", shown);
    if (host[KEY] === f) delete host[KEY];
  };
  doc.addEventListener("visibilitychange", shown);
  open();
  poll();
  return f;
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const host = parentElement.host || parentElement;
  // it draws nothing, and says so on its element (bench/register.py's CHARTS_DRAWN)
  (host.closest('[data-testid="stBidiComponentRegular"]') || host).setAttribute("data-draws-nothing", "");
  const doc = host.ownerDocument || document;
  const win = doc.defaultView || window;
  let f = host[KEY];
  if (!f || f.stopped || f.url !== data.url) {
    if (f) f.stop();
    f = host[KEY] = follower(data, win, doc, host);
  }
  f.drawn = data.revision;
  f.trigger = setTriggerValue;
  say(doc, data.news || "");  // the class's news, for a screen reader (ui/announce.py)
  f.mounts += 1;
  const mine = f.mounts;
  f.check();
  return () => win.setTimeout(() => {
    if (f.mounts === mine && !host.isConnected) f.stop();
  }, 0);
}
"""
)


def events_url(code: str, me: str) -> str:
    """The class's event stream for this student, on the page's own origin."""
    return f"{EVENTS_PATH}?{urlencode({'code': code, 'me': me})}"


def _mount() -> Callable | None:
    return script_component("atlas_class_follow", FOLLOW_JS, "the page follows on its reruns only")


def listen_ui(code: str, me: str, revision: int, news: str, key: str) -> bool:
    """Mount the listener for the page drawn at ``revision``; True in the run that it asked for
    (the class may have changed: look), False in any other run. It also says ``news`` (the
    class's state in one sentence) in the page's live region, as ``ui.announce`` would: one
    script where two would each cost a component's mount on every student's rerun."""
    keep_said(news)
    mount = _mount()
    if mount is None:
        return False
    data = {
        "url": events_url(code, me),
        "revision": revision,
        # this session's mark: a page reconnected to a new session (another replica) calls the
        # script again, with that session's widget manager
        "session": st.session_state.setdefault(SESSION, secrets.token_hex(8)),
        "poll_ms": int(POLL_S * 1000),
        "reopen_ms": int(REOPEN_S * 1000),
        "reask_ms": int(REASK_S * 1000),
        "news": news,
    }
    result = mount(key=key, data=data, on_moved_change=lambda: None)
    return getattr(result, "moved", None) is not None
