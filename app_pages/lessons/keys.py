"""The presenter's keys: → PageDown Space for the next step, ← PageUp for the one before, as a
presentation clicker sends them. A tiny components-v2 script listens on the page and sends
"next" or "back" to Python; keys typed into a text box, or Space on a focused button (which
clicks it), are left alone. Where the component is off (AppTest) the buttons still work."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable

import streamlit as st

from ui import plotly_component

_LOG = logging.getLogger(__name__)
KEY = "les_keys"
NEXT_KEYS = ("ArrowRight", "PageDown", " ")
BACK_KEYS = ("ArrowLeft", "PageUp")
KEYS_JS = """
export default function (component) {
  const { setTriggerValue, parentElement } = component;
  const doc = parentElement.ownerDocument || document;
  const NEXT = NEXT_KEYS, BACK = BACK_KEYS;
  const onKey = (event) => {
    const t = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey || event.repeat) return;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (event.key === " " && t && t.closest && t.closest("button,[role=button],a")) return;
    const move = NEXT.includes(event.key) ? "next" : BACK.includes(event.key) ? "back" : null;
    if (!move) return;
    event.preventDefault();
    setTriggerValue("key", move);
  };
  doc.addEventListener("keydown", onKey);
  // Listening, said on the component's element (parentElement is its shadow root): the bench
  // waits for it before a key, and counts the element as drawn (it draws nothing).
  const host = parentElement.host || parentElement;
  const element = host.closest('[data-testid="stBidiComponentRegular"]') || host;
  element.setAttribute("data-presenter-keys", "on");
  return () => doc.removeEventListener("keydown", onKey);
}
""".replace("NEXT_KEYS", json.dumps(NEXT_KEYS)).replace("BACK_KEYS", json.dumps(BACK_KEYS))


@functools.cache
def _mount() -> Callable | None:
    try:
        return st.components.v2.component("atlas_lesson_keys", js=KEYS_JS)
    except Exception:  # components v2 unavailable: the buttons remain
        _LOG.warning("presenter keys unavailable", exc_info=True)
        return None


def presenter_keys(on_move: Callable[[str], None]) -> None:
    """Listen for the presenter's keys; ``on_move("next" | "back")`` runs before the rerun."""
    if plotly_component._under_apptest():
        return
    mount = _mount()
    if mount is None:
        return

    def moved() -> None:
        value = st.session_state.get(KEY) or {}
        move = value.get("key") if hasattr(value, "get") else None
        if move in ("next", "back"):
            on_move(move)

    mount(key=KEY, on_key_change=moved)
