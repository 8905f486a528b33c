"""AppTest: the app shell, the home map and the two model-free pages, including bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app_helpers import charts, check_path, figures, open_app

ANATOMY = "app_pages/anatomy/anatomy.py"
PE = "app_pages/positional_encoding/positional_encoding.py"


def _app(
    params: dict[str, str] | None = None, page: str | None = None, first: dict | None = None
) -> AppTest:
    """Run the app (home, with the ``first`` URL params), then open ``page`` with ``params``."""
    return open_app(page, params, first)


def _figures(at: AppTest) -> list[dict]:
    """The figures the page drew (tests/app_helpers.py: typed arrays decoded to lists)."""
    return figures(at)


def _array(data: object) -> list:
    return list(data)


def _arr(data: object) -> np.ndarray:
    return np.asarray(data, dtype=float)


def _z(trace: dict) -> np.ndarray:
    return _arr(trace["z"])


def _bar_values(at: AppTest, title_part: str) -> list[float]:
    for fig in _figures(at):
        if title_part in fig["layout"].get("title", {}).get("text", ""):
            return _array(fig["data"][0]["y"])
    raise AssertionError(f"no chart titled {title_part!r}")


def test_home_map_and_sidebar():
    at = _app()
    assert at.title[0].value == "Attention atlas"
    text = " ".join(m.value for m in at.markdown)
    for stage in [
        "RNN & the fixed-length bottleneck",
        "Bahdanau 2015",
        "Luong 2015",
        "Show, Attend and Tell 2015",
        "Transformer 2017",
    ]:
        assert stage in text
    assert "CPU" in at.info[0].value or "CUDA" in at.info[0].value
    assert at.sidebar.selectbox(key="device").value in {"cpu", "cuda"}
    assert at.sidebar.toggle(key="classroom").value is False


def test_home_lists_the_shipped_models():
    at = _app()
    table = at.table[0].value
    assert "all-MiniLM-L6-v2 (pretrained)" in set(table["model"])
    for name in ("seq2seq-bahdanau", "seq2seq-luong-dot"):
        if name in set(table["model"]):
            row = table[table["model"] == name].iloc[0]
            assert row["measured"].startswith("test BLEU")
    for name in ("caption-soft", "caption-hard"):  # their cards keep the metrics under "test"
        if name in set(table["model"]):
            row = table[table["model"] == name].iloc[0]
            assert row["measured"].startswith("exact match"), row["measured"]


def test_registry_paths_are_file_stems():
    from ui.registry import PAGES, check_registry

    check_registry(PAGES)
    assert len({entry.url_path for entry in PAGES}) == len(PAGES)


def test_anatomy_defaults():
    at = _app(page=ANATOMY)
    assert len(charts(at)) == 3
    weights = _bar_values(at, "Weights")
    assert abs(sum(weights) - 1) < 1e-9 and weights[0] == max(weights)  # the aligned key wins


@pytest.mark.parametrize(
    ("temp", "check"),
    [("1e-06", lambda w: w[0] > 0.999), ("1000000", lambda w: max(w) - min(w) < 1e-5)],
)
def test_anatomy_extreme_temperatures(temp, check):
    at = _app({"anat_temp": temp}, ANATOMY)
    assert check(_bar_values(at, "Weights"))
    assert at.info  # the page explains what the temperature did


def test_anatomy_identical_keys_and_zero_vectors():
    at = _app({"anat_items": "1,1,1,0;1,1,0,1;1,1,-1,0", "anat_qx": "0", "anat_qy": "0"}, ANATOMY)
    assert _bar_values(at, "Weights") == pytest.approx([1 / 3] * 3)
    assert "same weight" in at.info[0].value


def test_anatomy_url_reproduces_view(chart_path: str):
    params = {
        "anat_score": "general",
        "anat_W": "0,1;1,0",
        "anat_temp": "0.5",
        "anat_items": "1,0,1,0;0,1,0,1;1,1,2,2",
    }
    at = _app(params, ANATOMY)
    check_path(at, chart_path)
    assert at.selectbox(key="anat_score").value == "general"
    assert at.number_input(key="anat_temp").value == 0.5
    # q = (2, 1), W swaps the axes: scores are q^T W k = (1, 2, 3)
    assert _bar_values(at, "Scores") == pytest.approx([1.0, 2.0, 3.0])


def test_anatomy_too_few_items_is_a_message():
    at = _app({"anat_items": "1,0,1,0;0,1,0,1"}, ANATOMY)
    assert "between 3 and 8" in at.warning[0].value
    assert not charts(at)


def test_anatomy_presets_and_hard_pick():
    at = _app(page=ANATOMY)
    at.selectbox(key="anat_preset").set_value("A huge temperature").run()
    assert at.number_input(key="anat_temp").value == 1e6
    at.toggle(key="anat_hard").set_value(True).run()
    first = [m.value for m in at.markdown if "Hard attention sampled" in m.value][0]
    assert "seed 0" in first
    at.button(key="anat_resample").click().run()
    second = [m.value for m in at.markdown if "Hard attention sampled" in m.value][0]
    assert "seed 1" in second
    assert len(charts(at)) == 3 and not at.exception


def test_classroom_mode_from_url_styles_charts():
    at = _app(page=ANATOMY, first={"classroom": "true"})
    assert at.session_state["classroom"] is True
    assert all(fig["layout"]["font"]["size"] == 20 for fig in _figures(at))


def _permutation_checks(at: AppTest) -> tuple[float, float]:
    """The max |difference| after un-shuffling, without and with PE, from the shuffled maps'
    titles in the permutation figure."""
    texts = [a["text"] for f in _figures(at) for a in f["layout"].get("annotations", [])]
    found = [float(t.rsplit(": ", 1)[1]) for t in texts if "after un-shuffling" in t]
    assert len(found) == 2, texts
    return found[0], found[1]


def test_positional_defaults_and_numbers(chart_path: str):
    at = _app(page=PE)
    check_path(at, chart_path)
    titles = [f["layout"]["title"]["text"] for f in _figures(at)]
    assert "PE matrix (64 positions × 64 dimensions)" in titles
    plain, with_pe = _permutation_checks(at)
    assert plain < 1e-12 and with_pe > 1e-3


def test_positional_trained_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The trained section reads both Transformers' position vectors and their cards."""
    from models.checkpoints import CHECKPOINTS_ENV
    from tests.tiny_transformer import build_tiny_transformers

    monkeypatch.setenv(CHECKPOINTS_ENV, str(build_tiny_transformers(tmp_path)))
    at = _app({"pe_tn": "20"}, PE)
    figures = {f["layout"]["title"]["text"]: f for f in _figures(at)}
    for name in ("sinusoidal", "learned"):
        assert f"{name}: 20 positions × 16 dims" in figures
        sim = figures[f"{name}: cosine similarity of positions"]["data"][0]
        assert np.allclose(np.diag(_z(sim)), 1.0, atol=1e-5)
    norms = {t["name"]: _arr(t["y"]) for t in figures["Length of each position's vector"]["data"]}
    assert np.allclose(norms["sinusoidal"], np.sqrt(8), atol=1e-4)  # sqrt(d / 2), d = 16
    assert len(norms["learned"]) == 64  # every position of the table (max_len 64)
    bleu = [m.value for m in at.metric if m.label == "Test BLEU (greedy)"]
    assert bleu == ["40.00", "40.00"]


