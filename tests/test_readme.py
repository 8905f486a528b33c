"""The README is a newcomer's page: short (under 10,000 characters in each language, detail in
docs/), and every file it links or shows (docs, screenshots) exists in the tree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READMES = ("README.md", "README.zh.md")
LIMIT = 10_000  # characters
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("name", READMES)
def test_the_readme_is_short(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert len(text) < LIMIT, f"{name} has {len(text)} characters: move detail to docs/"


@pytest.mark.parametrize("name", READMES)
def test_every_file_the_readme_links_exists(name):
    targets = LINK.findall((ROOT / name).read_text(encoding="utf-8"))
    local = [t for t in targets if "://" not in t]
    assert local, "no local link found: the pattern no longer matches the README"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing
