"""The one skip-or-fail rule for tests that need something outside the project.

A test that needs ``../shared/data``, a shipped checkpoint, Chromium or the emoji font calls
``need(condition, reason)``: outside CI it skips with the reason (a user's fresh clone has no data
folder); with ``CI=true`` it fails instead, so CI never hides one (``.ci/run`` installs the system
packages, so no test skips there).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from training.data import DEFAULT_DATA

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need(condition: bool, reason: str) -> None:
    """Skip (or fail under CI) unless ``condition`` holds."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


def need_data(folder: Path = DEFAULT_DATA) -> Path:
    need(
        (folder / "train.en.gz").is_file(),
        f"Multi30k data not found at {folder} (see docs/training.md: Data)",
    )
    return folder
