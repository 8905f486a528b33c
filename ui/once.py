"""Content computed once for every session of the process: a lesson step's view, its posed
question, what a hall of students all see at the same moment.

``@once`` makes a function that computes a value (it may show messages on the way: a sentence cut,
a target word missing; it draws no widget) return the value kept for its arguments in the
session's language, screen mode (classroom or not) and device; the messages it showed are shown
again with the kept value (Streamlit's cached-message replay), so a later session sees exactly
what the first saw. A result of None (a message instead of a value: a missing model, a refused
input) is not kept, so a model trained later is found at once.

A hall's move then costs each student only the drawing of values already made: 300 students who
open the same step share one model run, one figure and one legible chart (``ui.charts.Prepared``).
The values are shared between sessions: nothing kept may be changed by its caller.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import streamlit as st

from i18n import current_language
from ui.sidebar import classroom_mode, current_device

P = ParamSpec("P")
T = TypeVar("T")
KEPT = 256  # values kept: a few lessons' steps in two languages and both screen modes

_functions: dict[str, Callable] = {}


class _NothingKept(Exception):
    """The function returned None: shown to this session, kept for none."""


def once(fn: Callable[P, T | None]) -> Callable[P, T | None]:
    """``fn`` computed once per arguments, language, screen mode and device (module docstring).
    Its arguments key the value by their ``repr``: plain values (strings, numbers, None, tuples
    of them) and frozen dataclasses of plain values (a lesson's ``Step``), whose ``repr`` says
    every field; not objects whose ``repr`` is only their address. Keyword arguments whose name
    starts with ``_`` do not key the value (as in Streamlit's own caches: e.g. the function that
    builds a figure, keyed by what the figure shows)."""
    name = f"{fn.__module__}.{fn.__qualname__}"
    _functions[name] = fn

    @functools.wraps(fn)
    def kept(*args: P.args, **kwargs: P.kwargs) -> T | None:
        keyed = {k: v for k, v in kwargs.items() if not k.startswith("_")}
        key = _key(name, args, keyed)
        try:
            return _kept(key, *_screen(), _call=(name, args, kwargs))
        except _NothingKept:
            return None

    return kept


def _key(name: str, args: tuple, kwargs: dict) -> str:
    """The arguments as one string (Streamlit hashes a string at once, where a dataclass is
    taken apart field by field: many times slower, and paid on every call)."""
    key = f"{name}{args!r}{sorted(kwargs.items())!r}"
    if _ADDRESS.search(key):
        raise TypeError(f"{name}: an argument's repr does not say its value: {key[:200]}")
    return key


_ADDRESS = re.compile(r" at 0x[0-9a-f]+>")


def _screen() -> tuple[str, bool, str]:
    return current_language(), classroom_mode(), current_device()


@st.cache_resource(show_spinner=False, max_entries=KEPT)
def _kept(key: str, language: str, classroom: bool, device: str, _call: tuple):
    """The cache itself, keyed by ``key`` (the call's arguments), ``language``, ``classroom`` and
    ``device`` (the function reads the last three from the session as it runs); ``_call``: the
    function's name and arguments."""
    name, args, kwargs = _call
    value = _functions[name](*args, **kwargs)
    if value is None:
        raise _NothingKept
    return value
