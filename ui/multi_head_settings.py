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
from ui.multi_head import (
    POSITIONALS,
    HeadsView,
    encode_ui,
    pretrained_view,
    transformer_view,
    translate_ui,
)
from ui.text import user_text


@dataclass(frozen=True)
class ModelSettings:
    """Which model runs: ``source`` is "transformer" or "pretrained"; for "transformer", the
    positional encoding (POSITIONALS), the attention kind (KINDS) and the beam width; for
    "pretrained", the encoder's name (``hf_name``)."""

    source: str
    positional: str = POSITIONALS[0]
    kind: str = "encoder"
    beam: int = 1
    hf_name: str = ""


def load_view(settings: ModelSettings, text: str) -> tuple[HeadsView | None, object]:
    """Run the chosen model on ``text``; (view, raw result) or (None, None) after a message.
    The page shows the translation (:func:`translation_ui`) under its main chart."""
    if settings.source == "transformer":
        result = translate_ui(settings.positional, text, settings.beam)
        if result is None:
            return None, None
        return transformer_view(result, settings.kind), result
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


def picked_in_overview() -> None:
    """Callback: a click on an overview panel chooses that layer and head (the pickers follow)."""
    event = st.session_state.get("mh_grid") or {}
    points = (event.get("selection") or {}).get("points") or []
    data = points[0].get("customdata") if points else None
    if isinstance(data, list | tuple) and len(data) == 2:
        st.session_state["mh_layer"], st.session_state["mh_head"] = (
            int(data[0]) + 1,
            int(data[1]) + 1,
        )
