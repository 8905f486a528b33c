"""Shared input checks for the figure builders: arrays in, clear ValueErrors out."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

# Plotly renders a small HTML subset in tick labels and hover text, so labels are escaped.
MARGIN = {"l": 50, "r": 20, "t": 60, "b": 50}  # room for tick labels and titles
HOVER_CELL_LIMIT = 65_536  # above this many cells, hover shows positions instead of per-cell text


def as_matrix(weights: ArrayLike, name: str = "weights") -> np.ndarray:
    """Return ``weights`` as a finite 2-D float array or raise ValueError."""
    arr = np.asarray(weights, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def check_labels(labels: Sequence[str] | None, size: int, what: str) -> list[str]:
    """Return escaped labels, defaulting to positions; raise if the count does not match ``size``."""
    if labels is None:
        return [str(i) for i in range(size)]
    labels = [str(label) for label in labels]
    if len(labels) != size:
        raise ValueError(f"{what}: {len(labels)} labels for {size} matrix entries")
    return labels


def escape(labels: Sequence[str]) -> list[str]:
    """HTML-escape labels so that plotly shows them literally."""
    return [html.escape(label, quote=False) for label in labels]
