"""The document's language follows the app's: ``<html lang="zh-Hans">`` in Chinese and
``lang="en"`` in English (WCAG 3.1.1), so that a screen reader reads the page with the right
voice and the browser picks the right fonts and hyphenation. Streamlit's page declares English
whatever the app's language; a tiny components-v2 script sets the attribute on the page's own
document at every run (it draws nothing, and sits at the sidebar's end). Under AppTest (no
browser) it does nothing."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

import streamlit as st

from ui import plotly_component

_LOG = logging.getLogger(__name__)
BCP47 = {"en": "en", "zh": "zh-Hans"}  # the app's language code -> the document's lang tag
LANG_JS = """
export default function (component) {
  const { data, parentElement } = component;
  const doc = parentElement.ownerDocument || document;
  // it draws nothing, and says so on its element (bench/registry.py's CHARTS_DRAWN)
  const host = parentElement.host || parentElement;
  (host.closest('[data-testid="stBidiComponentRegular"]') || host).setAttribute("data-draws-nothing", "");
  if (data && data.lang && doc.documentElement.lang !== data.lang) {
    doc.documentElement.lang = data.lang;
  }
}
"""


@functools.cache
def _mount() -> Callable | None:
    try:
        return st.components.v2.component("atlas_document_language", js=LANG_JS)
    except Exception:  # components v2 unavailable: the document keeps Streamlit's lang
        _LOG.warning("document language unavailable", exc_info=True)
        return None


def document_language(lang: str) -> None:
    """Declare ``lang`` (a key of BCP47) as the language of the page's document."""
    if plotly_component._under_apptest():
        return
    mount = _mount()
    if mount is None:
        return
    with st.sidebar:
        mount(key="document_language", data={"lang": BCP47.get(lang, "en")})
