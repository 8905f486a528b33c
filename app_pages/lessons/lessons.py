"""Lessons: guided walks along the articles' story over the real pages' views, step by step, with
narration; at the key moments the student predicts before the model's answer is revealed.

The position is in the URL (``?lesson=<id>&step=<n>``), so a link resumes a lesson at its step.
The presenter moves with the buttons or a clicker's keys (→ PageDown Space, ← PageUp)."""

from __future__ import annotations

import streamlit as st

from app_pages.lessons import class_shared, saved, step_view, teacher
from app_pages.lessons.keys import presenter_keys
from app_pages.lessons.schema import Lesson, LessonError, load_folder, parse_lesson
from app_pages.lessons.step_ui import narration_ui, question_ui, sentence_of, summary_ui
from i18n import N_, _, ngettext
from ui.announce import announce
from ui.sidebar import classroom_mode
from ui.text import escape_markdown, page_intro
from ui.url_state import parse_int

UPLOADED = "les_uploaded"  # session state: lessons the teacher uploaded (id -> Lesson)
UPLOADS = "les_uploads"  # session state: the uploader's generation (a removal empties it)
SAVING = "les_saving"  # session state: [id, text] to keep in this browser in this run
DROPPING = "les_dropping"  # session state: ids to remove from this browser in this run
ABOUT = N_(
    "Each lesson walks one part of the story over the atlas's own views, computed live. At the "
    "key moments you predict first: click the word, the part of the image or the choice you "
    "expect; the model's answer is sent only after you commit. Keys: → or PageDown or Space for "
    "the next step, ← or PageUp to go back."
)


def lessons() -> tuple[dict[str, Lesson], list[LessonError]]:
    """The folder's lessons and the session's uploaded ones (id -> lesson), and the folder's errors."""
    found, errors = load_folder()
    by_id = {lesson.id: lesson for lesson in found}
    by_id |= st.session_state.get(UPLOADED, {})
    return by_id, errors


def lesson_upload_ui() -> None:
    """A teacher's own lesson file (TOML, docs/lessons.md): checked, never executed; kept in this
    browser (``saved``) until removed."""
    uploaded = st.session_state.setdefault(UPLOADED, {})
    with st.expander(_("Your own lesson (a TOML file, see docs/lessons.md)")):
        upload = st.file_uploader(
            _("Lesson file"), type=["toml"], key=f"les_upload_{st.session_state.get(UPLOADS, 0)}"
        )
        for message in st.session_state.get(saved.ERRORS, []):
            st.warning(message, icon=":material/warning:")
        if upload is not None:
            try:
                lesson = parse_lesson(upload.getvalue(), upload.name)
            except LessonError as exc:
                st.error(exc.message, icon=":material/error:")
            else:
                uploaded[lesson.id] = lesson
                st.session_state.setdefault(SAVING, []).append(
                    [lesson.id, upload.getvalue().decode()]
                )
                st.success(
                    _("Loaded “{title}”: open it from the list. This browser keeps it.").format(
                        title=escape_markdown(_(lesson.title))
                    )
                )
        for lesson_id, lesson in uploaded.items():
            st.button(
                _("Remove “{title}” from this browser").format(
                    title=escape_markdown(_(lesson.title))
                ),
                key=f"les_remove_{lesson_id}",
                icon=":material/delete:",
                on_click=_remove,
                args=(lesson_id,),
            )


def _remove(lesson_id: str) -> None:
    st.session_state.get(UPLOADED, {}).pop(lesson_id, None)
    st.session_state.setdefault(DROPPING, []).append(lesson_id)
    st.session_state[UPLOADS] = st.session_state.get(UPLOADS, 0) + 1  # a fresh, empty uploader


def index_ui() -> None:
    """The list of lessons, each with its summary and a start button, then the upload (read
    first, so that a lesson just uploaded is already in the list)."""
    page_intro(_("Lessons"), _(ABOUT))
    listing = st.container()
    lesson_upload_ui()
    by_id, errors = lessons()
    for error in errors:
        listing.error(error.message, icon=":material/error:")
    shipped = class_shared.shipped_lessons()  # read once, not once per lesson
    for number, lesson in enumerate(by_id.values(), start=1):
        with listing.container(border=True):
            st.markdown(f"**{number}. {escape_markdown(_(lesson.title))}**")
            n_q = len(lesson.questions)
            st.caption(
                f"{escape_markdown(_(lesson.summary))} · "
                + ngettext("{n} step", "{n} steps", len(lesson.steps)).format(n=len(lesson.steps))
                + " · "
                + ngettext("{n} prediction", "{n} predictions", n_q).format(n=n_q)
            )
            with st.container(horizontal=True):
                st.button(
                    _("Start"), key=f"les_start_{lesson.id}", on_click=go, args=(lesson.id, 1)
                )
                teacher.start_button(lesson, 1, f"live_start_{lesson.id}", shipped)


def go(lesson_id: str | None, step: int) -> None:
    """Move to ``step`` (1-based; len+1 is the summary) of lesson ``lesson_id`` (None: the list)."""
    if lesson_id is None:
        st.query_params.pop("lesson", None)
        st.query_params.pop("step", None)
        return
    st.query_params["lesson"] = lesson_id
    st.query_params["step"] = str(step)


