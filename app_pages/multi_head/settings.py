"""The Multi-head attention page's settings: which model runs (:class:`ModelSettings`, what the
page's model controls return), running it into the :class:`ui.multi_head.HeadsView` the page draws
(:func:`load_view`), and keeping the layer and head pickers valid (in range after a model change,
following a click on the overview).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from i18n import _
from models.transformer.translator import TransformerAttention
from ui import plotly_component
from ui.multi_head import (
    POSITIONALS,
    HeadsView,
    encode_ui,
    pretrained_view,
    transformer_translation_ui,
    transformer_view,
)
from ui.text import user_text
from viz.multi_head import GridTiles


@dataclass(frozen=True)
class ModelSettings:
    """Which model runs: ``source`` is "transformer" or "pretrained"; for "transformer", the
    positional encoding (POSITIONALS), the attention (ATTENTION_CHOICES) and the beam width; for
    "pretrained", the encoder's name (``hf_name``)."""

    source: str
    positional: str = POSITIONALS[0]
    attention: str = "encoder"
    beam: int = 1
    hf_name: str = ""


def load_view(settings: ModelSettings, text: str) -> tuple[HeadsView | None, object]:
    """Run the chosen model on ``text``; (view, raw result) or (None, None) after a message.
    The page shows the translation (:func:`translation_ui`) under its main chart."""
    if settings.source == "transformer":
        result = transformer_translation_ui(settings.positional, text, settings.beam)
        if result is None:
            return None, None
        return transformer_view(result, settings.attention), result
    result = encode_ui(settings.hf_name, text)
    return (None, None) if result is None else (pretrained_view(result), result)


def translation_ui(result: object) -> None:
    """The Transformer's translation (the rows of its decoder and cross attention), if any."""
    if isinstance(result, TransformerAttention):
        user_text(result.text, label=_("Translation:"))


def clamp_choice(key: str, n: int) -> None:
    """Keep a stored 1-based layer/head number inside 1..n (the model may have changed)."""
    value = st.session_state.get(key, st.query_params.get(key))
    try:
        ok = 1 <= int(value) <= n
    except (TypeError, ValueError):
        ok = False
    if not ok and key in st.session_state:
        st.session_state[key] = 1


def overview_hint() -> str:
    """The overview's caption: how to choose a head. A click on a panel chooses it only where the
    chart component draws the overview (``st.plotly_chart`` sends no clicks on a heatmap)."""
    if plotly_component.wanted():
        return _("Click a panel to show that head large below (or use the pickers below).")
    return _("Choose the layer and head to show large with the pickers below.")


def picked_in_overview(tiles: GridTiles) -> None:
    """Callback: a click on a cell of an overview panel chooses that layer and head (the pickers
    follow). The click names the cell of the overview's one heatmap (``point_number``: [row,
    col]); ``tiles`` (:func:`viz.multi_head.grid_tiles`) say which panel it lies in. Only the
    chart component sends clicks on a heatmap; under ``st.plotly_chart`` the pickers choose."""
    event = st.session_state.get("mh_grid") or {}
    points = (event.get("selection") or {}).get("points") or []
    cell = points[0].get("point_number") if points else None
    if not (isinstance(cell, list | tuple) and len(cell) == 2):
        return
    try:
        panel = tiles.panel_at(int(cell[0]), int(cell[1]))
    except (TypeError, ValueError):
        return
    if panel is not None:
        st.session_state["mh_layer"], st.session_state["mh_head"] = panel[0] + 1, panel[1] + 1
