"""The peer-instruction loop's arithmetic (app_pages/lessons/peer.py): which group each answer is
sent to in the discussion, the share that changed to the model's answer, the 35-70 % rule, and
the split in words."""

from __future__ import annotations

import pytest

from app_pages.lessons.peer import advice, changed_to, pairing, partner, split_text
from live.records import Tally


def test_each_group_talks_to_the_most_chosen_other_answer():
    counts = {0: 5, 2: 3, 4: 3, 7: 0}
    assert partner(counts, 0) == 2  # the next most chosen (the lower index of a tie)
    assert partner(counts, 2) == 0 and partner(counts, 4) == 0
    assert partner(counts, 7) == 0  # an option nobody chose: the most chosen
    assert partner(counts, None) is None  # did not vote: no group named
    assert partner({1: 4}, 1) is None  # everyone agrees: nobody to pair with
    assert pairing(counts) == [(0, 2), (2, 0), (4, 0)]
    assert pairing({}) == []


def test_the_share_that_changed_to_the_models_answer():
    pairs = [(0, 1), (2, 1), (1, 1), (1, 0), (0, 0)]
    assert changed_to(pairs, best=1) == (2, 5)  # moved to 1 from elsewhere; 1 -> 1 is no change
    assert changed_to([], best=1) == (0, 0)


@pytest.mark.parametrize(
    ("right", "words"),
    [(1, "under 35"), (2, "under 35"), (4, "between 35"), (7, "between 35"), (8, "over 70")],
)
def test_the_35_to_70_rule_is_a_suggestion_from_the_first_vote(right: int, words: str):
    tally = Tally(step=2, joined=10, answered=10, counts={0: right, 1: 10 - right})
    assert words in advice(tally, best=0)


def test_the_split_in_words_escapes_the_labels():
    tally = Tally(step=2, joined=3, answered=3, counts={0: 2, 1: 1})
    text = split_text(tally, ("![a](http://x.io/a)", "b"))
    assert text.startswith("\\!\\[a\\]\\(http") and "2 (67%)" in text and "b: 1 (33%)" in text
    assert "no answers" in split_text(Tally(2, 3, 0, {}), ("a", "b"))
