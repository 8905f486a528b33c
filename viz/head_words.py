"""Many attention heads in words, for a figure's ``layout.meta["atlas"]`` (viz.describe reads
it): which heads look mostly at the token before, which at the token itself, which spread their
weight, and each head's numbers as a table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from i18n import _
from viz.describe import matrix_words, number


def head_patterns(weights: np.ndarray) -> dict:
    """Layer x head maps (L, H, T, T) in words, for a figure's ``layout.meta["atlas"]``: which
    heads look mostly at the token before, which at the token itself, which spread their weight
    (a head's share: its rows' mean weight there), and a table of each head's two shares."""
    w = np.asarray(weights, dtype=float)  # (L, H, T, T)
    n_layers, n_heads, t = w.shape[:3]
    itself = np.array(
        [[np.mean(np.diag(w[la, h])) for h in range(n_heads)] for la in range(n_layers)]
    )
    before = np.array(
        [
            [np.mean(np.diag(w[la, h], k=-1)) if t > 1 else 0.0 for h in range(n_heads)]
            for la in range(n_layers)
        ]
    )  # (L, H)
    name = _("layer {layer}, head {head}").format
    previous = [(la, h) for la in range(n_layers) for h in range(n_heads) if before[la, h] >= 0.5]
    own = [(la, h) for la in range(n_layers) for h in range(n_heads) if itself[la, h] >= 0.5]

    def listed(heads: list[tuple[int, int]], values: np.ndarray) -> str:
        return ", ".join(
            f"{name(layer=la + 1, head=h + 1)} ({number(values[la, h])})" for la, h in heads
        )

    parts = [_("{n} heads.").format(n=n_layers * n_heads)]
    if previous:
        parts.append(
            _("Mostly on the token before: {heads}.").format(heads=listed(previous, before))
        )
    if own:
        parts.append(_("Mostly on the token itself: {heads}.").format(heads=listed(own, itself)))
    rest = n_layers * n_heads - len(set(previous) | set(own))
    parts.append(_("The other {n} spread their weight more widely.").format(n=rest))
    rows = [
        [name(layer=la + 1, head=h + 1), number(itself[la, h]), number(before[la, h])]
        for la in range(n_layers)
        for h in range(n_heads)
    ]
    columns = ["", _("weight on itself"), _("weight on the token before")]
    return {
        "name": _("The attention maps of {n} heads").format(n=n_layers * n_heads),
        "summary": " ".join(parts),
        "tables": [{"caption": _("Each head's pattern"), "columns": columns, "rows": rows}],
    }


def heads_in_words(
    weights: np.ndarray, heads: Sequence[int], rows: Sequence[str], columns: Sequence[str]
) -> dict:
    """Some heads of one layer (H, T_q, T_k), drawn as lines, in words: each head's pattern (as
    a head's map says it), and a table of each head's weights."""
    said = [
        _("Head {n}: {pattern}").format(
            n=h + 1, pattern=matrix_words(weights[h], rows, columns)["summary"]
        )
        for h in heads
    ]
    tables = []
    for h in heads:
        table = matrix_words(weights[h], rows, columns)["tables"][0]
        tables.append(table | {"caption": _("Head {n}").format(n=h + 1)})
    return {"summary": " ".join(said), "tables": tables}
