"""A question's ``target`` word must be in the model's output: a mistyped or stale target (zèbre
in a sentence about a dog) is named in a warning with the word the question asks about instead,
never accepted silently; every shipped question's target is found by its model."""

from __future__ import annotations

import pytest

from app_pages.lessons.schema import load_folder, parse_lesson
from tests.app_helpers import open_app

pytestmark = pytest.mark.checkpoints
PAGE = "app_pages/lessons/lessons.py"
MISSING = "has no such word"


def _lesson(view: str, target: str, kind: str, source: str) -> bytes:
    return f"""
id = "mine"
title = "Mine"
summary = "One question."

[[step]]
title = "Predict"
text = "Where?"
view = "{view}"
{source}

[step.question]
kind = "{kind}"
target = "{target}"
prompt = "Click."
explain = "Because."
""".encode()


def _warnings(data: bytes) -> str:
    lesson = parse_lesson(data, "mine.toml")
    at = open_app(PAGE)
    at.session_state["les_uploaded"] = {lesson.id: lesson}
    at.query_params["lesson"] = lesson.id
    at.query_params["step"] = "1"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return " ".join(w.value for w in at.warning)


@pytest.mark.parametrize(
    ("view", "kind", "source", "word"),
    [
        ("alignment", "token", 'sentence = "A black dog runs on the green grass."', "noir"),
        ("local", "window", 'sentence = "A black dog runs on the green grass."', "noir"),
        ("caption", "region", "scene = 3", "cat"),
    ],
)
def test_a_target_the_model_never_writes_is_named_with_the_word_asked_instead(
    view, kind, source, word
):
    assert MISSING not in _warnings(_lesson(view, word, kind, source))
    warned = _warnings(_lesson(view, "zèbre", kind, source))
    assert "zèbre" in warned and MISSING in warned


def test_every_shipped_target_is_in_its_models_output():
    lessons, _errors = load_folder()
    at = open_app(PAGE)
    for lesson in lessons:
        for index in lesson.questions:
            if lesson.steps[index].question.target is None:
                continue
            at.query_params["lesson"] = lesson.id
            at.query_params["step"] = str(index + 1)
            at.run()
            assert not at.exception, [e.value for e in at.exception]
            warned = " ".join(w.value for w in at.warning)
            assert MISSING not in warned, (lesson.id, index + 1, warned)
