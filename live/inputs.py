"""What people send the class store, made safe before any statement sees it: a class code as
stored, a nickname as plain text, and steps and choices checked (ValueError), so that the
database holds only what the pages can show back."""

from __future__ import annotations

import unicodedata

from live.codes import normal_code

NICKNAME_CHARS = 24
CHOICES = 64  # an answer is a choice 0..63


def stored_code(raw: str) -> str:
    """The code as stored, or "" (no class has it) when ``raw`` cannot be a code."""
    return normal_code(raw) or ""


def clean_nickname(raw: str) -> str:
    """Plain text of at most NICKNAME_CHARS characters: spaces of any kind as one space, other
    control and format characters (and unpaired surrogates) removed, stripped."""
    kept = (
        " " if char.isspace() else char
        for char in raw[: NICKNAME_CHARS * 8]
        if char.isspace() or not unicodedata.category(char).startswith("C")
    )
    return " ".join("".join(kept).split())[:NICKNAME_CHARS].strip()


def check_choice(choice: int) -> None:
    """ValueError unless ``choice`` is a whole number from 0 to CHOICES - 1 (not a bool)."""
    if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < CHOICES:
        raise ValueError(f"a choice is a whole number from 0 to {CHOICES - 1}, not {choice!r}")


def check_step(step: int) -> None:
    """ValueError unless ``step`` is a whole number from 0 (not a bool)."""
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError(f"a step is a whole number from 0, not {step!r}")
