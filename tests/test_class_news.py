"""What a screen reader hears in a live class (app_pages/lessons/class_shared.py class_news, said through
ui/announce.py's polite live region): the teacher's move, each stage of a vote, the reveal and
the end, in the page's language."""

from __future__ import annotations

from dataclasses import replace

from app_pages.lessons.class_shared import class_news
from app_pages.lessons.schema import load_folder
from i18n import set_language
from live.records import ClassInfo

LESSON = next(lesson for lesson in load_folder()[0] if lesson.id == "bahdanau")
INFO = ClassInfo("BCDFGH", "bahdanau", 1, False, False, 1, 0.0, 1e12, 3)


def test_each_change_of_the_class_is_said():
    assert class_news(INFO, LESSON) == "Step 1 of 6: A score for every source word"
    asked = replace(INFO, step=2)
    assert class_news(asked, LESSON).endswith("Make your prediction.")
    assert class_news(replace(asked, stage="closed"), LESSON).endswith("Voting is closed.")
    discuss = replace(asked, stage="discuss")
    assert class_news(discuss, LESSON).endswith(
        "Discuss with a neighbour who answered differently."
    )
    assert class_news(replace(asked, round=2), LESSON).endswith("Vote again.")
    assert class_news(replace(asked, revealed=True), LESSON) == (
        "Step 2 of 6: Predict one row. The teacher revealed the answer."
    )
    assert class_news(replace(INFO, step=7), LESSON).startswith("The class has reached its summary")
    assert class_news(replace(asked, ended=True), LESSON) == "The teacher ended the class."


def test_it_is_said_in_the_pages_language():
    set_language("zh")
    try:
        assert class_news(replace(INFO, ended=True), LESSON) == "老师结束了这堂课。"
        assert class_news(INFO, LESSON).startswith("第 1 步，共 6 步：")
    finally:
        set_language("en")
