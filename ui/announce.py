"""News a screen reader says without the user moving there (WCAG 4.1.3): a polite live region
(``role="status"``, ``aria-live="polite"``) that the page's own document keeps across reruns.

``announce(text)`` puts ``text`` in the region when it differs from what the region last said (a
rerun that changes nothing says nothing again). The region lives outside Streamlit's elements,
at the end of the page's body, so that redrawing the page does not replace it: a live region is
announced when its content changes, not when it is created. A tiny components-v2 script does it;
it draws nothing and sits at the sidebar's end. Under AppTest (no browser) the text is kept in
session state, where tests read it (:data:`SAID`)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ui import plotly_component
from ui.script_component import script_component

SAID = "announced"  # session state: the last text announced in this session
# say(doc, text): the region at the end of the page's body, made once, told ``text`` when it
# differs from what it last said. Shared by the scripts that announce (this one, and the live
# class's listener: app_pages/lessons/follow_events.py, which says the class's news itself).
SAY_JS = """
function say(doc, text) {
  let region = doc.getElementById("atlas-announce");
  if (!region) {
    region = doc.createElement("div");
    region.id = "atlas-announce";
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    region.setAttribute("aria-atomic", "true");
    region.className = "atlas-sr";
    Object.assign(region.style, {
      position: "absolute", width: "1px", height: "1px", margin: "-1px", padding: "0",
      overflow: "hidden", clip: "rect(0 0 0 0)", whiteSpace: "nowrap", border: "0",
    });
    doc.body.appendChild(region);
  }
  if (text && region.dataset.said !== text) {
    region.dataset.said = text;
    // a moment after the region exists, so that the change is heard
    setTimeout(() => { region.textContent = text; }, 150);
  }
}
"""
ANNOUNCE_JS = (
    SAY_JS
    + """
export default function (component) {
  const { data, parentElement } = component;
  const doc = parentElement.ownerDocument || document;
  const host = parentElement.host || parentElement;
  (host.closest('[data-testid="stBidiComponentRegular"]') || host).setAttribute("data-draws-nothing", "");
  say(doc, (data && data.text) || "");
}
"""
)


def keep_said(text: str) -> None:
    """Record ``text`` as this session's latest news (what AppTest reads: :data:`SAID`), for a
    script that says it itself."""
    st.session_state[SAID] = text


def _mount() -> Callable | None:
    return script_component("atlas_announce", ANNOUNCE_JS, "the page still shows the news")


def announce(text: str, in_sidebar: bool = True) -> None:
    """Have a screen reader say ``text`` (plain text, in the page's language) once; mounted at
    the sidebar's end, or where the caller draws (``in_sidebar=False``: inside a fragment,
    which may not write to the sidebar)."""
    keep_said(text)
    if plotly_component._under_apptest():
        return
    mount = _mount()
    if mount is None:
        return
    if not in_sidebar:
        mount(key="announce", data={"text": text})
        return
    with st.sidebar:
        mount(key="announce", data={"text": text})
