"""AppTest of the Recurrent networks page on tiny random-weight checkpoints: the formulas and the
five diagrams, the bidirectional GRU's states and gates on the default and on a typed sentence,
the gradient chart of the three encoders, bad input (only invisible characters) answered with a
message, the direction kept in the URL, and a missing checkpoint shown with the project's
missing-model box while the rest of the page works."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import CHECKPOINTS_ENV
from models.rnn.cells import encoder_trace
from models.rnn.translator import Translator
from tests.app_helpers import charts, check_path, figures, open_app
from tests.test_translation_pages import _arr
from tests.tiny_recurrent import build_tiny_recurrent

PAGE = "app_pages/recurrent/recurrent.py"
TYPED = "a black dog runs on the green grass ."
N_DIAGRAMS = 5
N_LIVE = 5  # two hidden-state heatmaps, the gate means, two gate heatmaps
FORMULA_PARTS = (r"\tanh", r"\overrightarrow", r"\prod", r"c_t &= f_t", r"z_t \odot h_{t-1}")


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_recurrent(tmp_path_factory.mktemp("tiny_recurrent"))


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


def _figures(at: AppTest) -> dict[str, dict]:
    figs = figures(at)
    return {f["layout"].get("title", {}).get("text", ""): f for f in figs}


def _figure(at: AppTest, part: str) -> dict:
    found = [fig for title, fig in _figures(at).items() if part in title]
    assert found, f"no chart titled {part!r} in {list(_figures(at))}"
    return found[0]


def _axes(fig: dict, tokens: list[str]) -> tuple[str, str]:
    """(the tokens' axis, the other): tokens across ("xaxis") or, for a sentence whose tokens do
    not fit across the page's column, down ("yaxis": the chart turned on its side)."""
    across = fig["layout"]["xaxis"].get("ticktext") == tokens
    return ("xaxis", "yaxis") if across else ("yaxis", "xaxis")


def _check_live(at: AppTest, root: Path, text: str) -> None:
    """The charts show ``text`` through the tiny bahdanau encoder and the three encoders, every
    token labelled (across, or down where the charts are turned)."""
    trace = encoder_trace(Translator.load(root / "seq2seq-bahdanau"), text)
    tokens = [html.escape(t) for t in trace.tokens]
    forward = _figure(at, "hidden state h_t, forward")
    token_axis, unit_axis = _axes(forward, tokens)
    assert forward["layout"][token_axis]["ticktext"] == tokens
    units = [int(u) for u in forward["layout"][unit_axis]["ticktext"]]
    z = _arr(forward["data"][0]["z"])  # (units, tokens), or (tokens, units) turned
    z = z if token_axis == "xaxis" else z.T
    np.testing.assert_allclose(z, trace.layers[0][0].hidden[:, units].T, atol=1e-6)
    backward = _figure(at, "hidden state h_t, backward")
    assert backward["layout"][_axes(backward, tokens)[0]]["ticktext"] == tokens
    means = _figure(at, "per word")
    assert (
        len(means["data"]) == 4 and means["layout"][_axes(means, tokens)[0]]["ticktext"] == tokens
    )
    gradients = _figure(at, "log scale")
    token_axis, value_axis = _axes(gradients, tokens)
    assert [t["name"] for t in gradients["data"]] == ["RNN", "LSTM", "GRU"]
    assert gradients["layout"][value_axis]["type"] == "log"
    assert gradients["layout"][token_axis]["ticktext"] == tokens


def test_default_sentence(tiny: Path) -> None:
    at = open_app(PAGE)
    assert at.title[0].value == "Recurrent networks"
    formulas = "\n".join(m.value for m in at.get("latex")) if at.get("latex") else ""
    formulas = formulas or "\n".join(m.proto.body for m in at.markdown)
    assert all(part in formulas for part in FORMULA_PARTS), formulas
    assert len(charts(at)) == N_DIAGRAMS + N_LIVE + 1
    _check_live(at, tiny, at.text_input(key="rc_text").value)
    table = at.table[0].value
    assert list(table.iloc[:, 0]) == ["RNN", "LSTM", "GRU"] and "12.5" in set(table.iloc[:, 1])
    assert not at.error and not at.warning


def test_typed_sentence(tiny: Path) -> None:
    at = open_app(PAGE)
    at.text_input(key="rc_text").set_value(TYPED).run()
    assert not at.exception
    _check_live(at, tiny, TYPED)


def test_sentence_and_direction_from_the_url(tiny: Path, chart_path: str) -> None:
    at = open_app(PAGE, {"rc_text": TYPED, "rc_dir": "backward"})
    check_path(at, chart_path)
    assert at.text_input(key="rc_text").value == TYPED
    _check_live(at, tiny, TYPED)
    assert "backward" in _figure(at, "update gate z_t, ")["layout"]["title"]["text"]
    assert "backward" in _figure(at, "reset gate r_t, ")["layout"]["title"]["text"]


def test_bad_input_gives_a_message(tiny: Path) -> None:
    at = open_app(PAGE, {"rc_dir": "sideways"})  # an unknown direction falls back to forward
    assert "forward" in _figure(at, "update gate z_t, ")["layout"]["title"]["text"]
    at.text_input(key="rc_text").set_value("\u200b\u200c\ufeff\u200b").run()
    assert not at.exception
    assert any("empty" in w.value for w in at.warning)
    assert len(charts(at)) == N_DIAGRAMS  # the equations' diagrams stay


def test_missing_checkpoints_show_the_missing_model_box(
    tiny_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    for name in ("rnn-encoder-rnn", "rnn-encoder-gru"):  # no bahdanau, no lstm
        shutil.copytree(tiny_root / name, root / name)
    monkeypatch.setenv(CHECKPOINTS_ENV, str(root))
    at = open_app(PAGE)
    errors = " ".join(e.value for e in at.error)
    assert "seq2seq-bahdanau" in errors and "rnn-encoder-lstm" in errors
    assert "rnn-encoder-rnn" not in errors
    codes = [c.value for c in at.code]
    assert any("train_encoders --rnn lstm" in c for c in codes)  # the rebuild command
    gradients = _figure(at, "log scale")
    assert [t["name"] for t in gradients["data"]] == ["RNN", "GRU"]
    assert len(charts(at)) == N_DIAGRAMS + 1


def test_in_chinese(tiny: Path) -> None:
    at = open_app(PAGE, first={"lang": "zh"})
    assert at.title[0].value == "循环神经网络"
    assert "前向" in _figure(at, "隐藏状态")["layout"]["title"]["text"]
    assert list(at.table[0].value.columns[:2]) == ["编码器", "测试集 BLEU（贪心解码）"]
    assert "对数刻度" in _figure(at, "‖∂h_T/∂x_t‖")["layout"]["title"]["text"]
