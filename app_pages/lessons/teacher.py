"""The teacher's side of a live class, on the Lessons page: start a class on the lesson, show the
join code, its link and a QR code large on the projector, lead the class step by step (every move
of the teacher's lesson is the class's step), see how many joined and answered, reveal the
class's guesses beside the model's answer, and after class download the answers and delete them.

The teacher's key never appears on the screen nor in the URL: it lives in this browser's session
and in its memory (a cookie, :mod:`ui.browser_memory`), so that a reload, or a replica that died
and the browser reconnected to another, brings the teacher's controls back at the class's step;
ending or deleting the class clears it. A "teacher link" the teacher may save as a file moves the
controls to another computer."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from app_pages.lessons import class_shared, peer, predict
from app_pages.lessons.class_csv import answers_csv
from app_pages.lessons.schema import Lesson, Step
from app_pages.lessons.step_ui import summary_table
from i18n import _, pgettext
from live.codes import normal_code
from live.qr import qr_png
from live.records import ClassInfo, NoSuchClass, NotTeacher
from live.store import Store
from ui.browser_memory import forget, recalled, remember
from ui.errors import fragment
from ui.sidebar import classroom_mode
from ui.text import escape_markdown

LEADS = "live_leads"  # session state: (code, teacher key) of the class this browser leads
SHOW_JOIN = "live_show_join"  # session state: the join card is shown
TEACHER_COOKIE = "atlas_teacher"  # this browser's memory: "CODE.KEY" of the class it leads


@dataclass(frozen=True)
class Lead:
    """The class this browser leads: its store, code, key and state after this run's sync."""

    store: Store
    code: str
    key: str
    info: ClassInfo


def _take_teacher_link(store: Store) -> bool:
    """A teacher link (``?class=CODE&teacher=KEY``) gives this session the controls; the key
    leaves the URL at once, so that the projector never shows it. True when it did."""
    key = st.query_params.get("teacher")
    if key is None:
        return False
    st.query_params.pop("teacher", None)
    code = normal_code(st.query_params.get("class") or "")
    if code and store.is_teacher(code, key[:200]):
        st.session_state[LEADS] = (code, key[:200])
        return True
    else:
        st.warning(
            _("This teacher link does not open a class: it ended, expired or was deleted."),
            icon=":material/warning:",
        )
    return False


def start_live_class(lesson_id: str, step: int, text: str | None = None) -> None:
    """Start a class on ``lesson_id`` at ``step`` (a button's callback); ``text``: a teacher's
    own lesson file, stored with the class so that the students' pages can follow it."""
    store = class_shared.class_store()
    if store is None:
        return
    info, key = store.create_class(lesson_id, step, text)
    st.session_state[LEADS] = (info.code, key)
    st.session_state[SHOW_JOIN] = True
    st.query_params["lesson"] = lesson_id
    st.query_params["step"] = str(step)
    st.query_params["class"] = info.code


def _forget() -> None:
    st.session_state.pop(LEADS, None)
    st.query_params.pop("class", None)


def _recall_lead(store: Store) -> bool:
    """The class this browser led before its session ended (a reload, a replica that died):
    the controls back from the browser's memory; True when they came back. A remembered class
    that is gone, ended or not this key's is forgotten."""
    held = recalled(TEACHER_COOKIE)
    if held is None:
        return False
    code, _dot, key = held.partition(".")
    info = store.get_class(code) if code and key else None
    if info is None or info.ended or not store.is_teacher(info.code, key):
        forget(TEACHER_COOKIE)
        return False
    st.session_state[LEADS] = (info.code, key)
    return True


def _not_the_teacher(store: Store | None) -> None:
    """A page that shows ``?class=CODE`` without leading that class says so, clearly."""
    code = normal_code(st.query_params.get("class") or "")
    if code is None:
        return
    info = store.get_class(code) if store else None
    if info is None or info.ended:
        st.query_params.pop("class", None)
        st.info(_("The class {code} has ended or expired.").format(code=code))
        return
    st.warning(
        _(
            "This browser is not the teacher of class {code}: only the teacher's browser controls "
            "it. This page shows the lesson on its own; to lead the class from this computer, "
            "open the saved teacher link."
        ).format(code=code),
        icon=":material/warning:",
    )


def _keep_in_browser(code: str, key: str, info: ClassInfo) -> None:
    """The class in this browser's memory while it runs (written in every run: a script the
    browser may have missed is sent again); forgotten once it has ended."""
    if not info.ended:
        remember(TEACHER_COOKIE, f"{code}.{key}")
    elif recalled(TEACHER_COOKIE) is not None:
        forget(TEACHER_COOKIE)


