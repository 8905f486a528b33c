"""Links: every number a link sets is read strictly (ASCII digits, finite, in range) and
falls back to the default with a notice; a link can name only the encoders the server offers; and
a bounded fuzz of deep links over every page finds no exception box."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import CHECKPOINTS_ENV
from models.transformer.pretrained import DEFAULT_MODEL, ENCODERS_DIR_ENV
from tests.app_helpers import charts
from tests.test_security_errors import page_text
from tests.tiny_seq2seq import build_tiny_checkpoints
from tests.tiny_transformer import build_tiny_transformers
from ui.registry import PAGES as REGISTERED

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
HOME = "app_pages/home/home.py"  # the home page is not in the registry (app.py adds it)
PAGES = sorted([HOME, *(entry.file for entry in REGISTERED if entry.exists())])  # every page script
PE, MH = (
    "app_pages/positional_encoding/positional_encoding.py",
    "app_pages/multi_head/multi_head.py",
)
HOSTILE = ["Infinity", "-inf", "1e309", "9" * 400, "nan", "\u00b2", "\u0663", "1.5", "-1", ""]


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tiny_links")
    build_tiny_checkpoints(root, attentions=("bahdanau", "luong-dot", "local-p"))
    return build_tiny_transformers(root)


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    monkeypatch.delenv(ENCODERS_DIR_ENV, raising=False)
    return tiny_root


def open_link(page: str, params: dict[str, str]) -> AppTest:
    """The app, then ``page`` opened with ``params`` in its URL, as a pasted link does."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(page)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def toasts(at: AppTest) -> str:
    return " ".join(t.value for t in at.get("toast"))


def assert_clean(at: AppTest) -> None:
    """No exception box, no error id, no server path or exception text on the page."""
    text = page_text(at)
    assert not at.exception, [e.message for e in at.exception]
    assert "error id" not in text and "Traceback" not in text
    assert str(ROOT) not in text and "/root" not in text and "/etc" not in text


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("value", ["Infinity", "inf", "-inf", "1e309", "9" * 400, "nan", "1.5"])
def test_shuffle_seed_from_a_link_is_strict(value: str):
    at = open_link(PE, {"pe_shuffle": value})  # raised OverflowError at the number input before
    assert_clean(at)
    assert at.number_input(key="pe_shuffle").value == 1  # the default
    assert "pe_shuffle" in toasts(at)


def test_good_shuffle_seed_is_kept():
    at = open_link(PE, {"pe_shuffle": "37"})
    assert_clean(at)
    assert at.number_input(key="pe_shuffle").value == 37 and not toasts(at)


@pytest.mark.parametrize(
    "value", ["\u00b2", "%C2%B2", "\u0663", "1" * 5000, "![x](http://e.st/a.png)"]
)
def test_dimensions_with_odd_digits_are_ignored_in_words(value: str):
    at = open_link(PE, {"pe_dims": value})  # '²' raised ValueError in parse_dims before
    assert_clean(at)
    warning = " ".join(w.value for w in at.warning)
    assert "Ignored" in warning and "![x](" not in warning  # shown literally, never as markdown


NUMBER_LINKS = [  # (page, parameter, bad value, widget kind, the widget's default)
    (PE, "pe_n", "0", "slider", 64),
    (PE, "pe_d", "Infinity", "slider", 64),
    ("app_pages/anatomy/anatomy.py", "anat_qx", "inf", "number_input", 2.0),
    ("app_pages/anatomy/anatomy.py", "anat_temp", "0", "number_input", 1.0),
    ("app_pages/alignment/alignment.py", "aln_beam", "\u00b2", "slider", 1),
    ("app_pages/local_attention/local_attention.py", "loc_D", "-1", "slider", None),
    (MH, "mh_beam", "9", "slider", 1),
]


CHOICE_LINKS = [  # (page, parameter, a value it does not offer, its default)
    ("app_pages/captions/captions.py", "cap_src", "elsewhere", "example"),
    ("app_pages/alignment/alignment.py", "aln_mode", "<b>x</b>", "translate"),
]


