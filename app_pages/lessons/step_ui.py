"""One step on screen: the narration beside the live view; for a question, the options and the
reveal, and the student's answers of the lesson (kept in the session) for the summary."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import streamlit as st

from app_pages.lessons import predict, step_view
from app_pages.lessons.answers import Score, score_answer
from app_pages.lessons.schema import Lesson, Step
from i18n import _
from ui.tables import table_ui
from ui.text import escape_markdown

ANSWERS = "les_answers"  # session state: (lesson id, step) -> Record


@dataclass(frozen=True)
class Record:
    """A revealed question: what it asked (``Posed.asked``), the guess's and the answer's labels,
    the score, the note."""

    asked: str
    guess: str
    answer: str
    score: Score
    note: str = ""


def _state_key(lesson: Lesson, index: int, step: Step) -> str:
    """Widget keys of one question: per lesson, step and sentence (a new sentence, a new guess)."""
    digest = hashlib.sha1(f"{step.sentence}|{step.scene}".encode()).hexdigest()[:8]
    return f"les_q_{lesson.id}_{index}_{digest}"


def records() -> dict[tuple[str, int], Record]:
    return st.session_state.setdefault(ANSWERS, {})


def sentence_of(lesson: Lesson, index: int, step: Step) -> Step:
    """The step with the student's own sentence where the step invites one (``try_it``)."""
    if not step.try_it:
        return step
    raw = st.text_input(
        _("Try it yourself: type an English sentence and press Enter"),
        value=step.sentence,
        key=f"les_try_{lesson.id}_{index}",
        max_chars=step_view.compute.MAX_SHUFFLE_TOKENS * 20,
    )
    return replace(step, sentence=raw or "")


def narration_ui(step: Step) -> None:
    st.markdown(f"#### {escape_markdown(_(step.title))}")
    st.markdown(_(step.text))


def question_ui(lesson: Lesson, index: int, step: Step, text_col, view_col) -> None:
    """Ask (the prompt under the narration, the options where the chart will be), or show the
    reveal when the student has committed a guess: the verdict and the explanation under the
    narration, the answer with the guess drawn over it in the chart's place."""
    question = step.question
    posed = predict.ask_ui(step, text_col, view_col)
    if posed is None:
        return
    key = _state_key(lesson, index, step)
    revealed: Score | None = st.session_state.get(f"{key}_score")
    if revealed is not None:
        _reveal_ui(lesson, index, question, posed, revealed, key, text_col, view_col)
        return
    with view_col:
        if posed.preview is not None:
            posed.preview(key)
        _guess_ui(lesson, index, question, posed, key)


def _guess_ui(lesson: Lesson, index: int, question, posed: predict.Posed, key: str) -> None:
    guess = st.pills(
        _("Your guess"),
        list(range(len(posed.labels))),
        format_func=lambda i: posed.labels[i],
        key=f"{key}_guess",
        wrap=True,  # every token in view: a row that scrolls sideways hides some
    )

    def commit() -> None:
        chosen = st.session_state.get(f"{key}_guess")
        if chosen is None:
            return
        s = score_answer(question.kind, posed.answer, int(chosen))
        st.session_state[f"{key}_score"] = s
        records()[(lesson.id, index)] = Record(
            posed.asked, posed.labels[s.guess], posed.labels[posed.answer.best], s
        )

    st.button(
        _("Lock in my guess and reveal"),
        type="primary",
        disabled=guess is None,
        on_click=commit,
        key=f"{key}_reveal",
    )
    if guess is None:
        st.caption(_("Pick one option: the model's answer appears only after you commit."))


def _reveal_ui(
    lesson, index, question, posed, revealed: Score, key: str, text_col, view_col
) -> None:
    with view_col:
        posed.reveal(revealed, f"{key}_chart")
    with text_col:
        box = st.success if revealed.correct else st.info
        box(predict.verdict(question, posed, revealed))
        st.markdown(_(question.explain))
        note = st.text_input(
            _("Explain the gap (optional, one line)"),
            key=f"{key}_note",
            max_chars=predict.NOTE_CHARS,
        )
    record = records().get((lesson.id, index))
    if record is not None and note != record.note:
        records()[(lesson.id, index)] = replace(record, note=note)


def summary_ui(lesson: Lesson) -> None:
    """The student's predictions of the lesson, right and wrong, in one table that a phone shows
    whole: each row names what was asked (the French word, the head, d_k), the guess, the
    model's answer and the result; the notes, where the student wrote any."""
    st.markdown("### " + _("Your predictions"))
    done = records()
    rows = []
    for index in lesson.questions:
        record = done.get((lesson.id, index))
        if record is None:  # not answered: what it asks, from the question posed now
            posed = predict.pose(lesson.steps[index])
            asked = posed.asked if posed is not None else "—"
        rows.append(
            {
                _("Step"): index + 1,
                _("Question"): record.asked if record else asked,
                _("Your guess"): record.guess if record else "—",
                _("Model"): record.answer if record else "—",
                _("Result"): (_("right") if record.score.correct else _("not quite"))
                if record
                else _("not answered"),
            }
        )
        if record is not None and record.note:
            rows[-1][_("Your note")] = record.note
    right = sum(
        1 for index in lesson.questions if (r := done.get((lesson.id, index))) and r.score.correct
    )
    st.markdown(
        _("{right} of {n} predictions matched the model.").format(
            right=right, n=len(lesson.questions)
        )
    )
    summary_table(rows)


def summary_table(rows: list[dict[str, object]]) -> None:
    """An end-of-lesson table (the student's, the class's): a static table whose cells wrap, so
    that every column fits a phone's width; its text shown as text, never as markdown or HTML.
    A column only some rows have (a note) is blank in the others."""
    columns = list(dict.fromkeys(name for row in rows for name in row))
    table_ui([{name: row.get(name, "") for name in columns} for row in rows])
