"""Lessons as data (app_pages/lessons/schema.py) and the answers and scores of every question
kind (app_pages/lessons/answers.py): pure, no models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app_pages.lessons.answers import (
    bleu_answer,
    pattern_answer,
    region_answer,
    region_masses,
    scaling_answer,
    score_answer,
    shuffle_answer,
    target_row,
    token_answer,
    window_answer,
)
from app_pages.lessons.schema import (
    KINDS,
    LESSONS_DIR,
    LessonError,
    load_folder,
    parse_lesson,
)
from app_pages.lessons.sights import answered_first

GOOD = b"""
id = "mine"
title = "My lesson"
summary = "One step."

[[step]]
title = "A row"
text = "Where does noir look?"
view = "alignment"
sentence = "a black dog"

[step.question]
kind = "token"
target = "noir"
prompt = "Click the word."
explain = "Black."
"""


def test_shipped_lessons_follow_the_story_and_the_schema():
    lessons, errors = load_folder()
    assert errors == []
    assert [lesson.id for lesson in lessons][:6] == [
        "bottleneck", "bahdanau", "luong", "anatomy", "self-attention", "positions",
    ]  # fmt: skip
    assert all(6 <= len(lesson.steps) <= 12 for lesson in lessons)
    questions = [step.question for lesson in lessons for step in lesson.steps if step.question]
    assert len(questions) >= 12
    assert {q.kind for q in questions} == set(KINDS)  # every kind is asked somewhere
    assert len({q.kind for q in questions}) >= 6


def test_no_shipped_question_is_answered_before_it_is_asked():
    lessons, _errors = load_folder()
    assert {lesson.id: answered_first(lesson.steps) for lesson in lessons} == {
        lesson.id: [] for lesson in lessons
    }


def _two_steps(first: str, second: str = GOOD.split(b"[[step]]")[1].decode()) -> bytes:
    """GOOD's head, then ``first`` (a step's table), then ``second`` (GOOD's question step)."""
    head = GOOD.split(b"[[step]]")[0].decode()
    return f"{head}[[step]]\n{first}\n[[step]]{second}".encode()


VIEW = 'title = "t"\ntext = "x"\n'


@pytest.mark.parametrize(
    ("first", "answered"),
    [
        (VIEW + 'view = "alignment"\nsentence = "a black dog"', True),  # the whole matrix
        (VIEW + 'view = "alignment"\nsentence = "A  Black dog"', True),  # the same input, typed so
        (VIEW + 'view = "stages"\nsentence = "a black dog"', True),  # the same numbers, in stages
        (VIEW + 'view = "alignment"\nsentence = "a white cat"', False),  # another sentence
        (VIEW + 'view = "alignment"\nmodel = "luong-dot"\nsentence = "a black dog"', False),
        (VIEW + 'view = "local"\nsentence = "a black dog"', False),  # another model's view
    ],
)
def test_a_view_of_the_same_input_before_a_question_is_refused_naming_both_steps(first, answered):
    data = _two_steps(first)
    if not answered:
        assert parse_lesson(data, "mine.toml").questions == [1]
        return
    error = _broken(data)
    assert error.step == 2 and "step 1" in error.problem


def test_an_earlier_reveal_answers_only_its_own_part():
    noir = GOOD.split(b"[[step]]")[1].decode()
    verte = noir.replace('target = "noir"', 'target = "verte"')
    assert parse_lesson(_two_steps(noir.strip(), verte), "mine.toml").questions == [0, 1]
    assert _broken(_two_steps(noir.strip(), noir)).step == 2  # the same row, asked twice


@pytest.mark.parametrize(
    ("shown", "answered"),
    [
        ('view = "heads"', True),  # layer 1's twelve heads
        ('view = "heads"\nlayer = 2', False),
        ('view = "head"\nlayer = 1\nhead = 3', True),
        ('view = "head"\nlayer = 1\nhead = 1', False),
    ],
)
def test_a_head_is_answered_by_a_view_that_shows_that_head(shown, answered):
    question = (
        '\ntitle = "q"\ntext = "x"\nview = "head"\nsentence = "the cat sat"\n'
        '[step.question]\nkind = "pattern"\nlayer = 1\nhead = 3\nprompt = "p"\nexplain = "e"\n'
    )
    data = _two_steps(f'{VIEW}{shown}\nsentence = "the cat sat"', question)
    if answered:
        assert _broken(data).step == 2
    else:
        assert parse_lesson(data, "mine.toml").questions == [1]


def test_a_good_file_parses():
    lesson = parse_lesson(GOOD, "mine.toml")
    assert lesson.id == "mine" and lesson.questions == [0]
    assert lesson.steps[0].question.target == "noir"


def _broken(text: bytes) -> LessonError:
    with pytest.raises(LessonError) as info:
        parse_lesson(text, "bad.toml")
    assert info.value.source == "bad.toml" and "bad\\.toml" in info.value.message  # escaped
    return info.value


@pytest.mark.parametrize(
    ("change", "step", "words"),
    [
        ((b'id = "mine"', b'id = "mine'), None, "TOML"),  # bad syntax
        ((b'view = "alignment"', b'view = "nowhere"'), 1, "nowhere"),  # unknown view
        ((b'kind = "token"', b'kind = "guess"'), 1, "guess"),  # unknown question kind
        ((b'explain = "Black."\n', b""), 1, "explain"),  # a question without its answer's text
        ((b'kind = "token"', b'kind = "region"'), 1, "caption"),  # a kind on the wrong view
        ((b'sentence = "a black dog"', b"sentence = 3"), 1, "sentence"),
        ((b'id = "mine"', b'id = "Mine!"'), None, "id"),
        ((b'target = "noir"', b'target = "noir"\nrun = "os.system"'), 1, "run"),  # unknown key
    ],
)
def test_each_kind_of_broken_file_names_the_file_the_step_and_the_problem(change, step, words):
    error = _broken(GOOD.replace(*change))
    assert error.step == step
    assert words in error.problem


def test_a_bleu_question_needs_its_pair_and_files_have_limits():
    bleu = GOOD.replace(b'view = "alignment"', b'view = "translations"').replace(
        b'kind = "token"', b'kind = "bleu"'
    )
    assert "pair" in _broken(bleu).problem
    assert "UTF-8" in _broken(b"\xff\xfe\x00").problem
    assert "bytes" in _broken(b"#" * 70_000).problem
    many = GOOD + b"\n".join([b'[[step]]\ntitle = "t"\ntext = "x"\nview = "scaling"'] * 12)
    assert "steps" in _broken(many).problem


def test_a_broken_file_in_the_folder_leaves_the_others_working(tmp_path: Path):
    for path in LESSONS_DIR.glob("*.toml"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / "00-broken.toml").write_bytes(b"id = [")
    (tmp_path / "99-again.toml").write_bytes(GOOD.replace(b'"mine"', b'"bahdanau"'))
    lessons, errors = load_folder(tmp_path)
    assert len(lessons) == len(list(LESSONS_DIR.glob("*.toml")))
    assert [e.source for e in errors] == ["00-broken.toml", "99-again.toml"]
    assert "bahdanau" in errors[1].problem


def test_target_row_finds_the_word_else_the_most_peaked_word():
    weights = np.array([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8], [1.0, 0.0]])
    tokens = ["▁un", "▁chien", "▁noir", "</s>"]
    assert target_row(tokens, "Noir", weights) == 2
    assert target_row(tokens, "absent", weights) == 1  # </s> is never chosen


