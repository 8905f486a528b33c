"""Entry point of the attention atlas: one ``st.navigation`` over the pages, and the shared sidebar.

To add a page, write ``app_pages/<name>.py`` and add a ``PageEntry`` to ``PAGES`` below; a page whose
file does not exist is left out of the navigation and of the home map.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from ui.runtime import configure_torch_threads, freeze_long_lived
from ui.sidebar import sidebar_ui

ROOT = Path(__file__).resolve().parent


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


def check_registry(entries: list[PageEntry]) -> None:
    """Each url_path must equal its file's stem, so a page's URL is predictable from its file.

    The page files live in ``app_pages/``, not ``pages/``: with a ``pages/`` folder next to the entry
    script, Streamlit 1.67 serves a deep link in a fresh session through its legacy multipage mode,
    running the page file alone (no st.navigation, no shared sidebar)."""
    for entry in entries:
        if entry.url_path != Path(entry.file).stem:
            raise ValueError(f"{entry.file}: url_path {entry.url_path!r} must be its file stem")


STORY: list[tuple[str, str]] = [
    ("The core idea", "Attention as soft addressing: a query, keys and values."),
    ("RNN & the fixed-length bottleneck", "Why one fixed vector cannot carry a long sentence."),
    ("Bahdanau 2015", "The decoder learns where to look while it translates."),
    ("Luong 2015", "Global and local attention, and three ways to score."),
    ("Show, Attend and Tell 2015", "Soft and hard attention over the parts of an image."),
    ("Transformer 2017", "Self-attention, many heads, and positions without recurrence."),
]

PAGES: list[PageEntry] = [
    PageEntry("Attention anatomy", "app_pages/anatomy.py", ":material/hub:", "anatomy",
              "Scores, softmax, weighted sum on vectors you can drag around.", "The core idea"),
    PageEntry("Why attention", "app_pages/why_attention.py", ":material/compress:", "why_attention",
              "An encoder-decoder with and without attention, and BLEU by sentence length.",
              "RNN & the fixed-length bottleneck"),
    PageEntry("Alignment", "app_pages/alignment.py", ":material/grid_on:", "alignment",
              "English to French with Bahdanau or Luong attention: the alignment heatmap.",
              "Bahdanau 2015"),
    PageEntry("Local attention", "app_pages/local_attention.py", ":material/center_focus_weak:",
              "local_attention", "Luong local-m and local-p: the window and its Gaussian.",
              "Luong 2015"),
    PageEntry("Image captions", "app_pages/captions.py", ":material/image:", "captions",
              "Soft and hard attention of a captioning model over an image.",
              "Show, Attend and Tell 2015"),
    PageEntry("Multi-head attention", "app_pages/multi_head.py", ":material/view_module:",
              "multi_head", "Every layer and head of a small Transformer and of MiniLM.",
              "Transformer 2017"),
    PageEntry("Positional encoding", "app_pages/positional_encoding.py", ":material/waves:",
              "positional_encoding", "Sinusoids, position similarity, and a shuffled sentence.",
              "Transformer 2017"),
]  # fmt: skip


def build_navigation() -> st.navigation:
    """Home plus every registered page whose file exists, in story order."""
    check_registry(PAGES)
    pages = {entry.url_path: st.Page(entry.file, title=entry.title, icon=entry.icon,
                                     url_path=entry.url_path)
             for entry in PAGES if entry.exists()}  # fmt: skip

    home_page = st.Page(
        "app_pages/home.py", title="Home", icon=":material/home:", url_path="home", default=True
    )
    return st.navigation([home_page, *pages.values()])


def main() -> None:
    """Configure the page, draw the shared sidebar, run the selected page."""
    st.set_page_config(
        page_title="Attention atlas", page_icon=":material/visibility:", layout="wide"
    )
    configure_torch_threads()
    freeze_long_lived()
    sidebar_ui()
    navigation = build_navigation()
    navigation.run()


if __name__ == "__main__":  # importing app (app_pages/home.py reads PAGES) must not run it
    main()