def test_positional_without_trained_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """No Transformer checkpoints: a clear message; the rest of the page still works."""
    from models.checkpoints import CHECKPOINTS_ENV

    monkeypatch.setenv(CHECKPOINTS_ENV, str(tmp_path))
    at = _app(page=PE)
    assert len(at.error) == 2 and "transformer-sinusoidal" in at.error[0].value
    titles = [f["layout"]["title"]["text"] for f in _figures(at)]
    assert "PE matrix (64 positions × 64 dimensions)" in titles
    assert not any("cosine similarity" in t for t in titles)


@pytest.mark.parametrize(
    ("sentence", "message"),
    [("", "at least two words"), ("x" * 5000, "5,000 characters"), ("ok", "at least two words")],
)
def test_positional_bad_sentences(sentence, message):
    at = _app({"pe_sentence": sentence} if sentence else None, PE)
    if not sentence:
        at.text_input(key="pe_sentence").set_value("").run()
    shown = " ".join(e.value for e in [*at.warning, *at.info])
    assert message in shown
    assert not at.exception


def test_positional_any_script_and_large_matrix():
    at = _app(
        {"pe_sentence": "猫が 座った مرحبا بالعالم 🙂 <b>x</b>", "pe_n": "512", "pe_d": "512"}, PE
    )
    assert _permutation_checks(at)[0] < 1e-12
    titles = [f["layout"]["title"]["text"] for f in _figures(at)]
    assert "PE matrix (512 positions × 512 dimensions)" in titles
    tokens = [m.value for m in at.markdown if m.value.startswith("**Tokens:**")][0]
    assert r"\<b\>x\<\/b\>".replace(r"\/", "/") in tokens


def test_positional_bad_dimension_text():
    at = _app({"pe_dims": "0, 999, abc"}, PE)
    assert "Ignored 999, abc" in at.warning[0].value


def test_no_page_script_has_an_expression_that_magic_would_write():
    """Streamlit's magic writes every bare expression of a page script that is not a call (a
    conditional expression of two calls included): the value, often "None", shows on the page."""
    import ast

    from ui.registry import PAGES

    written = []
    for file in ["app.py", *(entry.file for entry in PAGES)]:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0])
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        kept = ast.Call | ast.Yield | ast.YieldFrom | ast.Await
        written += [
            f"{file}:{node.lineno}: {ast.unparse(node)}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr)
            and id(node) not in docstrings
            and not isinstance(node.value, kept)
        ]
    assert not written, "\n".join(written)
