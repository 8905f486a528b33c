"""What the app sets on the page's document, which Streamlit's own page leaves out:

- its language: ``<html lang="zh-Hans">`` in Chinese, ``lang="en"`` in English (WCAG 3.1.1), so
  that a screen reader reads the page with the right voice (Streamlit declares English whatever
  the app's language);
- keyboard access to every box that scrolls sideways (a wide formula on a phone): such a box with
  nothing focusable inside gets ``tabindex="0"``, so that it can be reached and scrolled with the
  arrow keys (WCAG 2.1.1; axe's scrollable-region-focusable).

A tiny components-v2 script does both on the page's own document at every run, and again as the
page changes (a MutationObserver, at most once per animation frame); it draws nothing and sits at
the sidebar's end. Under AppTest (no browser) it does nothing."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ui import plotly_component
from ui.script_component import script_component

BCP47 = {"en": "en", "zh": "zh-Hans"}  # the app's language code -> the document's lang tag
DOCUMENT_JS = """
export default function (component) {
  const { data, parentElement } = component;
  const doc = parentElement.ownerDocument || document;
  // it draws nothing, and says so on its element (bench/register.py's CHARTS_DRAWN)
  const host = parentElement.host || parentElement;
  (host.closest('[data-testid="stBidiComponentRegular"]') || host).setAttribute("data-draws-nothing", "");
  if (data && data.lang && doc.documentElement.lang !== data.lang) {
    doc.documentElement.lang = data.lang;
  }
  const win = doc.defaultView || window;
  const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
  // the boxes Streamlit lets scroll sideways: formulas (st.latex's and Markdown's $$...$$), tables
  const BOXES = ".katex-display, [data-testid=stMarkdownContainer] > div, [data-testid=stTable] > div";
  const reachable = () => {
    for (const box of doc.querySelectorAll(BOXES)) {
      if (box.hasAttribute("tabindex") || box.scrollWidth <= box.clientWidth + 1) continue;
      const style = win.getComputedStyle(box);
      if (!/(auto|scroll)/.test(style.overflowX) || box.querySelector(FOCUSABLE)) continue;
      box.setAttribute("tabindex", "0");
    }
  };
  reachable();
  if (!win.__atlasScrollBoxes) {
    let queued = false;
    const inChart = (record) => record.target.closest && record.target.closest(".js-plotly-plot");
    win.__atlasScrollBoxes = new MutationObserver((records) => {
      if (queued || records.every(inChart)) return;  // a chart drawing: no formula moved
      queued = true;
      win.requestAnimationFrame(() => { queued = false; reachable(); });
    });
    win.__atlasScrollBoxes.observe(doc.body, { childList: true, subtree: true });
    win.addEventListener("resize", reachable);
  }
}
"""


def _mount() -> Callable | None:
    return script_component(
        "atlas_document", DOCUMENT_JS, "the document stays as Streamlit made it"
    )


def document_ui(lang: str) -> None:
    """Declare ``lang`` (a key of BCP47) as the language of the page's document, and keep its
    sideways-scrolling boxes reachable by keyboard."""
    if plotly_component._under_apptest():
        return
    mount = _mount()
    if mount is None:
        return
    with st.sidebar:
        mount(key="document", data={"lang": BCP47.get(lang, "en")})