def current(by_id: dict[str, Lesson]) -> tuple[Lesson | None, int]:
    """The lesson and step (1-based, clamped; len+1 = summary) the URL names; a clear note when
    the URL names a lesson that does not exist."""
    lesson_id = st.query_params.get("lesson")
    if not lesson_id:
        return None, 0
    lesson = by_id.get(lesson_id)
    if lesson is None:
        st.warning(
            _("There is no lesson “{id}”; pick one below.").format(
                id=escape_markdown(lesson_id[:40])
            )
        )
        return None, 0
    step = parse_int(st.query_params.get("step"), 1)  # a bad number: the first step
    return lesson, min(max(step, 1), len(lesson.steps) + 1)


def nav_ui(lesson: Lesson, step: int, lead: teacher.Lead | None = None) -> None:
    """One compact row: back, where we are, next, the outline, the full page, the lesson list,
    and "Start a class" (with a class: its counts and menu)."""
    n = len(lesson.steps)
    row = st.container(horizontal=True, vertical_alignment="center")
    row.button(_("← Back"), key="les_back", disabled=step <= 1, on_click=shift, args=(lesson, -1))
    label = _("Step {k} of {n}").format(k=step, n=n) if step <= n else _("Your predictions")
    row.button(
        _("Next →") if step < n else _("Finish"),
        key="les_next",
        type="primary",
        disabled=step > n,
        on_click=shift,
        args=(lesson, 1),
    )
    if lead is None:  # with a class the row holds its counts and menu: the step alone
        row.markdown(f"**{escape_markdown(_(lesson.title))}** · {label}")
    else:
        row.markdown(f"**{label}**")
    with row.popover(_("Outline")):
        for i, s in enumerate(lesson.steps, start=1):
            mark = "❓ " if s.question else ""
            st.button(
                f"{i}. {mark}{_(s.title)}",
                key=f"les_outline_{i}",
                on_click=go,
                args=(lesson.id, i),
                type="tertiary",
            )
        st.button(_("All lessons"), key="les_all", on_click=go, args=(None, 0), type="tertiary")
        if lead is None:
            teacher.start_button(lesson, step, "live_start", class_shared.shipped_lessons())
    if step <= n:
        shown = lesson.steps[step - 1]
        page, params = step_view.FULL_PAGES[shown.view]
        row.page_link(
            f"app_pages/{page}/{page}.py", label=_("Open on its page"), query_params=params(shown)
        )
    if lead is not None:
        teacher.class_controls(lead, lesson, step, row)


def shift(lesson: Lesson, by: int) -> None:
    """Move ``by`` steps from where the URL is now, not from the step the control was drawn at:
    a presenter's second → can arrive before the page has redrawn for the first."""
    if st.query_params.get("lesson") != lesson.id:  # the lesson was left meanwhile
        return
    step = min(max(parse_int(st.query_params.get("step"), 1), 1), len(lesson.steps) + 1)
    target = step + by
    if 1 <= target <= len(lesson.steps) + 1:
        go(lesson.id, target)


def move(lesson: Lesson):
    def on_move(direction: str) -> None:
        shift(lesson, 1 if direction == "next" else -1)

    return on_move


def step_ui(lesson: Lesson, step: int, lead: teacher.Lead | None = None) -> None:
    """The step: narration beside the view (under it on a phone), or the summary after the last;
    with a class (``lead``), its questions are the class's."""
    if step > len(lesson.steps):
        if lead is not None:
            teacher.summary_ui(lead, lesson)
        else:
            summary_ui(lesson)
        return
    index = step - 1
    raw_step = lesson.steps[index]
    text_col, view_col = st.columns([2, 3] if not classroom_mode() else [1, 2], gap="medium")
    with text_col:
        narration_ui(raw_step)
        current_step = sentence_of(lesson, index, raw_step)
    if current_step.question is not None and lead is not None:
        key = f"les_class_{lesson.id}_{index}"
        teacher.question_ui(lead, current_step, key, text_col, view_col)
        return
    if current_step.question is not None:
        question_ui(lesson, index, current_step, text_col, view_col)
        return
    with view_col:
        step_view.show_view(current_step, f"les_view_{lesson.id}_{index}")


def where_now(lesson: Lesson, step: int) -> str:
    """Where the lesson is, in words (said by a screen reader when it changes)."""
    if step > len(lesson.steps):
        return _("{lesson}: your predictions.").format(lesson=_(lesson.title))
    return _("Step {k} of {n}: {title}").format(
        k=step, n=len(lesson.steps), title=_(lesson.steps[step - 1].title)
    )


def lesson_ui(lesson: Lesson, step: int) -> None:
    presenter_keys(move(lesson))
    lead = teacher.lead(lesson, step)
    if lead is not None:
        step = min(max(lead.info.step, 1), len(lesson.steps) + 1)  # the class's step
    nav_ui(lesson, step, lead)
    announce(where_now(lesson, step))
    # the join card above the step while the class gathers (its first step, before a reveal);
    # after that under it, so that the step and its reveal fill a projector's first screen
    card_first = lead is not None and step == 1 and not lead.info.revealed
    if card_first:
        teacher.join_card_ui(lead)
    step_ui(lesson, step, lead)
    if lead is not None and not card_first:
        teacher.join_card_ui(lead)


def main() -> None:
    by_id, _errors = lessons()
    lesson, step = current(by_id)
    if lesson is None:
        index_ui()
    else:
        lesson_ui(lesson, step)
    saved.keep_in_browser(
        st.session_state.setdefault(UPLOADED, {}),
        st.session_state.pop(SAVING, []),
        st.session_state.pop(DROPPING, []),
    )


main()
