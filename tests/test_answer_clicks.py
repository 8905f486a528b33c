"""bench.answer_clicks, the live class's answer-click stress: each student clicks another option
each round, side by side on different ones; and a short run against a real server loses no
click (a lost one was Streamlit's fragment race, docs/deployment.md)."""

from __future__ import annotations

import pytest

from bench.answer_clicks import WORDS, main, word_for


def test_each_round_another_option_and_students_apart():
    for student in range(3):
        picks = [word_for(r, student) for r in range(len(WORDS))]
        assert sorted(picks) == sorted(WORDS)  # every option in turn
        assert all(picks[r] != picks[r + 1] for r in range(len(picks) - 1))
    assert len({word_for(0, s) for s in range(3)}) == 3


@pytest.mark.browser
def test_a_short_run_loses_no_click(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # its screenshots of lost clicks go under runs/ here
    monkeypatch.setenv("ATLAS_CLASS_DIR", str(tmp_path / "unused"))  # main sets its own
    main(4, 2)
    assert "answer clicks: 8 made, 0 lost" in capsys.readouterr().out