@pytest.mark.parametrize(("page", "name", "value", "default"), CHOICE_LINKS)
def test_a_choice_the_page_does_not_offer_falls_back_with_a_notice(
    tiny, page, name, value, default
):
    """``?cap_src=elsewhere`` showed the example scene without a word."""
    at = open_link(page, {name: value})
    assert_clean(at)
    assert name in toasts(at) and value not in toasts(at)  # the link's own text is not repeated
    assert at.session_state[name] == default
    assert not toasts(open_link(page, {name: default}))  # a choice it offers: no notice


@pytest.mark.parametrize(("page", "name", "value", "kind", "default"), NUMBER_LINKS)
def test_bad_numbers_fall_back_with_a_notice(tiny, page, name, value, kind, default):
    at = open_link(page, {name: value})
    assert_clean(at)
    assert name in toasts(at)
    widget = at.get(kind)
    value_now = next(w.value for w in widget if w.key == name)
    assert default is None or value_now == default


@pytest.mark.parametrize(
    ("page", "name", "value"),
    [
        ("app_pages/anatomy/anatomy.py", "anat_seed", "1e309"),
        ("app_pages/anatomy/anatomy.py", "anat_items", "1,2,3,4;" * 100),
        ("app_pages/captions/captions.py", "cap_beam", "\u0663"),
    ],
)
def test_values_read_by_the_pages_fall_back_with_a_notice(tiny, page, name, value):
    at = open_link(page, {name: value})
    assert_clean(at)
    assert name in toasts(at)


# ---------------------------------------------------------------- encoders


@pytest.mark.parametrize(
    "name", ["~", "~nosuchuser", "x" * 256, "/etc", "../..", "/root/.cache/huggingface"]
)
def test_a_link_cannot_name_a_path_as_encoder(tiny, name: str):
    at = open_link(MH, {"mh_model": "pretrained", "mh_hf": name})
    assert_clean(at)
    note = " ".join(i.value for i in at.info)
    assert "does not offer" in note and DEFAULT_MODEL in note
    assert at.selectbox(key="mh_hf").value == DEFAULT_MODEL
    text = page_text(at)
    for leak in ("config.json", "home directory", "too long", "No such file", "Errno"):
        assert leak not in text
    assert charts(at)  # the default encoder ran


def test_offered_encoders_are_listed_by_name(tiny, tmp_path: Path, monkeypatch):
    (tmp_path / "tiny-bert").mkdir()
    (tmp_path / "tiny-bert" / "config.json").write_text("{}")
    monkeypatch.setenv(ENCODERS_DIR_ENV, str(tmp_path))
    at = open_link(MH, {"mh_model": "pretrained"})
    assert_clean(at)
    assert at.selectbox(key="mh_hf").options == [DEFAULT_MODEL, "tiny-bert"]
    assert str(tmp_path) not in page_text(at)


# ---------------------------------------------------------------- bounded fuzz


def url_keys() -> set[str]:
    """Every URL parameter the pages read or bind (from their source, so renames follow)."""
    src = "\n".join(p.read_text() for d in ("app_pages", "ui") for p in (ROOT / d).rglob("*.py"))
    keys = set(re.findall(r'key="(\w+)"', src)) | set(re.findall(r'read_param\(\s*"(\w+)"', src))
    keys |= set(re.findall(r'query_params\.get\(\s*"(\w+)"', src))
    prefixes = set(re.findall(r'_ui\(\s*"(\w+_)"', src))
    return keys | {p + s for p in prefixes for s in ("text", "ref", "example", "step")}


@pytest.mark.parametrize("page", PAGES)
def test_fuzzed_links_never_show_an_exception(tiny, page: str):
    keys = url_keys()
    for value in ["Infinity", "1e309", "\u00b2", "~", "x" * 300, "-1"]:
        params = dict.fromkeys(keys, value)
        if page == MH:
            params["mh_model"] = "pretrained"  # the encoder's settings too
        at = open_link(page, params)
        assert not at.exception, (page, value, [e.message for e in at.exception])
        assert not any("error id" in e.value for e in at.error), (page, value)
