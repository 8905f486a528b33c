"""Home: what the atlas is, and the story from RNNs to the Transformer as a map of the pages."""

from __future__ import annotations

import streamlit as st

from app_pages.home.model_status import shipped_models
from i18n import N_, _
from ui.registry import PAGES, STORY, PageEntry
from ui.sidebar import available_devices, current_device
from ui.tables import table_ui

INTRO = N_(
    "This atlas lets you watch attention at work. Every picture is computed while you look, "
    "from your own input: toy vectors you edit, sentences you type, small models trained for the "
    "purpose. The pages follow the path the idea took, from recurrent networks that squeeze a "
    "whole sentence into one vector, to the Transformer, where attention is all there is."
)


def _stage_pages(stage: str, entries: list[PageEntry]) -> None:
    """Links to the pages of one stage (pages whose file is absent are left out)."""
    for entry in entries:
        if entry.stage == stage and entry.exists():
            st.page_link(entry.file, label=_(entry.title), icon=entry.icon)
            st.caption(_(entry.description))


def render_home(story: list[tuple[str, str]], entries: list[PageEntry]) -> None:
    """Draw the home page: intro, the device in use, and one card per stage of the story."""
    st.title(_("Attention atlas"))
    st.markdown(_(INTRO))
    device_note()
    st.subheader(_("The story, page by page"))
    for number, (stage, blurb) in enumerate(story, start=1):
        if not any(entry.stage == stage and entry.exists() for entry in entries):
            continue
        with st.container(border=True):
            st.markdown(
                _("**{number}. {stage}** — {blurb}").format(
                    number=number, stage=_(stage), blurb=_(blurb)
                )
            )
            _stage_pages(stage, entries)
    models_ui()


def device_note() -> None:
    """The device the models run on; that it can be changed only where there is a choice (a
    machine without a GPU has the CPU alone, and the sidebar offers nothing else)."""
    device = current_device().upper()
    if len(available_devices()) > 1:
        text = _("Computing on **{device}**. Change it in the sidebar.").format(device=device)
    else:
        text = _("Computing on **{device}**: this machine has no GPU.").format(device=device)
    st.info(text, icon=":material/memory:")


def models_ui() -> None:
    """The shipped models: which are present and what they measured."""
    st.subheader(_("The models"))
    table = shipped_models()
    if table.empty:
        st.warning(
            _("No trained checkpoint found under checkpoints/. See the README to train them.")
        )
        return
    table_ui(table)
    st.caption(
        _(
            "Each page loads its models the first time it needs them. The figures come from each "
            "checkpoint's card.json, measured by its evaluation command (see the README)."
        )
    )


render_home(STORY, PAGES)
