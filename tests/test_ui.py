"""Pure helpers of ui/: URL parsing, sanitizers, CSV, classroom styling."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.sentence import Sentence, clean_text
from ui.charts import legible
from ui.downloads import matrix_csv
from ui.fit import (
    CLASSROOM_COLUMN_PX,
    CLASSROOM_FONT,
    CLASSROOM_MIN_PX,
    CLASSROOM_SCALE,
    FIT_PLOT_PX,
    FIT_ROW_PX,
    Column,
    press_rows,
    width_scale,
)
from ui.guard import guarded
from ui.text import TextBox, escape_markdown, read_text, tokenize
from ui.url_state import format_matrix, parse_choice, parse_int, parse_matrix
from viz import diff_heatmap, matrix_heatmap


def test_parse_int_choice():
    assert parse_int("7", 0) == 7 and parse_int("7.5", 0) == 0 and parse_int("99", 0, 0, 10) == 0
    assert parse_choice("dot", "x", ["dot"]) == "dot" and parse_choice("evil", "x", ["dot"]) == "x"


def test_matrix_round_trip_and_validation():
    m = [[1.0, -2.5], [0.0, 3.0]]
    assert parse_matrix(format_matrix(m), [], 2, 2) == m
    assert parse_matrix("1,2;3", [[0.0]], 2, 2) == [[0.0]]
    assert parse_matrix("1,nan", [[0.0]], 1, 2) == [[0.0]]
    assert parse_matrix(None, [[9.0]], None, 2) == [[9.0]]


def box(limit: int) -> TextBox:
    return TextBox(limit, "Nothing typed.")


def test_read_text_strips_controls_and_truncates():
    assert read_text(box(100), "a\x00b\tc\u202e") == Sentence("ab c")
    cut = read_text(box(300), "x" * 5000)
    assert len(cut.text) == 300 and "5,000" in cut.notice and cut.hint is None
    assert read_text(box(10), None) == Sentence("", None, "Nothing typed.")
    assert read_text(box(3), "ab   cd").text == "ab"  # cut, then the trailing space dropped
    assert clean_text("日本語 ok") == "日本語 ok"


@pytest.mark.parametrize(
    "invisible", ["\u200b", "\ufeff", "\u00ad", " \u200b\t\ufeff\u00ad\u202e\n"]
)
def test_a_text_of_invisible_characters_is_empty_for_pages_and_models(invisible):
    """One rule: the page's sentence and the tokenizer's input are both empty."""
    assert clean_text(invisible) == "" and read_text(box(100), invisible).text == ""
    assert read_text(box(100), invisible).hint == "Nothing typed."
    assert clean_text("soft\u00adhyphen zero\u200bwidth\ufeff") == "softhyphen zerowidth"


@given(text=st.text(max_size=80))
def test_clean_text_is_idempotent(text):
    once = clean_text(text)
    assert clean_text(once) == once and once == once.strip()


def test_the_guard_turns_a_refusal_into_a_message():
    def refuse() -> None:
        raise ValueError("the sentence is empty: type something")

    assert guarded(refuse) == (None, "The sentence is empty: type something")
    assert guarded(lambda: 3) == (3, None)
    with pytest.raises(KeyError):  # only a refusal (ValueError) is turned into a message
        guarded(lambda: {}["x"])


def test_escape_markdown_neutralises_markup():
    assert escape_markdown("<b>*x*</b>") == r"\<b\>\*x\*\<\/b\>".replace(r"\/", "/")


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("the cat  sat", ["the", "cat", "sat"]),
        ("我爱你", ["我", "爱", "你"]),
        ("", []),
        ("a", ["a"]),
    ],
)
def test_tokenize(text, tokens):
    assert tokenize(text, 10)[0] == tokens


def test_tokenize_caps():
    tokens, notice = tokenize(" ".join(["w"] * 50), 40)
    assert len(tokens) == 40 and "50" in notice


def test_matrix_csv_labels_and_shape_check():
    csv = matrix_csv(np.array([[0.5, 0.5]]), ["q"], ["a", "a"])
    assert csv.splitlines() == [",a,a", "q,0.5,0.5"]
    with pytest.raises(ValueError, match="1 row and 3 column"):
        matrix_csv(np.zeros((1, 2)), ["q"], ["a", "b", "c"])


def test_a_wide_chart_is_drawn_smaller_down_to_the_classroom_minimum():
    least = CLASSROOM_MIN_PX / 12
    assert width_scale(600, CLASSROOM_COLUMN_PX, CLASSROOM_SCALE) == CLASSROOM_SCALE  # fits
    assert width_scale(None, CLASSROOM_COLUMN_PX, CLASSROOM_SCALE) == CLASSROOM_SCALE
    scale = width_scale(728, 1080, CLASSROOM_SCALE)  # 1,213 px at the full scale
    assert least < scale < CLASSROOM_SCALE and 728 * scale == pytest.approx(1080)
    assert width_scale(2000, 1080, CLASSROOM_SCALE) == least  # never under 16 px text
    assert width_scale(728, 1080, 1.4) == 1.4  # a fitted height's scale that fits
    assert width_scale(800, 1080, 1.4) == pytest.approx(1080 / 800)


def test_columns_give_up_their_gaps():
    assert Column().classroom_px() == CLASSROOM_COLUMN_PX
    assert Column((1, 1), 0).classroom_px() == 520  # measured in Chromium: 530 px each
    three_two = Column((3, 2), 0, "medium"), Column((3, 2), 1, "medium")
    assert [c.classroom_px() for c in three_two] == [608, 392]  # 628, 412


def _classroom(fig: go.Figure) -> go.Figure:
    """``fig`` made legible for classroom mode, back as a (validated) figure."""
    return go.Figure(legible(fig.to_dict(), classroom=True))


def test_classroom_changes_fonts_and_scales():
    fig = _classroom(matrix_heatmap(np.eye(2)))
    assert fig.layout.font.size == CLASSROOM_FONT
    cividis = plotly.colors.get_colorscale("Cividis")
    assert [c for _, c in fig.data[0].colorscale] == [c for _, c in cividis]
    div = _classroom(diff_heatmap(np.eye(2) - 0.5, None, None))
    assert div.data[0].zmid == 0 and not math.isnan(div.data[0].zmax)


def test_press_rows_presses_rows_down_to_their_least_height_and_no_further():
    def figure(height: int):
        return go.Figure(layout={"height": height, "margin": {"t": 60, "b": 90}})

    scale = 4 / 3
    tall = figure(600)  # 800 px drawn: pressed to 500, its 10 rows 350 / 10 * scale = 47 px each
    press_rows(tall, 10, 500, scale)
    assert tall.layout.height == 375  # 500 px drawn
    crowded = figure(600)  # 20 rows cannot fit 500 px at FIT_ROW_PX: the least height instead
    press_rows(crowded, 20, 500, scale)
    assert crowded.layout.height * scale == pytest.approx(150 * scale + 20 * FIT_ROW_PX, abs=1)
    bars = figure(600)  # no rows of labels: the plot keeps FIT_PLOT_PX
    press_rows(bars, 0, 300, scale)
    assert bars.layout.height * scale == pytest.approx(150 * scale + FIT_PLOT_PX, abs=1)
    titled = figure(600)  # a title 10 px above the plot stays 10 px above it
    titled.add_annotation(text="t", xref="paper", yref="paper", x=0, y=1 + 10 / 450)
    press_rows(titled, 10, 500, scale)
    assert (titled.layout.annotations[0].y - 1) * (375 - 150) == pytest.approx(10)
    short = figure(300)  # 400 px drawn: fits, left as it is
    press_rows(short, 10, 500, scale)
    assert short.layout.height == 300


def test_classroom_recolours_shared_colour_axes():
    from viz import attention_panels
    from viz.multi_head import head_grid

    cividis = [c for _, c in plotly.colors.get_colorscale("Cividis")]
    for fig in (
        attention_panels([(np.eye(2), ["a", "b"], ["a", "b"], "p")]),
        head_grid(np.full((1, 2, 3, 3), 1 / 3)),
    ):
        fig = _classroom(fig)
        assert [c for _, c in fig.layout.coloraxis.colorscale] == cividis


def _run_fresh(code: str, env: dict[str, str] | None = None) -> str:
    """Run ``code`` in a fresh interpreter in the project folder; its stripped stdout."""
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_new_threads_run_torch_on_one_thread():
    """Streamlit runs each rerun in a new thread: importing serve.runtime first (as app.py does) makes
    such threads start with one OpenMP thread, not one per core (a fresh interpreter, since this
    process may have loaded torch already)."""
    code = (
        "import threading, serve.runtime, torch\n"
        "seen = []\n"
        "t = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))\n"
        "t.start(); t.join()\n"
        "print(seen[0])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env.pop("ATLAS_TORCH_THREADS", None)
    assert _run_fresh(code, env) == "1"


def test_freeze_long_lived_leaves_little_for_the_collector():
    """After the freeze, the objects alive at that moment (all the imported modules) are skipped
    by every later collection (a fresh interpreter: freezing is process-wide)."""
    code = (
        "import gc, serve.runtime, plotly.graph_objects, streamlit\n"
        "before = len(gc.get_objects())\n"
        "serve.runtime.freeze_long_lived()\n"
        "serve.runtime.freeze_long_lived()  # a no-op the second time\n"
        "print(before, gc.get_freeze_count(), len(gc.get_objects()))\n"
    )
    before, frozen, tracked = map(int, _run_fresh(code).split())
    assert frozen > 0.5 * before
    assert tracked < 0.01 * frozen


def test_no_full_collection_after_every_rerun():
    """Streamlit's default runner.postScriptGC runs gc.collect(2) after every script run, while the
    run's last messages wait to be sent: about 10 ms per rerun with this app's imports, and 50 ms
    on an empty page's unfrozen heap (see the bench's two empty-page references). The project's
    config turns it off (read as the server reads it: from the project folder)."""
    code = (
        "import streamlit.config as c\n"
        "c.get_config_options(force_reparse=True)\n"
        "print(c.get_option('runner.postScriptGC'))\n"
    )
    assert _run_fresh(code) == "False"


def test_config_sections_are_read_once_per_parse_and_handed_out_as_copies(monkeypatch):
    """serve.runtime.keep_config_sections: the theme's sections, as Streamlit reads them for
    every run's session message, come from one read per parse of the configuration."""
    from streamlit import config

    from serve.runtime import keep_config_sections

    reads: list[str] = []
    table = {"theme.base": object()}

    def read(section: str) -> dict:
        reads.append(section)
        return {"base": section, "read": len(reads)}

    monkeypatch.setattr(config, "get_options_for_section", read)
    monkeypatch.setattr(config, "get_config_options", lambda: table)
    keep_config_sections()
    keep_config_sections()  # once per process: the second call changes nothing
    kept = config.get_options_for_section
    assert kept("theme") == {"base": "theme", "read": 1}
    kept("theme")["base"] = "changed by a caller"
    assert kept("theme") == {"base": "theme", "read": 1} and reads == ["theme"]
    assert kept("theme.dark") == {"base": "theme.dark", "read": 2}
    table = {"theme.base": object()}  # the configuration parsed again: a new table
    assert kept("theme") == {"base": "theme", "read": 3}