def lead(lesson: Lesson, step: int) -> Lead | None:
    """The class this browser leads on this lesson, moved to ``step`` (the teacher's step is the
    class's), or, when a teacher link or the browser's memory just gave the controls back, at
    the class's own step; None when it leads none (a page showing a class it does not lead says
    so). A class that is gone is forgotten with a note."""
    remembered = LEADS in st.session_state or recalled(TEACHER_COOKIE) is not None
    if not remembered and "teacher" not in st.query_params and "class" not in st.query_params:
        return None
    store = class_shared.class_store()
    if store is None:
        return None
    linked = "teacher" in st.query_params
    taken = _take_teacher_link(store)
    if LEADS not in st.session_state:
        taken = _recall_lead(store)
    held = st.session_state.get(LEADS)
    if held is None:
        if not linked:  # a refused link has said why
            _not_the_teacher(store)
        return None
    code, key = held
    info = store.get_class(code)
    if info is None:
        _forget()
        if recalled(TEACHER_COOKIE) is not None:
            forget(TEACHER_COOKIE)
        st.info(_("The class {code} has ended or expired.").format(code=code))
        return None
    _keep_in_browser(code, key, info)
    if info.lesson != lesson.id:
        return None
    st.query_params["class"] = code
    if taken:  # back at the class's step, wherever the link was saved or the page reloaded
        st.query_params["step"] = str(info.step)
    elif info.step != step and not info.ended:
        try:
            info = store.set_step(code, key, step)
        except (NotTeacher, NoSuchClass):
            _forget()
            return None
    return Lead(store, code, key, info)


def start_button(lesson: Lesson, step: int, key: str, shipped: dict[str, Lesson]) -> None:
    """ "Start a class" on ``lesson`` at ``step`` (on the lesson list, and in a lesson's outline);
    a teacher's own lesson (not in ``shipped``, :func:`class_shared.shipped_lessons`) goes into the class
    store with the class (its file, checked again where a student's page reads it)."""
    if LEADS in st.session_state:  # one class at a time
        return
    own = shipped.get(lesson.id) != lesson
    if own and not lesson.text:  # made in code, not from a file: nothing to store
        st.caption(_("A class can follow the lessons that ship with the atlas."))
        return
    st.button(
        _("Start a class"),
        key=key,
        icon=":material/groups:",
        on_click=start_live_class,
        args=(lesson.id, step, lesson.text if own else None),
        help=_("Students join with a code and answer the predictions on their own devices."),
    )


def join_card(lead: Lead) -> None:
    """The join code, its link and a QR code, large: what the projector shows as students join."""
    url = class_shared.join_url(lead.code)
    with st.container(border=True, horizontal=True, vertical_alignment="center"):
        st.image(
            qr_png(url),
            width=220,
            caption=_("Scan to join"),
            alt=_("A QR code of the join link, {url}").format(url=url),
        )
        with st.container():
            st.markdown(_("Join at **{url}**").format(url=escape_markdown(url.split("?")[0])))
            st.markdown(_("Code:") + f"\n# {class_shared.spaced(lead.code)}")
            st.caption(escape_markdown(url))
            st.button(
                _("Hide the join code"), key="live_hide_join", on_click=_show_join, args=(False,)
            )


def _show_join(show: bool) -> None:
    st.session_state[SHOW_JOIN] = show


def class_controls(lead: Lead, lesson: Lesson, step: int, row) -> None:
    """In the lesson's own row (so that the step's chart keeps its place on a projector's first
    screen): the live counts, the join card's switch and the class menu."""
    with row:
        _counts(lead.code, step, lesson.steps[step - 1] if step <= len(lesson.steps) else None)
        with st.popover(_("Class {code}").format(code=lead.code), icon=":material/groups:"):
            _class_menu(lead, lesson)


def join_card_ui(lead: Lead) -> None:
    """The join card, while the teacher shows it (from the start of the class until hidden)."""
    if st.session_state.get(SHOW_JOIN) and not lead.info.ended:
        join_card(lead)


