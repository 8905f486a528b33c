"""A lesson file is data, never a door: a teacher's lesson reaches every phone of a class, so
nothing in it (its text, prompt, explain, title, summary, sentence, target, the values a message
quotes, the file's own name) may make a browser fetch from another host or run a link. Hostile
files are refused with a message naming the file, and what the page renders of them holds no
image and no link (checked through a CommonMark renderer, as the browser's would read it)."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from app_pages.lessons.schema import MAX_FILE_BYTES, LessonError, parse_lesson, quoted
from tests.app_helpers import open_app

PAGE = "app_pages/lessons/lessons.py"
EVIL = "http://evil.example/pixel.png"
GOOD = """
id = "mine"
title = "{title}"
summary = "{summary}"

[[step]]
title = "A row"
text = "{text}"
view = "{view}"
sentence = "{sentence}"

[step.question]
kind = "token"
target = "noir"
prompt = "{prompt}"
explain = "{explain}"
"""
FIELDS = {
    "title": "My lesson",
    "summary": "One step.",
    "text": "Where does noir look? $\\\\alpha_{ij}$ and **bold**",
    "view": "alignment",
    "sentence": "a black dog",
    "prompt": "Click the word.",
    "explain": "Black.",
}
DOORS = [
    f"![v]({EVIL})",  # an image
    f"see ![v][x]\\n\\n[x]: {EVIL}",  # an image by reference
    f"&#33;[v]({EVIL})",  # written with an entity
    "[click](javascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x]: JavaScript:alert(1)",
    "<javascript:alert(1)>",
    "$\\\\includegraphics{x.png}$",
]


def _file(**changed: str) -> bytes:
    return GOOD.format(**(FIELDS | changed)).encode()


def _fetches(markdown: str) -> list[str]:
    """What a renderer of ``markdown`` would load or link: img tags, src and href attributes, and
    bare addresses a GFM renderer would turn into links."""
    rendered = MarkdownIt("commonmark").render(markdown)
    found = re.findall(r"<img[^>]*>|\b(?:src|href)=\"[^\"]*\"", rendered)
    return found + re.findall(r"(?:https?|ftp)://|www\.", markdown)


def test_a_clean_file_keeps_its_markdown_and_formulas():
    lesson = parse_lesson(_file(text="See [the paper](https://arxiv.org) and $x^2$."), "ok.toml")
    assert "[the paper](https://arxiv.org)" in lesson.steps[0].text
    assert lesson.text.startswith("\nid = ")  # the file itself, for a class to keep


@pytest.mark.parametrize("field", ["title", "summary", "text", "prompt", "explain", "sentence"])
@pytest.mark.parametrize("door", DOORS)
def test_no_text_of_a_lesson_opens_a_door(field: str, door: str):
    with pytest.raises(LessonError) as raised:
        parse_lesson(_file(**{field: door}), "evil.toml")
    assert raised.value.source == "evil.toml"
    assert f"'{field}'" in raised.value.problem and "image" in raised.value.problem
    assert _fetches(raised.value.message) == []


@pytest.mark.parametrize("value", [f"![v]({EVIL})", "[x](javascript:alert(1))", f"<{EVIL}>"])
@pytest.mark.parametrize("field", ["view", "kind", "model", "key"])
def test_a_quoted_value_and_the_files_name_are_text(field: str, value: str):
    data = _file()
    if field == "key":
        data = data.replace(b'target = "noir"', f'"{value}" = 1'.encode())
    elif field == "model":
        data = data.replace(
            b'view = "alignment"', f'view = "alignment"\nmodel = "{value}"'.encode()
        )
    else:
        old = {"view": b'view = "alignment"', "kind": b'kind = "token"'}[field]
        data = data.replace(old, f'{field} = "{value}"'.encode())
    with pytest.raises(LessonError) as raised:
        parse_lesson(data, f"![n]({EVIL}).toml")
    message = raised.value.message
    assert "evil" in message and _fetches(message) == []


def test_a_door_in_a_target_or_a_bleu_pair_is_refused_too():
    with pytest.raises(LessonError, match="target"):
        parse_lesson(_file().replace(b'"noir"', b'"![a](http://x.io/a)"'), "t.toml")
    bleu = (
        _file(view="translations")
        .replace(b'kind = "token"', b'kind = "bleu"')
        .replace(b'target = "noir"', b'pair = [["![a](http://x.io/a)", "b"], ["c", "d"]]')
    )
    with pytest.raises(LessonError, match="pair"):
        parse_lesson(bleu, "b.toml")


@pytest.mark.parametrize("opener", ["[", "{a="])
def test_a_deeply_nested_file_gets_a_message_naming_it(opener: str):
    closer = {"[": "]", "{a=": "}"}[opener]
    depth = (MAX_FILE_BYTES - 100) // (len(opener) + len(closer))
    data = f"x = {opener * depth}1{closer * depth}".encode()
    assert len(data) <= MAX_FILE_BYTES
    with pytest.raises(LessonError) as raised:
        parse_lesson(data, "deep.toml")
    assert raised.value.source == "deep.toml" and "too deeply" in raised.value.problem


def _upload(data: bytes, name: str):
    at = open_app(PAGE)
    at.file_uploader(key="les_upload_0").set_value((name, data, "application/toml")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at) -> list[str]:
    kinds = ("markdown", "caption", "info", "success", "warning", "error")
    return [str(e.value) for kind in kinds for e in at.get(kind)]


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (_file(text=DOORS[0]), "lesson.toml"),
        (_file(title=DOORS[3]), "lesson.toml"),
        (_file(view=DOORS[0]), "lesson.toml"),
        (_file(), f"![n]({EVIL}).toml"),  # a clean file with a hostile name: loaded, named
        (b"x = " + b"[" * 30_000 + b"]" * 30_000, f"![n]({EVIL}).toml"),
        (b"id = [", f"![n]({EVIL}).toml"),
    ],
)
def test_an_uploaded_hostile_file_renders_nothing_that_fetches(data: bytes, name: str):
    at = _upload(data, name)
    shown = _shown(at)
    assert not any(_fetches(text) for text in shown), [t for t in shown if _fetches(t)]
    if data != _file():
        named = quoted(name)[:20]
        assert any(f"Lesson file {named}" in text for text in at.error.values), named


def test_a_classs_stored_lesson_is_checked_again_where_students_read_it(tmp_path, monkeypatch):
    """A class's own lesson that no longer passes the schema (written to the database by other
    means) is not shown to the students: the page says the class is over, and renders nothing
    of the file."""
    from app_pages.lessons import class_shared
    from live.store import open_store

    monkeypatch.setenv("ATLAS_CLASS_DIR", str(tmp_path))
    monkeypatch.delenv("ATLAS_CLASS_DB", raising=False)
    class_shared._open.clear()
    class_shared._class_lesson.cache_clear()
    store = open_store()
    try:
        info, _key = store.create_class("mine", text=_file().decode())
        store._db.run(  # the text field itself changed behind the app's back
            lambda tx: tx.run(
                "UPDATE classes SET lesson_text = ? WHERE code = ?",
                (_file(text=DOORS[0]).decode(), info.code),
            ),
            write=True,
        )
        at = open_app("app_pages/lessons/join.py", {"code": info.code})
        at.button[0].click().run()
        assert not at.exception, [e.value for e in at.exception]
        shown = _shown(at)
        assert any(f"The class {info.code} is over" in text for text in shown), shown
        assert not any(_fetches(text) for text in shown)
    finally:
        store.close()
        class_shared._open.clear()
        class_shared._class_lesson.cache_clear()
