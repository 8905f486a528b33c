"""Where in an image a captioner's attention map lies: the map's mass in each of the parts of a
PARTS x PARTS grid over the image (row by row from the top left), for the lessons' region
questions and the words' descriptions in text."""

from __future__ import annotations

import numpy as np

PARTS = 3  # the image is split into PARTS x PARTS parts


def region_masses(alpha: np.ndarray, parts: int = PARTS) -> np.ndarray:
    """(parts * parts,) the attention mass of each part of a (g, g) map, row by row from the
    top left; a cell on a border between parts is shared in proportion to its overlap."""
    g = alpha.shape[0]
    edges = np.linspace(0, g, parts + 1)
    cover = np.zeros((parts, g))  # cover[p, c]: share of cell c inside part p
    for p in range(parts):
        lo, hi = edges[p], edges[p + 1]
        cover[p] = np.clip(np.minimum(np.arange(1, g + 1), hi) - np.maximum(np.arange(g), lo), 0, 1)
    return (cover @ alpha @ cover.T).reshape(-1)  # (parts * parts,)
