"""Join a class: a student types the code from the projector (or scans its QR code), with an
optional nickname, and from then on follows the teacher's lesson on their own phone or laptop.

The page asks the class store every second whether the teacher moved, and redraws when the step,
the reveal or the end changed. On a question the student picks a guess, saved at once (the page
says "saved" only after the database committed it) and changeable until the reveal; then the
student sees their guess, the model's answer and the class's spread. The student's link
(``?code=…&me=…``) carries their anonymous identity: after a lost connection, a reload or a
restarted server the page comes back to the same student with the same answers."""

from __future__ import annotations

import streamlit as st

from app_pages.lessons import live
from app_pages.lessons.follow import follow_ui
from i18n import N_, _
from live.codes import CODE_LENGTH, normal_code
from live.inputs import NICKNAME_CHARS
from live.records import ClassFull, NoSuchClass
from ui.text import page_intro

ABOUT = N_(
    "Type the code your teacher shows (or scan its QR code). Your name is optional: the teacher "
    "sees only how many answered and what the class chose, never who chose what on the screen."
)


def _join() -> None:
    store = live.class_store()
    code = normal_code(st.session_state.get("join_code") or "")
    if store is None:
        return
    if code is None:
        st.session_state["join_error"] = _("A class code has {n} letters, like BCD FGH.").format(
            n=CODE_LENGTH
        )
        return
    try:
        student = store.join(code, st.session_state.get("join_name") or "")
    except NoSuchClass:
        st.session_state["join_error"] = _(
            "There is no open class with the code {code}. Check it on the projector."
        ).format(code=code)
        return
    except ClassFull:
        st.session_state["join_error"] = _("This class is full.")
        return
    st.session_state.pop("join_error", None)
    st.query_params["code"] = code
    st.query_params["me"] = student.id


def join_form() -> None:
    page_intro(_("Join a class"), _(ABOUT))
    given = normal_code(st.query_params.get("code") or "") or ""
    st.session_state.setdefault("join_code", given)
    with st.form("join_form", border=True):
        st.text_input(_("Class code"), key="join_code", max_chars=CODE_LENGTH + 4)
        st.text_input(_("Nickname (optional)"), key="join_name", max_chars=NICKNAME_CHARS)
        st.form_submit_button(_("Join"), type="primary", on_click=_join, key="join_submit")
    error = st.session_state.get("join_error")
    if error:
        st.error(error, icon=":material/error:")


def main() -> None:
    code = normal_code(st.query_params.get("code") or "")
    me = (st.query_params.get("me") or "")[:200]
    store = live.class_store() if code and me else None
    student = store.student(code, me) if store else None
    if student is not None:
        follow_ui(store, code, student)
        return
    if code and me:
        st.query_params.pop("me", None)
        st.warning(
            _("This link no longer belongs to an open class; join again with the code."),
            icon=":material/warning:",
        )
    join_form()


main()
