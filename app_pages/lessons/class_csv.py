"""The class's answers as a CSV file for the teacher: one row per student and question (the
anonymous number, the optional nickname), both votes, and whether the answer matched the model."""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from app_pages.lessons import class_shared
from app_pages.lessons.schema import Lesson
from i18n import _

if TYPE_CHECKING:
    from app_pages.lessons.teacher import Lead


def answers_csv(lead: Lead, lesson: Lesson) -> str:
    """Every answer, one row per student and question (anonymous numbers, the optional
    nickname) with both votes: ``choice`` and ``matched`` are the last vote's (the second where
    there was one), ``first_choice`` and ``second_choice`` each vote's (empty: not voted), with
    the model's top choice."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "step",
            "question",
            "student",
            "nickname",
            "choice",
            "model_top",
            "matched",
            "first_choice",
            "second_choice",
        ]
    )
    posed_of = dict(class_shared.posed_questions(lesson))
    votes: dict[tuple[int, int], dict[int, int]] = {}
    names: dict[int, str] = {}
    for row in lead.store.answers(lead.code, lead.key):
        posed = posed_of.get(row.step - 1)
        if posed is not None and 0 <= row.choice < len(posed.labels):
            votes.setdefault((row.step, row.student), {})[row.round] = row.choice
            names[row.student] = row.nickname
    for (step, student), by_round in votes.items():
        posed = posed_of[step - 1]
        best, last = posed.answer.best, by_round[max(by_round)]
        label = {r: _csv_safe(posed.labels[c]) for r, c in by_round.items()}
        writer.writerow(
            [
                step,
                _(lesson.steps[step - 1].question.prompt),
                student,
                _csv_safe(names[student]),
                _csv_safe(posed.labels[last]),
                _csv_safe(posed.labels[best]),
                int(last == best),
                label.get(1, ""),
                label.get(2, ""),
            ]
        )
    return out.getvalue()


def _csv_safe(text: str) -> str:
    """A cell a spreadsheet will not run as a formula (=, +, -, @ first)."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@") else text
