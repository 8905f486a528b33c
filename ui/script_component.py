"""The tiny components-v2 scripts that draw nothing (the document's language, announcements, the
browser's memory, saved lessons, the class's event stream): each registered once per process,
and where components v2 is unavailable the page goes on without it."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

import streamlit as st

_LOG = logging.getLogger(__name__)


@functools.cache
def script_component(name: str, js: str, without: str) -> Callable | None:
    """The mount function of the script ``js``, registered as the component ``name``; None where
    components v2 is unavailable (``without``: what the page does then, logged once)."""
    try:
        return st.components.v2.component(name, js=js)
    except Exception:
        _LOG.warning("%s is unavailable: %s", name, without, exc_info=True)
        return None
