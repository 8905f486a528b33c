"""Extracting the message ids from the code (Babel's Python extractor) and from ``ui/pages.toml``,
and the source checks the extractor cannot make (f-strings inside ``_()``, ``_`` rebound)."""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Collection, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file

# Where user-visible text lives. training/ and bench/ print to a terminal and stay English.
SOURCE_GLOBS = (
    "app.py",
    "app_pages/**/*.py",
    "ui/**/*.py",
    "serve/**/*.py",
    "viz/**/*.py",
    "models/**/*.py",
    "media/**/*.py",
)
TOML_SOURCES = ("ui/pages.toml",)
LESSON_GLOB = "lessons/*.toml"  # the lessons' texts (app_pages/lessons/schema.py)
LESSON_KEYS = {
    "title": "lesson or step title",
    "summary": "lesson line in the list of lessons",
    "text": "a step's narration (markdown, LaTeX between $)",
    "prompt": "a prediction question",
    "explain": "the explanation shown at a question's reveal",
}
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
COMMENT_TAGS = ("i18n:",)  # `# i18n: note` on the line before a message reaches the translator
TOML_KEYS = {
    "title": "page title (navigation, home map)",
    "description": "page line on the home map",
    "name": "stage of the story (home map)",
    "blurb": "stage line on the home map",
}
# Fixed header dates: the built files depend on their content only.
STAMP = datetime(2025, 1, 1, tzinfo=UTC)
PROJECT = "Attention atlas"


def new_catalog(locale: str | None, header: str) -> Catalog:
    """An empty catalogue with the project's fixed header."""
    catalog = Catalog(
        locale=locale,
        project=PROJECT,
        version="1",
        header_comment=header,
        creation_date=STAMP,
        revision_date=STAMP,
        fuzzy=False,
        last_translator="Attention atlas team",
        language_team=locale or "LANGUAGE",
    )
    return catalog


def source_files(root: Path) -> list[Path]:
    """The Python files whose messages are extracted, sorted."""
    files = {path for pattern in SOURCE_GLOBS for path in root.glob(pattern) if path.is_file()}
    return sorted(p for p in files if "__pycache__" not in p.parts)


def extract_pages_toml(
    fileobj: BinaryIO,
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """A Babel extraction method for the page registry: each title, description, stage name
    and blurb (one ``key = "text"`` per line) is a message."""
    pattern = re.compile(r"^\s*(" + "|".join(TOML_KEYS) + r")\s*=\s*(\".*\")\s*$")
    for lineno, line in enumerate(fileobj.read().decode("utf-8").splitlines(), start=1):
        match = pattern.match(line)
        if match:
            text = tomllib.loads(f"v = {match.group(2)}")["v"]
            yield lineno, None, text, [TOML_KEYS[match.group(1)]]


def extract_lesson_toml(
    fileobj: BinaryIO,
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """A Babel extraction method for a lesson file: every LESSON_KEYS text of the lesson, its
    steps and their questions (multi-line strings included), at the line its key is on."""
    source = fileobj.read().decode("utf-8")
    lines = source.splitlines()
    data = tomllib.loads(source)
    tables = [data, *data.get("step", [])]
    tables += [step["question"] for step in data.get("step", []) if "question" in step]
    cursor = 0
    for table in tables:
        for key, comment in LESSON_KEYS.items():
            text = table.get(key)
            if not isinstance(text, str):
                continue
            text = text.strip()
            for lineno in range(cursor, len(lines)):
                if re.match(rf"^\s*{key}\s*=", lines[lineno]):
                    cursor = lineno + 1
                    break
            yield cursor, None, text, [comment]


def _add(catalog: Catalog, root: Path, path: Path, results: list) -> None:
    where = path.relative_to(root).as_posix()
    for lineno, message, comments, context in results:
        catalog.add(message, None, [(where, lineno)], auto_comments=comments, context=context)


def extract_template(root: Path) -> Catalog:
    """The template (.pot): every message marked in the code and the page registry."""
    catalog = new_catalog(None, "# Messages of the Attention atlas, extracted by `make i18n`.\n#")
    for path in source_files(root):
        results = extract_from_file(
            "python", path, keywords=KEYWORDS, comment_tags=COMMENT_TAGS, strip_comment_tags=True
        )
        _add(catalog, root, path, results)
    for name in TOML_SOURCES:
        path = root / name
        if path.is_file():
            _add(catalog, root, path, extract_from_file(extract_pages_toml, path))
    for path in sorted(root.glob(LESSON_GLOB)):
        _add(catalog, root, path, extract_from_file(extract_lesson_toml, path))
    return catalog


# ---------------------------------------------------------------- source checks

_MARKERS = set(KEYWORDS)


def _marker_name(node: ast.Call) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) and node.func.id in _MARKERS else None


def _bad_argument(node: ast.AST) -> str | None:
    """Why an argument of ``_()`` cannot be extracted, or None when it can (a literal, or a
    name/attribute/subscript holding an N_-marked constant)."""
    if isinstance(node, ast.JoinedStr):
        return "an f-string (write _('... {name} ...').format(name=...))"
    if isinstance(node, ast.BinOp):
        return "a string built with + or % (one literal per message)"
    if isinstance(node, ast.Call):
        return "a call result, e.g. .format() inside _() (format after translating)"
    return None


def _imports_underscore(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "i18n"
        and any(alias.name == "_" for alias in node.names)
        for node in ast.walk(tree)
    )


def _rebinds_underscore(tree: ast.Module) -> list[int]:
    """Lines where ``_`` is assigned (``for _ in``, ``a, _ = ...``): in a function that also
    calls ``_()`` that makes ``_`` local and the call fails."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
            lines.append(node.lineno)
    return lines


def _toml_problems(root: Path) -> list[str]:
    """Registry texts the line-based extraction missed (a multi-line string, say)."""
    problems = []
    for name in TOML_SOURCES:
        path = root / name
        if not path.is_file():
            continue
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        texts = {
            str(table[key])
            for tables in data.values()
            if isinstance(tables, list)
            for table in tables
            for key in TOML_KEYS
            if key in table
        }
        with path.open("rb") as handle:
            found = {message for _l, _f, message, _c in extract_pages_toml(handle, (), (), {})}
        problems += [
            f'{name}: {text!r} is not extracted: write it as key = "text" on one line'
            for text in sorted(texts - found)
        ]
    return problems


def check_sources(root: Path) -> list[str]:
    """Problems the extractor would silently skip, as 'path:line: message'."""
    problems = _toml_problems(root)
    for path in source_files(root):
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (name := _marker_name(node)):
                positional = node.args[:2] if name in {"ngettext", "pgettext"} else node.args[:1]
                for arg in positional:
                    if reason := _bad_argument(arg):
                        problems.append(f"{where}:{node.lineno}: {name}() of {reason}")
        if _imports_underscore(tree):
            for line in _rebinds_underscore(tree):
                problems.append(
                    f"{where}:{line}: `_` is rebound in a module that imports _()"
                    " from i18n; use another throwaway name"
                )
    return problems