def test_config_sections_read_as_streamlit_does():
    """The sections Streamlit's session message reads are still {option name: value}."""
    from streamlit import config

    theme = config.get_options_for_section("theme")
    assert "base" in theme and "primaryColor" in theme


def test_a_timer_rerun_that_meets_a_finished_runner_is_skipped_not_a_new_runner(monkeypatch):
    """serve.runtime.keep_finished_runs: a run_every fragment's tick that a just-finished runner
    refuses is reported as taken (so the session does not replace the runner and drop the
    finished run's messages); any other refused rerun stays refused."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    from serve.runtime import keep_finished_runs

    monkeypatch.setattr(ScriptRunner, "request_rerun", lambda self, data: False)
    keep_finished_runs()
    keep_finished_runs()  # once per process: the second call changes nothing
    patched = ScriptRunner.request_rerun
    tick = RerunData(fragment_id="f1", is_auto_rerun=True)
    assert patched(None, tick) is True
    assert patched(None, RerunData(fragment_id="f1")) is False  # a click in the fragment
    assert patched(None, RerunData()) is False  # a whole-page rerun
    monkeypatch.setattr(ScriptRunner, "request_rerun", lambda self, data: True)
    keep_finished_runs()
    assert ScriptRunner.request_rerun(None, tick) is True
