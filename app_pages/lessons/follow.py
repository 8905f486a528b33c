"""A student's view of the class: the teacher's current step, a question's guess (saved to the
class store at once), and after the reveal their guess, the model's answer and the class's spread."""

from __future__ import annotations

import streamlit as st

from app_pages.lessons import class_shared, peer, predict, step_view
from app_pages.lessons.answers import score_answer
from app_pages.lessons.follow_events import listen_ui
from app_pages.lessons.schema import Lesson, Step
from app_pages.lessons.step_ui import narration_ui, summary_table
from i18n import _, pgettext
from live.records import ClassInfo, Closed, NoSuchClass, Student
from live.store import Store
from ui.announce import announce
from ui.text import escape_markdown

SEEN = "join_seen"  # session state: the class revision this page was drawn at
SAVE_ERROR = "join_save_error"  # session state: {the pills' key: why its pick was not saved}


def _follow(code: str, student: Student, drawn: int, news: str) -> None:
    """Redraw the class's view when the teacher moved, revealed or ended: the listener
    (:mod:`app_pages.lessons.follow_events`) asks for a rerun of the fragment it sits in
    (:func:`follow_ui`'s view) when the class's event stream says its revision is no longer
    ``drawn`` (or, without the stream, on its slow poll). A page that reconnected to another
    replica has a new session, which holds no fragment: there the ask runs the whole page
    (:mod:`serve.fresh_sessions`)."""
    listen_ui(code, student.id, drawn, news, key=f"join_follow_{code}")


def header_ui(info: ClassInfo, lesson: Lesson, student: Student) -> None:
    """The caption over a student's view: the class, who they are, the lesson and the step."""
    name = f" · {escape_markdown(student.nickname)}" if student.nickname else ""
    where = (
        _("Step {k} of {n}").format(k=info.step, n=len(lesson.steps))
        if info.step <= len(lesson.steps)
        else pgettext("the end of a class", "Summary")
    )
    st.caption(
        _("Class {code} · you are student {number}{name} · {lesson} · {where}").format(
            code=info.code,
            number=student.number,
            name=name,
            lesson=escape_markdown(_(lesson.title)),
            where=where,
        )
    )


def follow_ui(store: Store, code: str, student: Student) -> None:
    """The class as this student sees it, in a fragment: a move, a reveal or the end reruns
    only this view (the class's state, the step and the student's answer), not the app around
    it (the navigation, the sidebar), so that a hall's move costs each student less."""
    _class_view(store, code, student)


@st.fragment
def _class_view(store: Store, code: str, student: Student) -> None:
    info = store.get_class(code)
    lesson = class_shared.class_lesson(store, info) if info else None
    if info is None or lesson is None:
        st.info(_("The class {code} is over.").format(code=code))
        return
    header_ui(info, lesson, student)
    # the move, the stage, the reveal: said by the listener; the end, with the listener gone,
    # on its own (in the view: a fragment has no sidebar)
    news = class_shared.class_news(info, lesson)
    if info.ended:
        announce(news, in_sidebar=False)
    else:
        _follow(code, student, info.revision, news)
    if info.ended or info.step > len(lesson.steps):
        if info.ended:
            st.success(_("The teacher ended the class. Thank you!"))
        mine_ui(store, info, lesson, student)
        return
    step = lesson.steps[info.step - 1]
    text_col, view_col = st.columns([2, 3], gap="medium")
    with text_col:
        narration_ui(step)
    if step.question is None:
        with view_col:
            step_view.show_view(step, f"join_view_{info.step}")
        return
    question_ui(store, info, step, student, text_col, view_col)


def _save(store: Store, code: str, student: Student, step: int, key: str, round_: int = 1) -> None:
    """The guess to the class store (for the vote ``round_`` the page showed), committed before
    the page says "saved"."""
    choice = st.session_state.get(key)
    if choice is None:
        return
    try:
        store.answer(code, student.id, step, int(choice), round=round_)
        st.session_state.pop(SAVE_ERROR, None)
    except (Closed, NoSuchClass, LookupError):
        # kept with the question it was about: the next question asks afresh
        st.session_state[SAVE_ERROR] = {
            key: _("Not saved: the teacher has moved on or revealed the answer.")
        }


def question_ui(store: Store, info: ClassInfo, step: Step, student: Student, text_col, view_col):
    posed = predict.ask_ui(step, text_col, view_col)
    if posed is None:
        return
    question = step.question
    mine = store.my_answer(info.code, student.id, info.step, info.round)
    key = f"join_guess_{info.code}_{info.step}" + ("_2" if info.round == 2 else "")
    if info.revealed:  # the peer-instruction loop's reveal and stages: app_pages/lessons/peer.py
        peer.student_reveal_ui(store, info, student.id, question, posed, key, text_col, view_col)
        return
    if info.stage != "vote":
        with view_col:
            peer.student_stage_ui(store, info, posed, mine, key)
        return
    with view_col:
        if posed.preview is not None:
            posed.preview(key)
        if info.round == 2:
            first = store.my_answer(info.code, student.id, info.step, 1)
            st.markdown(peer.first_answer_line(first, posed))
        if key not in st.session_state and mine is not None:
            st.session_state[key] = mine  # back after a reload: the saved guess
        st.pills(
            _("Your guess"),
            list(range(len(posed.labels))),
            format_func=lambda i: posed.labels[i],
            key=key,
            wrap=True,  # every token in view: a row that scrolls sideways hides some
            on_change=_save,
            args=(store, info.code, student, info.step, key, info.round),
        )
        error = st.session_state.get(SAVE_ERROR, {}).get(key)
        if error:
            st.warning(error, icon=":material/warning:")
        elif mine is not None:
            st.success(
                _("Saved: **{guess}**. You can change it until the teacher reveals.").format(
                    guess=escape_markdown(posed.labels[mine])
                ),
                icon=":material/check:",
            )
        else:
            st.caption(_("Pick one option; the answer is shown when the teacher reveals it."))


def mine_ui(store: Store, info: ClassInfo, lesson: Lesson, student: Student) -> None:
    """The student's own answers of the class against the model's (the last vote: the second
    where there was one), each row named by what the question asked."""
    st.markdown("### " + _("Your predictions"))
    rows = []
    for index, posed in class_shared.posed_questions(lesson):
        mine = store.my_answer(info.code, student.id, index + 1, 2)
        if mine is None:
            mine = store.my_answer(info.code, student.id, index + 1)
        answered = mine in range(len(posed.labels))
        if not answered:
            result = _("not answered")
        else:
            correct = score_answer(lesson.steps[index].question.kind, posed.answer, mine).correct
            result = _("right") if correct else _("not quite")
        rows.append(
            {
                _("Step"): index + 1,
                _("Question"): posed.asked,
                _("Your guess"): posed.labels[mine] if answered else "—",
                _("Model"): posed.labels[posed.answer.best],
                _("Result"): result,
            }
        )
    summary_table(rows)
