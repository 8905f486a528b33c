"""View state in the URL: typed, validated reads of ``st.query_params`` and write-back.

Simple widgets bind themselves with ``bind="query-params"`` (their key is the parameter name);
composite values (vector tables, matrices, seeds) go through these helpers, so that a copied link
reproduces the view.

A link is untrusted input. Numbers are read strictly: ASCII digits only (no superscripts or other
scripts' digits), finite (no ``inf``, ``nan`` or ``1e309``), short, and within the widget's range.
A value that fails falls back to the default and the page says so once (:func:`url_notice`);
:func:`check_number_param` and :func:`check_choice_param` do this for a bound widget before it is
drawn (Streamlit itself raises on ``?seed=Infinity`` for an integer ``number_input``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Sequence
from typing import TypeVar

import streamlit as st

from i18n import _
from serve.streamlit_private import StreamlitAPIException

T = TypeVar("T")
# A plain decimal number as people and this app write it: 12, -3, 0.5, .5, 2e-05 (ASCII only).
NUMBER = re.compile(r"[+-]?(?:[0-9]{1,15}(?:\.[0-9]{0,15})?|\.[0-9]{1,15})(?:[eE][+-]?[0-9]{1,3})?")
INTEGER = re.compile(r"[+-]?[0-9]{1,15}")
MAX_ROWS = 64  # rows a matrix in a link may have when the page does not fix the number
_REJECTED = object()  # what a parser returns for a value it refuses (never a real default)
_NOTICED = "_url_noticed"  # session-state set of the parameters already noticed


def parse_float(raw: str | None, default: float, lo: float = -math.inf, hi: float = math.inf):
    """A finite float in [lo, hi] written as a plain ASCII number (:data:`NUMBER`), else
    ``default``."""
    text = str(raw).strip() if raw is not None else ""
    if not NUMBER.fullmatch(text):
        return default
    value = float(text)
    return value if math.isfinite(value) and lo <= value <= hi else default


def parse_int(raw: str | None, default: int, lo: int = -(2**31), hi: int = 2**31) -> int:
    """An int in [lo, hi] written with ASCII digits (an optional sign, at most 15 digits), else
    ``default``."""
    text = str(raw).strip() if raw is not None else ""
    if not INTEGER.fullmatch(text):
        return default
    value = int(text)
    return value if lo <= value <= hi else default


def parse_choice(raw: str | None, default: str, choices: Sequence[str]) -> str:
    """``raw`` if it is one of ``choices``, else ``default``."""
    return raw if raw in choices else default


def parse_matrix(
    raw: str | None, default: list[list[float]], rows: int | None, cols: int
) -> list[list[float]]:
    """A matrix written 'a,b;c,d' (rows by ';', columns by ','), of plain finite numbers, with
    ``cols`` columns and ``rows`` rows (up to :data:`MAX_ROWS` when None); else ``default``."""
    lines = str(raw).split(";")
    if raw is None or len(lines) > (MAX_ROWS if rows is None else rows):
        return default
    parsed = [[parse_float(x, math.nan) for x in line.split(",")] for line in lines]
    ok = all(len(row) == cols and all(math.isfinite(x) for x in row) for row in parsed)
    return parsed if ok and (rows is None or len(parsed) == rows) else default


def format_matrix(matrix: Sequence[Sequence[float]]) -> str:
    """The inverse of ``parse_matrix``: 'a,b;c,d' with compact numbers."""
    return ";".join(",".join(f"{float(x):g}" for x in row) for row in matrix)


def read_param(name: str, parse: Callable[..., T], default: T, *args: object) -> T:
    """Read ``name`` from the URL through ``parse(raw, default, *args)``; a value that the parser
    refuses gives ``default`` and a notice."""
    raw = st.query_params.get(name)
    if raw is None:
        return default
    value = parse(raw, _REJECTED, *args)
    if value is _REJECTED:
        url_notice(name)
        return default
    return value


def url_notice(name: str) -> None:
    """Say once per session that the link's ``name`` could not be used (a toast: it does not move
    the page's layout). The value itself is not repeated: it is whatever the link said."""
    noticed = st.session_state.setdefault(_NOTICED, set())
    if name in noticed:
        return
    noticed.add(name)
    st.toast(
        _(
            "This link's value for **{name}** is not one this page can use, so the page shows its "
            "default there instead."
        ).format(name=name),
        icon=":material/link_off:",
    )


def _drop_param(name: str) -> None:
    """Remove ``name`` from the URL (unless a widget already owns it)."""
    try:
        del st.query_params[name]
    except (KeyError, StreamlitAPIException):
        pass


def seed_number(name: str, default: float, lo: float, hi: float, *, integer: bool = True) -> None:
    """First run of the session: ``st.session_state[name]`` from the link's ``?name=``, read
    strictly (:func:`read_param`: a refused value gives ``default`` and a notice). For a number
    widget that the page keeps in the URL itself (``write_params`` after it) instead of binding
    it: Streamlit seeds a bound widget from the link before any page code can check it, and an
    integer ``number_input`` raises OverflowError on ``?name=Infinity``."""
    if name not in st.session_state:
        parse = parse_int if integer else parse_float
        st.session_state[name] = read_param(name, parse, default, lo, hi)


def check_number_param(name: str, lo: float, hi: float, *, integer: bool = True) -> None:
    """Call before drawing a number widget bound to the URL under ``name`` (range [lo, hi]): a
    value that is not a plain number in range gets a notice and leaves the address bar. (The
    widget itself ignores such values: Streamlit starts it from its default.) Does nothing once
    the widget has a value of its own."""
    if name in st.session_state or name not in st.query_params:
        return
    parse = parse_int if integer else parse_float
    if parse(st.query_params.get(name), _REJECTED, lo, hi) is _REJECTED:
        _drop_param(name)
        url_notice(name)


def check_choice_param(name: str, choices: Collection[str], message: str | None = None) -> None:
    """Like :func:`check_number_param` for a choice widget: the link's value must be one of
    ``choices`` (as the URL writes them); else it leaves the address bar with a notice, or with
    ``message`` in an info box when one is given."""
    if name in st.session_state or name not in st.query_params:
        return
    if st.query_params.get(name) not in choices:
        _drop_param(name)
        if message:
            st.info(message, icon=":material/link_off:")
        else:
            url_notice(name)


def check_model_param(name: str, models: Sequence[str]) -> None:
    """:func:`check_choice_param` for a model picker (``models``: the ids it offers, the default
    first): a link naming any other model says so in an info box, with the model the page uses
    instead and those it offers (never the link's own value, which is untrusted text)."""
    check_choice_param(
        name,
        models,
        _(
            "This link asks for a model (**{name}**) this page does not offer, so the page uses "
            "{default}. Offered: {offered}."
        ).format(name=name, default=models[0], offered=", ".join(models)),
    )


def write_params(**values: object) -> None:
    """Write values to the URL (str() of each), touching only those that changed."""
    for name, value in values.items():
        text = str(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text
