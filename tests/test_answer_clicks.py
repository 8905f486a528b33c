"""bench.answer_clicks, the live class's answer-click stress: each student clicks another option
each round, side by side on different ones; and a short run against a real server loses no
click (a lost one was Streamlit's fragment race, docs/deployment.md)."""

from __future__ import annotations

import pytest

from bench.answer_clicks import WORDS, click_rounds, word_for
from serve.launch import streamlit_server


def test_each_round_another_option_and_students_apart():
    for student in range(3):
        picks = [word_for(r, student) for r in range(len(WORDS))]
        assert sorted(picks) == sorted(WORDS)  # every option in turn
        assert all(picks[r] != picks[r + 1] for r in range(len(picks) - 1))
    assert len({word_for(0, s) for s in range(3)}) == 3


@pytest.mark.browser
def test_a_short_run_loses_no_click(browser, monkeypatch, tmp_path):
    monkeypatch.setenv("ATLAS_CLASS_DIR", str(tmp_path / "classes"))  # the server's and ours
    with streamlit_server("app.py") as (url, __):
        clicks = click_rounds(browser, url, rounds=4, pages=2, shots=tmp_path)
    assert (clicks.made, clicks.lost) == (8, 0), sorted(p.name for p in tmp_path.glob("*.png"))
