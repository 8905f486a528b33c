"""The page registry: the story's stages and the pages in story order (data in ``ui/pages.toml``).

``app.py`` builds the navigation from it, the home page draws its map from it, and the bench and
tests list the pages from it, so none of them imports the entry script.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the project root: page files are relative to it
REGISTRY_FILE = Path(__file__).with_name("pages.toml")


@dataclass(frozen=True)
class PageEntry:
    """One page of the atlas: where it sits in the story and how the home map describes it."""

    title: str
    file: str  # relative to the project root
    icon: str  # a Material icon, ":material/<name>:"
    url_path: str  # the page's path in the URL: the file's stem (see ``check_registry``)
    description: str  # one line for the home map
    stage: str  # one of STORY's stage names

    def exists(self) -> bool:
        """True when the page's file is present (pages still being written are skipped)."""
        return (ROOT / self.file).is_file()


def check_registry(entries: list[PageEntry], stages: list[tuple[str, str]] | None = None) -> None:
    """Each url_path must equal its file's stem, so a page's URL is predictable from its file
    (``app_pages/<url_path>/<url_path>.py``); with ``stages``, each page's stage must be one of them.

    The page files live in ``app_pages/`` (a folder per page: its script and the modules only it
    uses), not ``pages/``: with a ``pages/`` folder next to the entry script, Streamlit 1.67 serves
    a deep link in a fresh session through its legacy multipage mode, running the page file alone
    (no st.navigation, no shared sidebar)."""
    names = {name for name, _ in stages or []}
    for entry in entries:
        if entry.url_path != Path(entry.file).stem:
            raise ValueError(f"{entry.file}: url_path {entry.url_path!r} must be its file stem")
        if stages is not None and entry.stage not in names:
            raise ValueError(f"{entry.file}: stage {entry.stage!r} is not one of {sorted(names)}")


def read_registry(path: Path = REGISTRY_FILE) -> tuple[list[tuple[str, str]], list[PageEntry]]:
    """(stages as (name, blurb), pages) from the registry file, checked."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    stages = [(stage["name"], stage["blurb"]) for stage in data["stage"]]
    pages = [PageEntry(**page) for page in data["page"]]
    check_registry(pages, stages)
    return stages, pages


STORY, PAGES = read_registry()
