"""No traceback, exception text or server path reaches the page; an error id does, and
the details go to the server log. Streamlit's own control flow passes through the page runner."""

from __future__ import annotations

import logging
import re
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
RAISING_APP = str(ROOT / "tests" / "app_raises.py")


def page_text(at: AppTest) -> str:
    """Every string the page shows: markdown, alerts, exception boxes (with their traces)."""
    parts = [
        m.value
        for kind in ("markdown", "error", "warning", "info", "caption", "code")
        for m in at.get(kind)
    ]
    for exc in at.exception:
        parts += [exc.value, exc.message, *exc.stack_trace]
    return "\n".join(str(p) for p in parts)


def run_raising_app(fail: str) -> AppTest:
    at = AppTest.from_file(RAISING_APP, default_timeout=30)
    at.query_params["fail"] = fail
    return at.run()


def test_config_hides_error_details():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"  # `false` meant "stacktrace" in 1.67


def test_a_page_that_raises_shows_a_sentence_with_an_id(caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.ERROR, logger="atlas.errors"):
        at = run_raising_app("boom")
    assert not at.exception
    text = page_text(at)
    assert "before the failure" in text  # what the page drew before failing stays
    assert "Traceback" not in text and "RuntimeError" not in text and "Errno" not in text
    assert "/root" not in text and str(ROOT) not in text and ".py" not in text
    ids = re.findall(r"error id \*\*([0-9a-f]{8})\*\*", text)
    assert len(ids) == 1
    logged = [r for r in caplog.records if ids[0] in r.getMessage()]
    assert logged and logged[0].exc_info and "/root/.secret" in str(logged[0].exc_info[1])


@pytest.mark.parametrize("how", ["stop", "rerun", "switch"])
def test_control_flow_passes_through(how: str):
    at = run_raising_app(how)
    text = page_text(at)
    assert not at.exception and not at.error and "error id" not in text
    expected = {
        "stop": "before the failure",
        "rerun": "finished after rerun",
        "switch": "the other page",
    }[how]
    assert expected in text
    if how == "stop":
        assert "finished" not in text


def test_damaged_checkpoint_message_has_no_path_and_no_exception_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    from models.checkpoints import CHECKPOINTS_ENV
    from tests.tiny_seq2seq import build_tiny_checkpoints

    root = build_tiny_checkpoints(tmp_path, attentions=("bahdanau",))
    weights = root / "seq2seq-bahdanau" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])  # truncated
    monkeypatch.setenv(CHECKPOINTS_ENV, str(root))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("app_pages/alignment/alignment.py")
    with caplog.at_level(logging.INFO):
        at.run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "bahdanau" in errors and "damaged" in errors
    assert any("train_seq2seq" in c.value for c in at.code)  # the command that rebuilds it
    text = page_text(at)
    assert str(tmp_path) not in text and not re.search(r"(?<![\w.])/(?:tmp|root|home|work)/", text)
    for leak in ("Error:", "Traceback", "safetensors_rust", "HeaderTooLarge", "incomplete"):
        assert leak not in text
    assert any(str(tmp_path) in r.getMessage() for r in caplog.records)  # the log has the path


def test_a_failing_fragment_shows_a_sentence_with_an_id(caplog: pytest.LogCaptureFixture):
    at = AppTest.from_file(RAISING_APP, default_timeout=30)
    at.query_params["start"] = "fragment"
    at.run()
    assert "the section is fine" in page_text(at)
    with caplog.at_level(logging.ERROR, logger="atlas.errors"):
        at.button(key="fail_button").click().run()
    text = page_text(at)
    assert not at.exception and "outside the fragment" in text
    assert "/srv" not in text and "ValueError" not in text and "Traceback" not in text
    ids = re.findall(r"error id \*\*([0-9a-f]{8})\*\*", text)
    assert len(ids) == 1 and any(ids[0] in r.getMessage() for r in caplog.records)