def test_token_score_is_the_weight_and_its_rank():
    answer = token_answer(["a", "black", "dog"], np.array([0.1, 0.7, 0.2]))
    assert answer.best == 1
    right, wrong = score_answer("token", answer, 1), score_answer("token", answer, 0)
    assert right.correct and right.rank == 1 and right.value == pytest.approx(0.7)
    assert not wrong.correct and wrong.rank == 3 and wrong.value == pytest.approx(0.1)
    with pytest.raises(ValueError):
        score_answer("token", answer, 3)


def test_window_score_is_the_distance_to_p_t():
    answer = window_answer(["a", "b", "c", "d"], np.array([0.1, 0.6, 0.3, 0.0]), 1.4)
    assert answer.best == 1 and answer.centre == pytest.approx(1.4)
    near, far = score_answer("window", answer, 2), score_answer("window", answer, 3)
    assert near.correct and near.distance == pytest.approx(0.6)
    assert not far.correct and far.distance == pytest.approx(1.6)


def test_region_masses_add_up_and_find_the_corner():
    alpha = np.zeros((7, 7))
    alpha[6, 0] = 0.7  # bottom left cell
    alpha[3, 3] = 0.3  # the centre cell
    masses = region_masses(alpha)
    assert masses.sum() == pytest.approx(1.0)
    assert masses[6] == pytest.approx(0.7) and masses[4] == pytest.approx(0.3)
    names = tuple(str(i) for i in range(9))
    assert region_answer(alpha, names).best == 6
    shared = region_masses(np.full((7, 7), 1 / 49))  # 7 cells over 3 parts: borders shared
    assert shared == pytest.approx(np.full(9, 1 / 9))


def test_patterns_of_three_kinds_of_head():
    T = 6
    previous = np.eye(T, k=-1)
    previous[0, 0] = 1.0
    broad = np.full((T, T), 1 / T)
    patterns = ("previous", "diagonal", "broad")
    assert pattern_answer(previous, patterns).best == 0
    assert pattern_answer(np.eye(T), patterns).best == 1
    assert pattern_answer(broad, patterns).best == 2


def test_choices_scaling_shuffle_bleu():
    assert scaling_answer(2.9, 0.4).best == 0  # the scaled softmax is flatter
    assert scaling_answer(1.5, 1.5).best == 2  # d_k = 1: the same
    assert shuffle_answer(1e-15).best == 0 and shuffle_answer(0.2).best == 1
    answer = bleu_answer((27.4, 100.0), (47.9, 100.0))
    assert answer.best == 0 and answer.values == pytest.approx([20.5, 0.0])
    assert score_answer("bleu", answer, 0).correct and not score_answer("bleu", answer, 1).correct
