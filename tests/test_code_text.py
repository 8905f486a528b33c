"""The code's comments and docstrings read as code, not as a lab notebook: no reference to an
issue of a tracker (by its number, or as "the" one), which no reader of the code has. What was
decided, and why, is said in the comment itself; the history lives in git and docs/.

Known exceptions (files under concurrent work, or naming another project's tracker) are counted
below: the count may only shrink, and a file that no longer has one must leave the list."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = {".venv", ".git", "node_modules", "__pycache__", "locale", "checkpoints", "runs"}
CODE = {".py", ".js", ".mjs", ".css", ".html", ".toml", ".cfg", ".ini", ".sh", ".yml", ".yaml"}
CODE_NAMES = {"Makefile", "Dockerfile"}
# the word and a number (across a comment's line break too), or the word after "the"
ISSUE = re.compile(r"\bissues?\s*#?\s*\d+|\bthe\s+issue\b", re.IGNORECASE)
KNOWN: dict[str, int] = {}


@cache
def _code_files() -> tuple[Path, ...]:
    files = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if SKIPPED & set(rel.parts) or any(p.startswith(".") for p in rel.parts):
            continue
        if path.is_file() and (path.suffix in CODE or path.name in CODE_NAMES):
            files.append(path)
    return tuple(sorted(files))


def _references() -> dict[str, int]:
    found = {}
    for path in _code_files():
        n = len(ISSUE.findall(path.read_text(encoding="utf-8", errors="replace")))
        if n:
            found[path.relative_to(ROOT).as_posix()] = n
    return found


def test_the_pattern_finds_issue_references():
    word = "iss" + "ue"  # so that this file has no reference of its own
    found = ISSUE.findall(f"a fix ({word} 30); {word.title()}s 13 and 14; {word} #7")
    assert len(found) == 3, found
    assert ISSUE.findall(f"fitted to its column ({word}\n    # 30), never")  # across a line
    assert ISSUE.findall(f"what the {word} asks for")
    assert not ISSUE.findall(f"a t{word} 3 cm; an {word} of the journal; {word}d 5 keys")


def test_no_issue_numbers_in_the_code():
    found = _references()
    new = {f: n for f, n in found.items() if n > KNOWN.get(f, 0)}
    assert not new, f"issue references in the code (say what the code does and why): {new}"
    gone = {f: n for f, n in KNOWN.items() if found.get(f, 0) < n}
    assert not gone, f"fewer than listed, lower KNOWN: {gone} (found {found})"
