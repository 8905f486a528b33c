"""The Lessons page under AppTest, with the shipped models: every lesson to its summary, every
question kind guessed and revealed, the answer absent before the reveal, the URL's position
checked, a teacher's upload (good and broken), both languages."""

from __future__ import annotations

import json

import pytest

from app_pages.lessons.schema import load_folder
from tests.app_helpers import charts, open_app

pytestmark = pytest.mark.checkpoints
PAGE = "app_pages/lessons/lessons.py"
LESSONS, _ERRORS = load_folder()


def _goto(at, lesson: str, step: int):
    at.query_params["lesson"] = lesson
    at.query_params["step"] = str(step)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at) -> str:
    """Everything the page sends as text or chart data (what the browser would get)."""
    parts = [
        str(e.value)
        for kind in ("markdown", "caption", "info", "success", "table")
        for e in at.get(kind)
    ]
    parts += [json.dumps(c.figure) for c in charts(at)]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def at():
    return open_app(PAGE)


def test_the_list_shows_every_lesson_and_starts_one(at):
    shown = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert all(lesson.title in shown for lesson in LESSONS)
    assert all(at.button(key=f"les_start_{lesson.id}") for lesson in LESSONS)
    at.button(key=f"les_start_{LESSONS[1].id}").click().run()
    assert at.query_params["lesson"] == LESSONS[1].id and at.query_params["step"] == "1"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.id)
def test_every_lesson_runs_to_its_summary(at, lesson):
    for step in range(1, len(lesson.steps) + 1):
        _goto(at, lesson.id, step)
        assert not at.error, [e.value for e in at.error]
        title = lesson.steps[step - 1].title
        assert any(title in m.value.replace("\\", "") for m in at.markdown), title
        if lesson.steps[step - 1].question is None:
            assert charts(at) or at.get("table"), f"{lesson.id} step {step} shows no view"
    at.button(key="les_next").click().run()
    assert at.query_params["step"] == str(len(lesson.steps) + 1)
    assert at.table  # the predictions, in one table
    assert "None" not in [m.value for m in at.markdown]  # nothing written by Streamlit's magic


def test_next_and_back_move_from_where_the_url_is_now(at):
    """A presenter's second press can reach the server before the page was redrawn for the
    first: the move starts from the URL's step, not from the step the control was drawn at."""
    lesson = LESSONS[0]
    _goto(at, lesson.id, 2)
    at.query_params["step"] = "4"  # moved on meanwhile; the buttons were drawn at step 2
    at.button(key="les_next").click().run()
    assert at.query_params["step"] == "5"
    at.query_params["step"] = "3"
    at.button(key="les_back").click().run()
    assert at.query_params["step"] == "2"
    at.query_params["lesson"] = LESSONS[1].id  # left for another lesson: a stale press is ignored
    at.query_params["step"] = "1"
    at.button(key="les_next").click().run()
    assert at.query_params["lesson"] == LESSONS[1].id and at.query_params["step"] == "1"


def _questions():
    return [(lesson, i) for lesson in LESSONS for i in lesson.questions]


@pytest.mark.parametrize(
    ("lesson", "index"), _questions(), ids=lambda v: v.id if hasattr(v, "id") else str(v)
)
def test_every_question_hides_its_answer_until_the_guess_is_committed(at, lesson, index):
    _goto(at, lesson.id, index + 1)
    kind = lesson.steps[index].question.kind
    reveal = at.button(key=next(b.key for b in at.button if b.key and b.key.endswith("_reveal")))
    assert reveal.disabled  # nothing to commit yet
    before = _shown(at)
    charts_before = len(charts(at))
    assert charts_before <= (1 if kind == "region" else 0)  # the scene itself, never its map
    assert "your guess" not in before
    group = at.button_group[0]
    group.set_value(0).run()
    reveal = at.button(key=reveal.key)
    assert not reveal.disabled
    reveal.click().run()
    assert not at.exception
    verdicts = [e.value for e in (*at.success, *at.info)]
    assert verdicts, "no verdict after the reveal"
    after = _shown(at)
    for sent in charts(at):  # the answer's numbers were nowhere before the reveal
        for trace in sent.data:
            if trace.get("type") == "bar":
                top = repr(max(trace["x"]))  # as the chart data writes it
                assert top in after and top not in before, top
    drawn = [c.key for c in charts(at)]
    assert any(key and "_chart" in key for key in drawn), drawn  # the answer is drawn now
    assert at.text_input(key=next(t.key for t in at.text_input if t.key.endswith("_note")))


