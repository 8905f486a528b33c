"""A teacher's own lessons, kept in this browser: an uploaded lesson file's text is saved in the
browser's localStorage (never on the server, never sent to another browser) and read back when
the Lessons page opens again, after a reload or another day, then checked against the schema
exactly as an upload is. A tiny components-v2 script does the browser's part; under AppTest
(no browser) nothing is kept beyond the session.

The script sends the saved texts back once per session, as a trigger (one rerun, and only when
the browser holds some); the page keeps at most MAX_SAVED lessons, the newest last."""

from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

from app_pages.lessons.schema import MAX_FILE_BYTES, Lesson, LessonError, parse_lesson
from ui import plotly_component
from ui.script_component import script_component

KEY = "les_saved"  # the component's key
RESTORED = "les_saved_restored"  # session state: the browser's saved lessons were read back
ERRORS = "les_saved_errors"  # session state: messages for saved texts that no longer parse
MAX_SAVED = 8
STORE = "atlas-lessons"  # the localStorage item: {lesson id: the file's text}
SAVED_JS = """
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const win = (parentElement.ownerDocument || document).defaultView || window;
  // it draws nothing, and says so on its element (bench/register.py's CHARTS_DRAWN)
  const host = parentElement.host || parentElement;
  (host.closest('[data-testid="stBidiComponentRegular"]') || host).setAttribute("data-draws-nothing", "");
  let saved = {};
  try {
    const raw = JSON.parse(win.localStorage.getItem(STORE) || "{}");
    if (raw && typeof raw === "object" && !Array.isArray(raw)) saved = raw;
  } catch (error) {
    saved = {};
  }
  const before = JSON.stringify(saved);
  for (const [id, text] of (data && data.save) || []) {
    delete saved[id];
    saved[id] = text;
  }
  for (const id of (data && data.drop) || []) delete saved[id];
  const ids = Object.keys(saved);
  for (const id of ids.slice(0, Math.max(ids.length - MAX_SAVED, 0))) delete saved[id];
  const after = JSON.stringify(saved);
  if (after !== before) {
    try {
      win.localStorage.setItem(STORE, after);
    } catch (error) {
      // storage full or off (a private window): the lesson lasts for this session only
    }
  }
  if (data && data.restore && ids.length) setTriggerValue("saved", saved);
}
""".replace("MAX_SAVED", str(MAX_SAVED)).replace("STORE", json.dumps(STORE))


def _mount() -> Callable | None:
    return script_component("atlas_saved_lessons", SAVED_JS, "an upload lasts for the session")


def restored(saved: object) -> tuple[dict[str, Lesson], list[LessonError]]:
    """The lessons in ``saved`` (what the browser sent: {id: file text}), each parsed as an
    upload is; the texts that no longer parse (an older schema, a damaged store) as errors."""
    found: dict[str, Lesson] = {}
    errors: list[LessonError] = []
    if not isinstance(saved, dict):
        return found, errors
    for name, text in list(saved.items())[:MAX_SAVED]:
        if not isinstance(text, str) or len(text.encode()) > MAX_FILE_BYTES:
            continue
        try:
            lesson = parse_lesson(text.encode(), f"{str(name)[:40]}.toml")
        except LessonError as exc:
            errors.append(exc)
            continue
        found[lesson.id] = lesson
    return found, errors


def keep_in_browser(into: dict[str, Lesson], save: list[tuple[str, str]], drop: list[str]) -> None:
    """Write ``save`` ([id, file text]) to this browser and remove ``drop`` (ids) from it; once
    per session, read the browser's saved lessons back into ``into`` (id -> Lesson). The script
    draws nothing; it sits at the sidebar's end."""
    if plotly_component._under_apptest():
        return
    mount = _mount()
    if mount is None:
        return

    def arrived() -> None:
        if st.session_state.get(RESTORED):  # read back once a session: a removal stays removed
            return
        value = st.session_state.get(KEY) or {}
        found, errors = restored(value.get("saved") if hasattr(value, "get") else None)
        for lesson_id, lesson in found.items():
            into.setdefault(lesson_id, lesson)
        st.session_state[ERRORS] = [error.message for error in errors]
        st.session_state[RESTORED] = True

    data = {"save": save, "drop": drop, "restore": not st.session_state.get(RESTORED)}
    with st.sidebar:
        mount(key=KEY, data=data, on_saved_change=arrived)
