"""The stack's floor for a lecture hall (``make load SCENARIO=lecture-hall LOAD_ARGS=--bare``): a
student's page reduced to what following a class needs, served by Streamlit with the class's
event stream (:mod:`bench.load.bare_asgi`), so that the load harness measures what a page of
Streamlit's own costs a student's move before the atlas draws anything.

What it keeps of the join page (``app_pages/lessons/join.py``): the join form's three widgets
(the same keys), and in a fragment the same caption (the class, the student, the step), the same
listener (:func:`app_pages.lessons.follow_events.listen_ui`), and on a question's vote pills with
the same key and options whose pick is saved to the class store before the page says "Saved";
after the reveal, the pick against the model's answer (the question as posed once per process,
:func:`app_pages.lessons.predict.pose`). What it leaves out: the app's navigation and sidebar, the
step's text and view (no chart), the question's prompt and preview, the peer loop's stages and
the summary."""

from __future__ import annotations

import contextlib

import streamlit as st

from app_pages.lessons import class_shared, predict
from app_pages.lessons.answers import score_answer
from app_pages.lessons.follow import header_ui
from app_pages.lessons.follow_events import listen_ui
from i18n import _
from live.codes import normal_code
from live.records import ClassFull, Closed, NoSuchClass, Student
from live.store import Store
from ui.text import escape_markdown


def _join() -> None:
    store = class_shared.class_store()
    code = normal_code(st.session_state.get("join_code") or "")
    if store is None or code is None:
        return
    with contextlib.suppress(NoSuchClass, ClassFull):
        student = store.join(code, st.session_state.get("join_name") or "")
        st.query_params["code"] = code
        st.query_params["me"] = student.id


def _save(store: Store, code: str, student: Student, step: int, key: str, round_: int) -> None:
    choice = st.session_state.get(key)
    if choice is not None:
        with contextlib.suppress(Closed, NoSuchClass, LookupError):
            store.answer(code, student.id, step, int(choice), round=round_)


@st.fragment
def _view(store: Store, code: str, student: Student) -> None:
    info = store.get_class(code)
    lesson = class_shared.class_lesson(store, info) if info else None
    if info is None or lesson is None:
        return
    header_ui(info, lesson, student)
    listen_ui(code, student.id, info.revision, "", key=f"join_follow_{code}")
    if info.ended or info.step > len(lesson.steps):
        return
    step = lesson.steps[info.step - 1]
    posed = predict.pose(step) if step.question is not None else None
    if posed is None:
        return
    key = f"join_guess_{code}_{info.step}" + ("_2" if info.round == 2 else "")
    mine = store.my_answer(code, student.id, info.step, info.round)
    if info.revealed or info.stage != "vote":
        if mine is not None:
            score = score_answer(step.question.kind, posed.answer, mine)
            st.caption(predict.verdict(step.question, posed, score))
        return
    if key not in st.session_state and mine is not None:
        st.session_state[key] = mine
    st.pills(
        _("Your guess"),
        list(range(len(posed.labels))),
        format_func=lambda i: posed.labels[i],
        key=key,
        on_change=_save,
        args=(store, code, student, info.step, key, info.round),
    )
    if mine is not None:
        st.success(
            _("Saved: **{guess}**. You can change it until the teacher reveals.").format(
                guess=escape_markdown(posed.labels[mine])
            )
        )


def warm(lesson_id: str) -> None:
    """Pose the questions of the shipped lesson ``lesson_id`` (``/join?warm=ID``: the harness's
    warm-up), as the atlas's warm-up opens every step of it: no move is timed on a cold model."""
    lesson = class_shared.shipped_lessons().get(lesson_id)
    if lesson is not None:
        list(class_shared.posed_questions(lesson))  # posing is what warms


def main() -> None:
    if st.query_params.get("warm"):
        warm(st.query_params["warm"])
        return
    code = normal_code(st.query_params.get("code") or "")
    me = (st.query_params.get("me") or "")[:200]
    store = class_shared.class_store() if code else None
    student = store.student(code, me) if store and me else None
    if student is not None:
        _view(store, code, student)
        return
    st.session_state.setdefault("join_code", code or "")
    with st.form("join_form"):
        st.text_input(_("Class code"), key="join_code")
        st.text_input(_("Nickname (optional)"), key="join_name")
        st.form_submit_button(_("Join"), on_click=_join, key="join_submit")


main()
