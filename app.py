"""Entry point of the attention atlas: one ``st.navigation`` over the pages, and the shared sidebar.

The pages and the story they follow are registered in ``ui/pages.toml`` (read by ``ui.registry``);
a page whose file does not exist is left out of the navigation and of the home map.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import streamlit as st

from i18n import _, current_language
from serve.runtime import configure_torch_threads, freeze_long_lived, keep_finished_runs
from ui.errors import run_page
from ui.registry import PAGES
from ui.sidebar import classroom_requested, language_ui, sidebar_ui

# The browser tab's icon, served by this server: a Material icon here would make the browser fetch
# it from Google's font service (the navigation's icons come from the font Streamlit bundles).
PAGE_ICON = Path(__file__).resolve().parent / "assets" / "icon.png"


HOME = "app_pages/home/home.py"


def home_pages() -> list[st.Page]:
    """Home at ``/`` (the default page, the one the navigation shows) and the same page, hidden
    from the navigation, at ``/home``: Streamlit serves a default page at ``/`` only, so a link
    to ``/home`` said "Page not found". Links to HOME by file go to ``/`` (the first page)."""
    title, icon = _("Home"), ":material/home:"
    return [
        st.Page(HOME, title=title, icon=icon, url_path="", default=True),
        st.Page(HOME, title=title, icon=icon, url_path="home", visibility="hidden"),
    ]


@cache
def _pages(language: str) -> tuple[st.Page, ...]:
    """Home plus every registered page whose file exists, in story order, titled in ``language``
    (the current one): built once per language and process, not in every run of every session
    (a lecture hall's reconnecting pages all run the app at once)."""
    pages = [
        st.Page(entry.file, title=_(entry.title), icon=entry.icon, url_path=entry.url_path)
        for entry in PAGES
        if entry.exists()
    ]
    return (*home_pages(), *pages)


def build_navigation() -> st.navigation:
    """The navigation over :func:`_pages` in the current language. Each run gets copies: the
    navigation marks the page it runs on the page object itself, and runs of several sessions
    overlap."""
    pages = [copy.copy(page) for page in _pages(current_language())]
    return st.navigation(pages, expanded=True)  # every page, no "View more"


def main() -> None:
    """Choose the language (first: everything after it is translated), configure the page,
    draw the shared sidebar, run the selected page."""
    language_ui()
    st.set_page_config(
        page_title=_("Attention atlas"),
        page_icon=str(PAGE_ICON),
        layout="wide",
        # a projector needs the width: classroom mode starts with the sidebar folded away
        initial_sidebar_state="collapsed" if classroom_requested() else "auto",
    )
    configure_torch_threads()
    keep_finished_runs()
    freeze_long_lived()
    sidebar_ui()
    navigation = build_navigation()
    run_page(navigation.run, where=navigation.url_path)


if __name__ == "__main__":  # Streamlit runs the entry script as __main__
    main()
