"""One caching strategy for model results: ``st.cache_data`` keyed on the weights' identity.

A result cache is keyed on :data:`ui.loaders.ModelKey` (checkpoint folder, device, weights-file
stamp: the key the model itself is loaded and cached with), never on ``id(model)``: an id can be
reused by a later object, and it says nothing about which weights ran. The models themselves are ``st.cache_resource`` (:mod:`ui.loaders`); the results are
``st.cache_data``, so each session gets its own copy and can never change another's. Every result
cache states its bound (``max_entries``) next to it.
"""

from __future__ import annotations

from typing import Protocol

import torch

from models.tokenizer import SubwordTokenizer
from ui.loaders import ModelKey, weights_stamp


class Checkpointed(Protocol):
    """A loaded translator: its tokenizers were read from its checkpoint folder."""

    src_tok: SubwordTokenizer

    @property
    def device(self) -> torch.device: ...


def weights_id(model: Checkpointed) -> ModelKey:
    """The identity of a loaded ``model``'s weights, as :func:`ui.loaders.model_key` gives it for
    a checkpoint name: the folder its source tokenizer was read from (the checkpoint folder), the
    device it runs on, and the stamp of that folder's weights file."""
    folder = model.src_tok.model_file.parent
    return str(folder), str(model.device), weights_stamp(folder)
