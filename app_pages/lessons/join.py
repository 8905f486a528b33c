"""Join a class: a student types the code from the projector (or scans its QR code), with an
optional nickname, and from then on follows the teacher's lesson on their own phone or laptop.

The page listens to the class's event stream and redraws when the teacher moves, reveals or ends
the class (:mod:`app_pages.lessons.follow_events`; without the stream it asks every ~10 s). On a
question the student picks a guess, saved at once (the page
says "saved" only after the database committed it) and changeable until the reveal; then the
student sees their guess, the model's answer and the class's spread. The student's link
(``?code=…&me=…``) carries their anonymous identity, and the browser remembers it per class (a
cookie, :mod:`ui.browser_memory`): after a lost connection, a reload, a restarted server, a phone
that slept or the QR code scanned again, the page comes back to the same student with the same
answers, never a second join.

Codes are not guessed: a session that typed ``live.attempts.FREE_TRIES`` codes of no open class
waits before each further try, longer after each wrong one (:mod:`live.attempts`), and is told
how long in words."""

from __future__ import annotations

import streamlit as st

from app_pages.lessons import class_shared
from app_pages.lessons.follow import follow_ui
from i18n import N_, _, ngettext
from live import attempts
from live.attempts import Attempts
from live.codes import ALPHABET, CODE_LENGTH, foreign_letters, normal_code
from live.inputs import NICKNAME_CHARS
from live.records import ClassFull, NoSuchClass, Student
from live.store import Store
from ui.browser_memory import recalled, remember
from ui.text import escape_markdown, page_intro

ABOUT = N_(
    "Type the code your teacher shows (or scan its QR code). Your name is optional: the teacher "
    "sees only how many answered and what the class chose, never who chose what on the screen."
)


NOTICE = "join_notice"  # session state: a note for the page the student lands on
TRIES = "join_tries"  # session state: this session's wrong codes (live.attempts.Attempts)


def student_cookie(code: str) -> str:
    """The name under which this browser remembers who it is in the class ``code``."""
    return f"atlas_student_{code}"


def known_student(store: Store, code: str) -> Student | None:
    """The student this browser already is in the class ``code`` (it joined before: a refresh,
    a phone that slept, the QR code scanned again); None if none."""
    me = recalled(student_cookie(code))
    return store.student(code, me) if me else None


def code_error(raw: str) -> str:
    """Why ``raw`` is not a class code: its length, or the letters no code has, named."""
    foreign = foreign_letters(raw)
    if foreign and len("".join(raw.split()).replace("-", "")) == CODE_LENGTH:
        return _(
            "A class code has no vowels and no digits, only the letters {alphabet}: "
            "{letters} cannot be in one. Check the code on the projector."
        ).format(alphabet=ALPHABET, letters=escape_markdown(", ".join(foreign[:8])))
    return _("A class code has {n} letters, like BCD FGH.").format(n=CODE_LENGTH)


def _join() -> None:
    store = class_shared.class_store()
    raw = st.session_state.get("join_code") or ""
    code = normal_code(raw)
    if store is None:
        return
    if code is None:
        st.session_state["join_error"] = code_error(raw)
        return
    tries = st.session_state.get(TRIES, Attempts())
    if tries.wait(attempts.clock()):
        st.session_state["join_error"] = _wait_message(tries)
        return
    name = st.session_state.get("join_name") or ""
    student = known_student(store, code)  # Join pressed again: the same student
    try:
        if student is None:
            student = store.join(code, name)
            if len(" ".join(name.split())) > NICKNAME_CHARS:
                st.session_state[NOTICE] = _(
                    "A nickname has at most {n} characters: yours is “{name}”."
                ).format(n=NICKNAME_CHARS, name=escape_markdown(student.nickname))
    except NoSuchClass:
        tries = st.session_state[TRIES] = tries.failed(attempts.clock())
        st.session_state["join_error"] = _(
            "There is no open class with the code {code}. Check it on the projector."
        ).format(code=code) + (" " + _wait_message(tries) if tries.until else "")
        return
    except ClassFull:
        st.session_state["join_error"] = _("This class is full.")
        return
    st.session_state.pop("join_error", None)
    st.session_state.pop(TRIES, None)
    st.query_params["code"] = code
    st.query_params["me"] = student.id


def _wait_message(tries: Attempts) -> str:
    """How long this session waits before its next code, in words."""
    seconds = tries.wait(attempts.clock())
    return ngettext(
        "Too many wrong codes: you can try again in {n} second.",
        "Too many wrong codes: you can try again in {n} seconds.",
        seconds,
    ).format(n=seconds)


def join_form() -> None:
    page_intro(_("Join a class"), _(ABOUT))
    given = normal_code(st.query_params.get("code") or "") or ""
    st.session_state.setdefault("join_code", given)
    with st.form("join_form", border=True):
        st.text_input(_("Class code"), key="join_code", max_chars=CODE_LENGTH + 4)
        # No max_chars: the browser drops a paste longer than that whole, leaving the box
        # empty; the store keeps the first NICKNAME_CHARS characters and the page says so.
        st.text_input(_("Nickname (optional)"), key="join_name")
        st.form_submit_button(_("Join"), type="primary", on_click=_join, key="join_submit")
    error = st.session_state.get("join_error")
    if error:
        st.error(error, icon=":material/error:")


def main() -> None:
    code = normal_code(st.query_params.get("code") or "")
    me = (st.query_params.get("me") or "")[:200]
    store = class_shared.class_store() if code else None
    student = store.student(code, me) if store and me else None
    if store is not None and student is None:
        student = known_student(store, code)  # this browser joined already: no second join
        if student is not None:
            st.query_params["me"] = student.id
    if student is not None:
        remember(student_cookie(code), student.id)
        notice = st.session_state.pop(NOTICE, None)
        if notice:
            st.info(notice, icon=":material/info:")
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
