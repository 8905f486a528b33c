"""Transformer checkpoint I/O without unpickling, in the layout of :mod:`models.rnn.checkpoint`:
fp16 safetensors weights (the tied generator stored once) + config.json + src/tgt tokenizers +
card.json, in ``checkpoints/transformer-<positional>/``."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from models.rnn.checkpoint import CHECKPOINT_ROOT, CONFIG, WEIGHTS, CheckpointError
from models.tokenizer import SubwordTokenizer
from models.transformer.model import Transformer, TransformerConfig

TRANSFORMER_NAMES = ("transformer-sinusoidal", "transformer-learned")


def transformer_rebuild_command(name: str) -> str:
    """The command that trains and exports the checkpoint ``name``."""
    positional = name.removeprefix("transformer-")
    if positional not in ("sinusoidal", "learned"):
        positional = "sinusoidal"
    return f"python -m training.train_transformer --positional {positional}"


def is_transformer_checkpoint(name_or_folder: str | Path) -> bool:
    """True when the folder's config.json describes a Transformer (or the name says so)."""
    folder = _folder(name_or_folder)
    try:
        return "d_model" in json.loads((folder / CONFIG).read_text())
    except (OSError, ValueError):
        return folder.name.startswith("transformer-")


def save_transformer(model: Transformer, folder: Path) -> None:
    """Weights as fp16 safetensors (the tied generator stored once) and the config as JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    state = {
        k: v.detach().to("cpu", torch.float16).contiguous() for k, v in model.state_dict().items()
    }
    if model.cfg.tie_embeddings:
        state.pop("generator.weight", None)
    save_file(state, str(folder / WEIGHTS))
    (folder / CONFIG).write_text(json.dumps(model.cfg.to_dict(), indent=2) + "\n")


def _folder(name_or_folder: str | Path) -> Path:
    folder = Path(name_or_folder)
    return folder if folder.is_dir() else CHECKPOINT_ROOT / str(name_or_folder)


def _need(folder: Path, filename: str) -> Path:
    path = folder / filename
    if not path.is_file():
        raise CheckpointError(
            f"{path} is missing; build it with: {transformer_rebuild_command(folder.name)}"
        )
    return path


def load_transformer(
    name_or_folder: str | Path, device: str | torch.device = "cpu"
) -> tuple[Transformer, SubwordTokenizer, SubwordTokenizer]:
    """Load (model in eval mode, source tokenizer, target tokenizer); raises CheckpointError."""
    folder = _folder(name_or_folder)
    try:
        cfg = TransformerConfig(**json.loads(_need(folder, CONFIG).read_text()))
        model = Transformer(cfg)
        state = load_file(str(_need(folder, WEIGHTS)))
        if cfg.tie_embeddings:
            state["generator.weight"] = state["tgt_embedding.weight"]
        model.load_state_dict({k: v.float() for k, v in state.items()})
        src_tok = SubwordTokenizer(_need(folder, "src.model"))
        tgt_tok = SubwordTokenizer(_need(folder, "tgt.model"))
    except CheckpointError:
        raise
    except Exception as exc:  # damaged JSON, truncated safetensors, wrong shapes, bad tokenizer
        raise CheckpointError(
            f"checkpoint {folder} is damaged ({type(exc).__name__}: {exc}); "
            f"rebuild it with: {transformer_rebuild_command(folder.name)}"
        ) from exc
    return model.to(device).eval(), src_tok, tgt_tok
