"""Inputs that must not break a page: a deterministic fuzz of deep links over every
page's parameters, the links an earlier fuzzing found, the upload types the uploader's filter
used to drop silently, and a damaged checkpoint's message (no path, no Python error text; the
other pages keep working)."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from models.checkpoints import CHECKPOINTS_ENV
from tests.app_helpers import charts
from tests.test_security_errors import page_text
from tests.test_security_links import MH, PAGES, PE, tiny, tiny_root, url_keys  # noqa: F401
from tests.test_security_uploads import upload

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
LINKS_PER_PAGE = 22  # x 12 pages: a few hundred links, each a fresh session
SHARED = ("lang", "classroom", "device")  # the sidebar's parameters, on every page
NUMBERS = [
    *("0", "-1", "1", "2", "3", "7", "64", "512", "513", "100000", "1.5", "-0.0", "+5", " 7 "),
    *("1e309", "-1e309", "1e-320", "nan", "inf", "-Infinity", "0x10", "1_000", "9" * 40),
    *("\u00bd", "\u00b2", "\u0663", "\uff11\uff12", "7\n"),
]
TEXTS = [
    *("", " ", "\u200b\u200b\u200b", "\u202eabc", "\ufeff", "a" * 6000, "\U0001f436\U0001f431"),
    *("<script>alert(1)</script>", "**b** [x](javascript:alert(1))", "![x](http://e.st/a.png)"),
    *("../../etc/passwd", "/root", "~", "%00", "\x00", "\u6ce8\u610f\u529b", "the cat sat"),
    *("a,b;c,d", "1,2,3,4;" * 50, "1,2;3", ",,,", ";;", "true", "None", "pretrained"),
]


def page_keys(page: str, keys: set[str]) -> list[str]:
    """The URL parameters of ``page``: those with the key prefixes its own source uses."""
    prefixes = set(re.findall(r'key=f?"([a-z]+_)', (ROOT / page).read_text()))
    return sorted(k for k in keys if any(k.startswith(p) for p in prefixes)) + list(SHARED)


def fuzzed_links(page: str, n: int, seed: int = 17) -> list[dict[str, str]]:
    """``n`` links to ``page``: 1-5 of its parameters, each a hostile or plausible value."""
    rng = random.Random(f"{seed}:{page}")
    keys = page_keys(page, url_keys())
    return [
        {
            k: rng.choice(NUMBERS if rng.random() < 0.5 else TEXTS)
            for k in rng.sample(keys, min(len(keys), rng.randint(1, 5)))
        }
        for _ in range(n)
    ]


def open_fresh(page: str, params: dict[str, str]) -> AppTest:
    """A new session opening ``page`` from a link with ``params`` (the first run is the page)."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.switch_page(page)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def assert_clean(at: AppTest, context: object) -> None:
    text = page_text(at)
    assert not at.exception, (context, [e.message for e in at.exception])
    assert "error id" not in text and "Traceback" not in text, context
    assert str(ROOT) not in text, context


def test_every_page_has_parameters_to_fuzz():
    keys = url_keys()
    for page in PAGES:
        if page.endswith(("home.py", "lab.py")):
            continue
        assert len(page_keys(page, keys)) > len(SHARED), page


def test_fuzzed_links_are_deterministic():
    assert fuzzed_links(PE, 5) == fuzzed_links(PE, 5)
    assert fuzzed_links(PE, 5) != fuzzed_links(MH, 5)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_fuzzed_deep_links_never_raise(tiny, page: str):  # noqa: F811
    for params in fuzzed_links(page, LINKS_PER_PAGE):
        assert_clean(open_fresh(page, params), (page, params))


# ------------------------------------------------------------------ what an earlier fuzzing found


@pytest.mark.parametrize("source", ["transformer", "pretrained"])
def test_a_sentence_of_zero_width_characters_is_a_message(tiny, source: str):  # noqa: F811
    at = open_fresh(MH, {"mh_model": source, "mh_text": "\u200b\u200c\u200d\ufeff"})
    assert_clean(at, source)
    assert any("empty" in w.value for w in at.warning)


@pytest.mark.parametrize("dims", ["99999999999999999999", "1e308, 2", "-5, 3", "0," * 400])
def test_huge_or_odd_dimensions_are_ignored_in_words(dims: str):
    at = open_fresh(PE, {"pe_dims": dims, "pe_shuffle": "99999999999"})
    assert_clean(at, dims)


@pytest.mark.parametrize(
    "items", ["1e308,1e308,1e308,1e308;1,2,3,4;0,0,0,0", "nan,1,2,3;1,2,3,4;5,6,7,8", ";" * 100]
)
def test_anatomy_items_from_a_link_fall_back(items: str):
    at = open_fresh("app_pages/anatomy/anatomy.py", {"anat_items": items, "anat_temp": "1e-300"})
    assert_clean(at, items)


# ---------------------------------------------------------------- uploads


def encode(img: Image.Image, fmt: str) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt)
    return buf.getvalue()


SVG = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'


@pytest.mark.parametrize(
    ("name", "data", "mime", "words"),
    [
        ("cat.svg", SVG, "image/svg+xml", "This file is an SVG"),
        ("cat.tiff", encode(Image.new("RGB", (20, 20)), "TIFF"), "image/tiff", "a TIFF image"),
        ("cat.gif", encode(Image.new("RGB", (20, 20)), "GIF"), "image/gif", "a GIF"),
        ("wide.png", encode(Image.new("RGB", (20_000, 500)), "PNG"), "image/png", "40 times"),
    ],
)
def test_refused_uploads_say_why(name: str, data: bytes, mime: str, words: str):
    at = upload(name, data, mime)
    assert_clean(at, name)
    errors = " ".join(e.value for e in at.error)
    assert words in errors, errors
    assert "PNG, JPEG" in errors or "times" in errors  # what the page takes, or why not


# ---------------------------------------------------------------- a damaged checkpoint


def test_a_broken_config_names_the_model_not_the_path(tiny_root: Path, tmp_path, monkeypatch):  # noqa: F811
    import shutil

    root = tmp_path / "checkpoints"
    shutil.copytree(tiny_root, root)
    (root / "seq2seq-bahdanau" / "config.json").write_text('{"hidden": ')  # broken JSON
    monkeypatch.setenv(CHECKPOINTS_ENV, str(root))
    at = open_fresh("app_pages/alignment/alignment.py", {})
    assert_clean(at, "config")
    text = page_text(at)
    errors = " ".join(e.value for e in at.error)
    assert "bahdanau" in errors
    assert not re.search(r"(?<![\w.])/(?:tmp|root|home|work)/", text)
    for leak in ("JSONDecodeError", "Expecting value", "line 1 column", "config.json", "Errno"):
        assert leak not in text, leak
    local = "app_pages/local_attention/local_attention.py"
    other = open_fresh(local, {})  # local-p's checkpoint is fine
    assert_clean(other, "other page")
    assert not other.error and charts(other)
