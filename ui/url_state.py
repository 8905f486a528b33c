"""View state in the URL: typed, validated reads of ``st.query_params`` and write-back.

Simple widgets bind themselves with ``bind="query-params"`` (their key is the parameter name);
composite values (vector tables, matrices, seeds) go through these helpers, so that a copied link
reproduces the view.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import streamlit as st

T = TypeVar("T")


def parse_float(raw: str | None, default: float, lo: float = -math.inf, hi: float = math.inf):
    """A finite float in [lo, hi] from ``raw``, else ``default``."""
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
    return value if math.isfinite(value) and lo <= value <= hi else default


def parse_int(raw: str | None, default: int, lo: int = -(2**31), hi: int = 2**31) -> int:
    """An int in [lo, hi] from ``raw``, else ``default``."""
    try:
        value = int(str(raw))
    except (TypeError, ValueError):
        return default
    return value if lo <= value <= hi else default


def parse_bool(raw: str | None, default: bool) -> bool:
    """'1'/'true'/'yes'/'on' -> True, '0'/'false'/'no'/'off' -> False, else ``default``."""
    text = str(raw).strip().lower()
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off"}:
        return False
    return default


def parse_choice(raw: str | None, default: str, choices: Sequence[str]) -> str:
    """``raw`` if it is one of ``choices``, else ``default``."""
    return raw if raw in choices else default


def parse_matrix(
    raw: str | None, default: list[list[float]], rows: int | None, cols: int
) -> list[list[float]]:
    """A matrix written 'a,b;c,d' (rows by ';', columns by ','), finite, with ``cols`` columns
    and ``rows`` rows (any number when None); else ``default``."""
    try:
        parsed = [[float(x) for x in row.split(",")] for row in str(raw).split(";")]
    except ValueError:
        return default
    ok = all(len(row) == cols and all(math.isfinite(x) for x in row) for row in parsed)
    return parsed if ok and (rows is None or len(parsed) == rows) else default


def format_matrix(matrix: Sequence[Sequence[float]]) -> str:
    """The inverse of ``parse_matrix``: 'a,b;c,d' with compact numbers."""
    return ";".join(",".join(f"{float(x):g}" for x in row) for row in matrix)


def read_param(name: str, parse: Callable[..., T], default: T, *args: object) -> T:
    """Read ``name`` from the URL through ``parse(raw, default, *args)``."""
    return parse(st.query_params.get(name), default, *args)


def write_params(**values: object) -> None:
    """Write values to the URL (str() of each), touching only those that changed."""
    for name, value in values.items():
        text = str(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text
