"""What the teacher's and the students' views of a live class share: the class store (one per
process, the database shared by every process), the join link, and the class's answers drawn as a
spread beside the model's answer."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import lru_cache
from urllib.parse import urlencode, urlsplit

import numpy as np
import streamlit as st

from app_pages.lessons import predict, step_view
from app_pages.lessons.answers import CLICK_KINDS, score_answer
from app_pages.lessons.schema import Lesson, LessonError, Question, load_folder, parse_lesson
from i18n import _, ngettext
from live.records import ClassInfo, Tally
from live.store import Store, open_store
from ui.text import escape_markdown
from viz.lessons import class_bars

_LOG = logging.getLogger(__name__)
COUNT_SECONDS = 2.0  # how often the teacher's counts refresh
DRAWN_IN_SPREAD = ("token",)  # kinds whose whole answer the spread shows: no second chart


@st.cache_resource(show_spinner=False)
def _open() -> Store:
    return open_store()


def class_store() -> Store | None:
    """The class store (ATLAS_CLASS_DB, else SQLite under ATLAS_CLASS_DIR); None after a clear
    message when it cannot be opened (the rest of the app goes on)."""
    try:
        return _open()
    except Exception:  # a wrong URL, a database that refuses: say so, keep the page
        _LOG.exception("the class store did not open")
        st.error(
            _("Live classes are unavailable: the class database could not be opened."),
            icon=":material/error:",
        )
        return None


def shipped_lessons() -> dict[str, Lesson]:
    """The lessons that ship with the atlas (a class on a teacher's own lesson keeps its file in
    the class store: :func:`class_lesson`)."""
    found, _errors = load_folder()
    return {lesson.id: lesson for lesson in found}


def class_lesson(store: Store, info: ClassInfo) -> Lesson | None:
    """The lesson the class ``info`` follows: the teacher's own file kept with the class (read
    once per class and process, checked again as an upload is), else the shipped lesson of that
    id; None when neither (the class is gone, or the file no longer passes the schema)."""
    return _class_lesson(store, info.code, info.created, info.lesson)


@lru_cache(maxsize=64)
def _class_lesson(store: Store, code: str, created: float, lesson_id: str) -> Lesson | None:
    text = store.lesson_text(code)  # a class's file never changes; (code, created) is one class
    if text is None:
        return shipped_lessons().get(lesson_id)
    try:
        lesson = parse_lesson(text.encode(), f"{lesson_id}.toml")
    except LessonError:
        _LOG.warning("the lesson of class %s no longer passes the schema", code)
        return None
    return lesson if lesson.id == lesson_id else None


def posed_questions(lesson: Lesson) -> Iterator[tuple[int, predict.Posed]]:
    """(step index, the question posed on the model) for each question of ``lesson`` the
    models can answer (one they refuse has had its message)."""
    for index in lesson.questions:
        posed = predict.pose(lesson.steps[index])
        if posed is not None:
            yield index, posed


def site_root() -> str:
    """The app's address as the browser sees it (behind a proxy too), without the page's path."""
    parts = urlsplit(st.context.url or "")
    path = parts.path.rsplit("/", 1)[0] if parts.path.count("/") > 1 else ""
    return f"{parts.scheme}://{parts.netloc}{path}" if parts.netloc else ""


def join_url(code: str) -> str:
    """The students' link: the join page with the code filled in."""
    return f"{site_root()}/join?{urlencode({'code': code})}"


def spaced(code: str) -> str:
    """A code as it is read aloud and typed: ``ABC DEF``."""
    return f"{code[:3]} {code[3:]}"


def shares(tally: Tally, n_options: int) -> np.ndarray:
    """(n_options,) the share of the answers that chose each option (zeros when none)."""
    counts = np.array([tally.counts.get(i, 0) for i in range(n_options)], dtype=float)
    return counts / max(tally.answered, 1)


def modal_choice(tally: Tally, fallback: int) -> int:
    """The option most of the class chose (the lowest index among ties); ``fallback`` if none."""
    if not tally.counts:
        return fallback
    return min(tally.counts, key=lambda i: (-tally.counts[i], i))


def spread_line(tally: Tally, posed: predict.Posed) -> str:
    """How many chose the model's top option, in words (markdown; the label escaped)."""
    best = posed.answer.best
    matched = tally.counts.get(best, 0)
    return _(
        "{matched} of {answered} answers ({share:.0%}) chose the model's top choice, **{best}**."
    ).format(
        matched=matched,
        answered=tally.answered,
        share=matched / max(tally.answered, 1),
        best=escape_markdown(posed.labels[best]),
    )


def spread_ui(
    tally: Tally, question: Question, posed: predict.Posed, key: str, mine: int | None = None
) -> None:
    """The class's answers over the same options as the model's answer, beside the model's own
    weights (or shares) where they are on a 0-1 scale; ``mine``: the viewer's own answer."""
    counts = tuple(tally.counts.get(i, 0) for i in range(len(posed.labels)))
    weights = question.kind in (*CLICK_KINDS, "pattern")

    def build():
        return class_bars(
            posed.labels,
            list(counts),
            posed.answer.best,
            title=ngettext(
                "The class's guesses ({n} answer)",
                "The class's guesses ({n} answers)",
                tally.answered,
            ).format(n=tally.answered),
            class_name=_("the class"),
            value_name=_("share of the answers") if not weights else _("share · weight"),
            model_values=posed.answer.values if weights else None,
            model_name=_("the model ({name})").format(name=posed.value_name),
            mine=mine,
        )

    memo = ("spread", posed.step, posed.labels, question.kind, counts, mine)
    step_view.chart_once(memo, build, f"{key}_spread")
    st.markdown(spread_line(tally, posed))


def model_reveal(question: Question, posed: predict.Posed, guess: int, key: str) -> None:
    """The model's answer drawn as the lessons draw it, with ``guess`` over it."""
    posed.reveal(score_answer(question.kind, posed.answer, guess), f"{key}_answer")


def class_news(info: ClassInfo, lesson: Lesson) -> str:
    """The class's state in one sentence, for a screen reader when it changes (the teacher's
    move, a vote's stage, the reveal, the end)."""
    if info.ended:
        return _("The teacher ended the class.")
    n = len(lesson.steps)
    if info.step > n:
        return _("The class has reached its summary: your predictions and the model's.")
    step = lesson.steps[info.step - 1]
    where = _("Step {k} of {n}: {title}").format(k=info.step, n=n, title=_(step.title))
    if step.question is None:
        return where
    if info.revealed:
        return _("{where}. The teacher revealed the answer.").format(where=where)
    stage = {
        "closed": _("Voting is closed."),
        "split": _("The teacher shows how the class answered."),
        "discuss": _("Discuss with a neighbour who answered differently."),
    }.get(info.stage)
    if stage is None:
        stage = _("Vote again.") if info.round > 1 else _("Make your prediction.")
    return f"{where}. {stage}"