@fragment(run_every=class_shared.COUNT_SECONDS)
def _counts(code: str, step: int, shown: Step | None) -> None:
    """Who joined and, on a question, how many answered: live, never who answered what."""
    store = class_shared.class_store()
    info = store.get_class(code) if store else None
    if info is None:
        return
    text = ":material/groups: " + _("{n} joined").format(n=info.students)
    if info.ended:
        text += " · " + _("ended")
    elif shown is not None and shown.question is not None:
        tally = store.tally(code, step, info.round if info.step == step else 1)
        text += " · " + _("{a} of {n} answered").format(a=tally.answered, n=info.students)
        if info.step == step and info.round == 2:
            text += " · " + _("second vote")
    st.markdown(text)


def _class_menu(lead: Lead, lesson: Lesson) -> None:
    if not st.session_state.get(SHOW_JOIN) and not lead.info.ended:
        st.button(_("Show the join code"), key="live_show", on_click=_show_join, args=(True,))
    st.download_button(
        _("Save the teacher link"),
        data=_teacher_link(lead, lesson),
        file_name=f"atlas-class-{lead.code}-teacher.txt",
        mime="text/plain",
        help=_(
            "Opens the teacher's controls again, after a reload or on another computer. Keep it private."
        ),
        key="live_teacher_link",
    )
    st.download_button(
        _("Answers (CSV)"),
        data=answers_csv(lead, lesson),
        file_name=f"atlas-class-{lead.code}-answers.csv",
        mime="text/csv",
        key="live_csv",
    )
    if not lead.info.ended:
        st.button(_("End the class"), key="live_end", on_click=_end, args=(lead,))
    st.button(
        _("Delete the class and its answers"),
        key="live_delete",
        on_click=_delete,
        args=(lead,),
        type="primary" if lead.info.ended else "secondary",
    )


def _teacher_link(lead: Lead, lesson: Lesson) -> str:
    """The link that gives the controls back on any computer (in classroom mode if on here)."""
    mode = "&classroom=true" if classroom_mode() else ""
    return (
        f"{class_shared.site_root()}/lessons?lesson={lesson.id}&class={lead.code}{mode}"
        f"&teacher={lead.key}\n"
    )


def _end(lead: Lead) -> None:
    lead.store.end_class(lead.code, lead.key)


def _delete(lead: Lead) -> None:
    lead.store.delete_class(lead.code, lead.key)
    _forget()
    st.session_state.pop(SHOW_JOIN, None)


def question_ui(lead: Lead, step: Step, key: str, text_col, view_col) -> None:
    """A question with the class: the options on the projector while students answer on their
    devices; at the reveal the class's spread beside the model's answer."""
    posed = predict.ask_ui(step, text_col, view_col)
    if posed is None:
        return
    question = step.question
    if not lead.info.revealed:  # the peer-instruction loop (app_pages/lessons/peer.py)
        with view_col:
            if posed.preview is not None:
                posed.preview(key)
            options = " · ".join(escape_markdown(label) for label in posed.labels)
            st.markdown(_("Options: {options}").format(options=options))
            peer.teacher_stage_ui(lead, question, posed, key, text_col)
        return
    with view_col:
        tally = peer.teacher_reveal_ui(lead, question, posed, key)
        if question.kind not in class_shared.DRAWN_IN_SPREAD:  # the model's own view adds to it
            class_shared.model_reveal(
                question, posed, class_shared.modal_choice(tally, posed.answer.best), key
            )
    with text_col:
        st.markdown(_(question.explain))


def summary_ui(lead: Lead, lesson: Lesson) -> None:
    """After the last step: each question (named by what it asked), how many answered, the
    option most chosen (every one of a tie), the model's answer and the share that matched, of
    the last vote (the second where there was one)."""
    st.markdown("### " + _("The class's predictions"))
    rows = []
    for index, posed in class_shared.posed_questions(lesson):
        tally = lead.store.tally(lead.code, index + 1, 2)
        if not tally.answered:
            tally = lead.store.tally(lead.code, index + 1)
        part = class_shared.shares(tally, len(posed.labels))
        most = "—"
        if tally.answered:
            tied = [posed.labels[i] for i in np.flatnonzero(part == part.max())]
            separator = pgettext("list separator", ", ")
            most = (
                tied[0]
                if len(tied) == 1
                else _("a tie: {options}").format(options=separator.join(tied))
            )
        rows.append(
            {
                _("Step"): index + 1,
                _("Question"): posed.asked,
                _("Answers"): tally.answered,
                _("Most chosen"): most,
                _("Model"): posed.labels[posed.answer.best],
                _("Matched the model"): f"{part[posed.answer.best]:.0%}" if tally.answered else "—",
            }
        )
    summary_table(rows)
