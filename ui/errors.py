"""What a person sees when a page fails: one sentence with a short error id, never a traceback.

``app.py`` runs the selected page through :func:`run_page`, and pages declare their fragments with
:func:`fragment` (``st.fragment`` plus the same guard: a fragment rerun does not go through
``app.py``). An exception that escapes the page or a fragment is written to the server log (logger ``atlas.errors``) with its traceback and an 8-hex-digit id, and
the page shows a sentence with that id, so that a teacher can report it and whoever runs the
server can find it. Streamlit's own control flow (``st.rerun``, ``st.stop``, ``st.switch_page``,
and a fragment's error that Streamlit has already shown) passes through untouched.
``client.showErrorDetails = "none"`` (``.streamlit/config.toml``) covers anything that still
escapes (a callback, a plain ``st.fragment``): Streamlit then shows a generic line without type,
text or traceback.
"""

from __future__ import annotations

import functools
import logging
import secrets
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import streamlit as st

from i18n import _
from serve.memory import collected_after_large_figures
from serve.slots import script_slot
from serve.streamlit_private import FragmentHandledException, ScriptControlException

log = logging.getLogger("atlas.errors")
PASS_THROUGH = (ScriptControlException, FragmentHandledException)  # rerun, stop, switch_page
P = ParamSpec("P")
R = TypeVar("R")


def new_error_id() -> str:
    """A short random id (8 hex digits) that ties a page's message to its log entry."""
    return secrets.token_hex(4)


def error_message(error_id: str) -> str:
    """The sentence a person sees instead of the exception, in the session's language."""
    return _(
        "Something went wrong on this page, so it stopped here. Reloading the page or changing "
        "a setting may help. If it happens again, tell whoever runs this site the error id "
        "**{error_id}**: the details are in the server's log under that id."
    ).format(error_id=error_id)


def report_error(exc: BaseException, where: str = "") -> str:
    """Log ``exc`` with its traceback and a new id, show the sentence with that id; the id."""
    error_id = new_error_id()
    log.error("error %s on page %s", error_id, where or "(default)", exc_info=exc)
    st.error(error_message(error_id), icon=":material/error:")
    return error_id


def run_page(run: Callable[[], None], where: str = "") -> None:
    """``run()`` (the selected page); what escapes it is reported by :func:`report_error`."""
    call_reported(run, where)


def call_reported(run: Callable[[], R], where: str = "") -> R | None:
    """``run()`` in a script slot (:func:`serve.slots.script_slot`), its garbage collected at the
    end if it sent large charts (:func:`serve.memory.collected_after_large_figures`), or None after
    :func:`report_error` when it raised anything but Streamlit's own control flow."""
    try:
        with script_slot(), collected_after_large_figures():
            return run()
    except PASS_THROUGH:
        raise
    except Exception as exc:  # the one place an unexpected error is turned into a sentence
        report_error(exc, where)
        return None


def reported(func: Callable[P, R]) -> Callable[P, R | None]:
    """``func`` guarded by :func:`call_reported`."""

    @functools.wraps(func)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R | None:
        return call_reported(lambda: func(*args, **kwargs), func.__qualname__)

    return guarded


def fragment(func: Callable[P, R] | None = None, /, **options: object):
    """``@st.fragment`` (or ``@fragment(run_every=...)``) for a page section whose unexpected
    errors are reported with an id: the fragment's own reruns do not pass through ``app.py``'s
    :func:`run_page`.

    A fragment that reruns on a timer is drawn alone in a container of its own: in Streamlit 1.67
    a timer's run that starts before the previous run's messages have left the server can put
    the fragment's block over the sibling after it (a student's question went blank after an
    answer; docs/deployment.md, "A second race").
    """

    def make(inner: Callable[P, R]) -> Callable[P, R | None]:
        timed = st.fragment(reported(inner), **options)
        if options.get("run_every") is None:
            return timed

        @functools.wraps(inner)
        def alone(*args: P.args, **kwargs: P.kwargs) -> R | None:
            with st.container():
                return timed(*args, **kwargs)

        return alone

    return make if func is None else make(func)