def test_the_verdict_gives_the_weight_and_rank_of_a_click():
    at = open_app(PAGE)
    _goto(at, "bahdanau", 2)  # which English word does noir look at?
    group = at.button_group[0]
    words = [str(option) for option in group.options]
    group.set_value(words.index("black")).run()
    at.button(key=next(b.key for b in at.button if b.key and b.key.endswith("_reveal"))).click()
    at.run()
    text = " ".join(e.value for e in at.success)
    assert "rank 1 of" in text and "Right" in text
    at.button(key="les_next").click().run()
    at.button(key="les_next").click().run()
    at.button(key="les_next").click().run()
    at.button(key="les_next").click().run()
    at.button(key="les_next").click().run()  # the summary
    rows = at.table[0].value
    assert list(rows.iloc[:, 2])[0] == "black" and "right" in list(rows.iloc[:, 4])[0]


def test_the_summary_names_what_each_question_asked():
    """Each row of the end-of-lesson table names its question's word, head or d_k (never the
    same prompt on every row), answered or not; a note the student wrote is in it."""
    at = open_app(PAGE)
    lesson = next(lesson for lesson in LESSONS if lesson.id == "bahdanau")
    first = lesson.questions[0]
    _goto(at, lesson.id, first + 1)
    at.button_group[0].set_value(0).run()
    at.button(key=next(b.key for b in at.button if b.key and b.key.endswith("_reveal"))).click()
    at.run()
    at.text_input(key=next(t.key for t in at.text_input if t.key.endswith("_note"))).input(
        "<b>because</b>"
    ).run()
    _goto(at, lesson.id, len(lesson.steps) + 1)
    rows = at.table[0].value
    asked = list(rows["Question"])
    assert len(asked) == len(lesson.questions) and len(set(asked)) == len(asked), asked
    assert all(a.endswith(" →") for a in asked), asked  # the French word asked about
    prompts = {q.question.prompt for q in lesson.steps if q.question}
    assert not prompts & set(asked)
    assert list(rows["Your note"])[0] == "<b>because</b>"  # as text


def test_bad_url_positions_get_a_message_and_the_list(at):
    _goto(at, "no-such-lesson", 1)
    assert any("no-such-lesson" in w.value.replace("\\", "") for w in at.warning)
    assert at.button(key=f"les_start_{LESSONS[0].id}")
    _goto(at, LESSONS[0].id, 999)  # clamped to the summary
    assert at.button(key="les_next").disabled
    _goto(at, LESSONS[0].id, "-3")
    assert not at.button(key="les_next").disabled and at.button(key="les_back").disabled


def test_chinese_lessons():
    at = open_app(PAGE, first={"lang": "zh"})
    assert any("课程" in m.value or "瓶颈" in m.value for m in at.markdown)
    _goto(at, "bahdanau", 2)
    assert (
        at.button(key="les_next").label.startswith("下一步")
        or "→" in at.button(key="les_next").label
    )
    assert any("法语" in m.value for m in at.markdown)


def test_a_translations_step_without_a_pair_shows_both_models(at):
    """A ``translations`` step with a sentence and no reference pair (the bottleneck's first
    step) shows the model without attention's translation too, not a dash."""
    _goto(at, "bottleneck", 1)
    table = at.table[0].value
    without, with_attention = table["without attention"][0], table["with attention"][0]
    assert without not in ("", "—") and with_attention not in ("", "—"), table


WINDOWS = [(lesson, i) for lesson, i in _questions() if lesson.steps[i].question.kind == "window"]


@pytest.mark.parametrize(("lesson", "index"), WINDOWS[:1], ids=lambda v: getattr(v, "id", str(v)))
def test_window_options_are_words_without_the_subword_mark(lesson, index):
    at = _goto(open_app(PAGE), lesson.id, index + 1)  # its own session: the question not answered
    options = [str(option) for option in at.button_group[0].options]
    assert options and not any("▁" in option for option in options), options
    assert options[0].startswith("0: ") and len(options[0]) > 3
