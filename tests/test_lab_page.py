"""AppTest for the Training lab page: its controls and their link, bad link values, training a
tiny configuration to the end and scrubbing its timeline, a cached link, Cancel, and two tabs.

The page's job server is replaced by one whose workers run at niceness 0 (the shared test box is
busy); the training itself is the real one, in worker processes.
"""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

import app_pages.lab.controls
from models.lab.train import LabConfig, train_run
from serve.lab_jobs import JobSpec, LabServer
from tests.app_helpers import charts, check_path, figures, open_app

PAGE = "app_pages/lab/lab.py"
TINY = {"lab_len": "4", "lab_hidden": "32", "lab_steps": "100", "lab_bi": "false"}
TIMELINE = "Timeline: scrub through training"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> LabServer:
    lab = LabServer(max_jobs=2, niceness=0)
    monkeypatch.setattr(app_pages.lab.controls, "lab_server", lambda: lab)
    return lab


def _open(params: dict[str, str]) -> AppTest:
    return open_app(PAGE, params)


def _texts(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.info, *at.warning, *at.error, *at.markdown, *at.caption])


def _poll(at: AppTest, until, limit: float = 90) -> AppTest:
    """Rerun (as the page's fragment would every second) until ``until(at)``."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        at.run()
        assert not at.exception, at.exception
        if until(at):
            return at
        time.sleep(0.3)
    raise AssertionError(f"gave up waiting: {_texts(at)}")


def _finished(at: AppTest) -> bool:
    return any(s.label == TIMELINE for s in at.select_slider)


def _figures(at: AppTest) -> list[dict]:
    return figures(at)


def _heatmap_titles(at: AppTest) -> list[str]:
    return [f["layout"]["title"]["text"] for f in _figures(at)]


def test_defaults(server: LabServer) -> None:
    at = _open({})
    assert "Press **Train**" in _texts(at)
    assert at.selectbox(key="lab_task").value == "reverse"
    assert at.selectbox(key="lab_attn").value == "bahdanau"
    assert at.slider(key="lab_len").value == 12 and at.toggle(key="lab_bi").value is True
    assert not at.warning


def test_the_link_sets_every_control(server: LabServer) -> None:
    at = _open(
        {
            "lab_task": "sort",
            "lab_cell": "LSTM",
            "lab_layers": "2",
            "lab_bi": "false",
            "lab_attn": "luong-dot",
            "lab_len": "7",
            "lab_hidden": "128",
            "lab_steps": "300",
            "lab_seed": "5",
            "lab_cmp": "false",
        }
    )
    assert at.selectbox(key="lab_task").value == "sort"
    assert at.selectbox(key="lab_attn").value == "luong-dot"
    assert at.slider(key="lab_len").value == 7 and at.slider(key="lab_steps").value == 300
    assert at.number_input(key="lab_seed").value == 5
    assert at.toggle(key="lab_bi").value is False and at.toggle(key="lab_cmp").value is False
    assert at.select_slider(key="lab_hidden").value == 128
    assert not at.warning


@pytest.mark.parametrize(
    "params",
    [
        {"lab_len": "999", "lab_cell": "tcn"},
        {"lab_steps": "-5", "lab_seed": "1e99", "lab_layers": "7"},
        {"lab_attn": "<b>x</b>", "lab_hidden": "48", "lab_bi": "maybe", "lab_task": ""},
    ],
)
def test_bad_link_values_fall_back_with_a_notice(server: LabServer, params: dict) -> None:
    at = _open(params)
    warning = " ".join(w.value for w in at.warning)
    assert "cannot be used here" in warning and all(k in warning for k in params)
    assert at.slider(key="lab_len").value == 12 and at.selectbox(key="lab_attn").value == "bahdanau"
    assert at.button(key="lab_train")  # the page stays usable


def test_dates_need_room(server: LabServer) -> None:
    at = _open({"lab_task": "date", "lab_len": "5"})
    assert "at least 8 characters" in " ".join(w.value for w in at.warning)


def test_train_to_the_end_and_scrub(server: LabServer) -> None:
    at = _open(TINY)
    at.button(key="lab_train").click().run()
    at = _poll(at, _finished)
    assert len(charts(at)) == 4  # attention, true alignment, curves, by length
    assert [m.label for m in at.metric][:3] == ["Sequences right", "Longest third", "Training time"]
    assert "GRU + bahdanau" in _texts(at) and "GRU, no attention" in _texts(at)
    timeline = next(s for s in at.select_slider if s.label == TIMELINE)
    assert "Attention at step 100" in _heatmap_titles(at)[0]
    player = _figures(at)[0]  # every snapshot as a frame, to play in the browser
    assert len(player["frames"]) == len(timeline.options) >= 2
    assert player["layout"]["sliders"][0]["active"] == len(timeline.options) - 1
    timeline.set_value(0).run()
    assert "Attention at step 0" in _heatmap_titles(at)[0]
    assert _figures(at)[0]["layout"]["sliders"][0]["active"] == 0
    assert any("Probe:" in c.value and "at step 0" in c.value for c in at.caption)


def test_a_cached_link_opens_at_once(server: LabServer, chart_path: str) -> None:
    config = LabConfig(max_len=4, hidden=32, steps=100, bidirectional=False, task="copy")
    for cfg in JobSpec(config, 7, compare=False).runs():
        server.remember(train_run(*cfg))
    at = _open({**TINY, "lab_task": "copy", "lab_seed": "7", "lab_cmp": "false"})
    assert _finished(at) and server.load() == (0, 0)  # no Train press, no job
    check_path(at, chart_path)


def test_cancel_leaves_a_message_and_a_usable_page(server: LabServer) -> None:
    at = _open({**TINY, "lab_steps": "3000"})
    at.button(key="lab_train").click().run()
    at = _poll(at, lambda a: bool(a.get("progress")))
    at.button(key="lab_cancel").click().run()
    at = _poll(at, lambda a: "Cancelled." in _texts(a))
    assert at.button(key="lab_train") and not at.get("progress")


def test_two_tabs_share_a_job_and_leave_it_alone(server: LabServer) -> None:
    params = {**TINY, "lab_seed": "3", "lab_steps": "300", "lab_cmp": "false"}
    first, second = _open(params), _open(params)
    first.button(key="lab_train").click().run()
    second.button(key="lab_train").click().run()
    assert server.load()[0] == 1  # one job for both tabs
    _poll(second, lambda a: bool(a.get("progress")))
    second.button(key="lab_cancel").click().run()
    assert "You stopped watching" in _texts(second) and not second.get("progress")
    _poll(first, _finished)  # the first tab's run went on to the end
