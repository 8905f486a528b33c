"""Home: what the atlas is, and the story from RNNs to the Transformer as a map of the pages."""

from __future__ import annotations

import streamlit as st

from app import PAGES, STORY, PageEntry
from ui.sidebar import current_device

INTRO = """
This atlas lets you watch attention at work. Every picture is computed while you look,
from your own input: toy vectors you edit, sentences you type, small models trained for the
purpose. The pages follow the path the idea took, from recurrent networks that squeeze a whole
sentence into one vector, to the Transformer, where attention is all there is.
"""


def _stage_pages(stage: str, entries: list[PageEntry]) -> None:
    """Links to the pages of one stage; pages not written yet are listed as coming soon."""
    members = [entry for entry in entries if entry.stage == stage]
    if not members:
        st.caption("No page yet.")
    for entry in members:
        if entry.exists():
            st.page_link(entry.file, label=entry.title, icon=entry.icon)
            st.caption(entry.description)
        else:
            st.markdown(f"{entry.title} · *coming soon*")
            st.caption(entry.description)


def render_home(story: list[tuple[str, str]], entries: list[PageEntry]) -> None:
    """Draw the home page: intro, the device in use, and one card per stage of the story."""
    st.title("Attention atlas")
    st.markdown(INTRO)
    device = current_device()
    st.info(
        f"Computing on **{device.upper()}**. Change it in the sidebar.", icon=":material/memory:"
    )
    st.subheader("The story, page by page")
    for number, (stage, blurb) in enumerate(story, start=1):
        with st.container(border=True):
            st.markdown(f"**{number}. {stage}** — {blurb}")
            _stage_pages(stage, entries)


render_home(STORY, PAGES)
