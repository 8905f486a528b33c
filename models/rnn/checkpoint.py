"""Checkpoint I/O without unpickling: fp16 safetensors weights + config.json + tokenizers + card.json."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from models.rnn.seq2seq import Seq2Seq, Seq2SeqConfig
from models.tokenizer import SubwordTokenizer

CHECKPOINT_ROOT = Path(__file__).resolve().parents[2] / "checkpoints"
WEIGHTS, CONFIG, CARD = "model.safetensors", "config.json", "card.json"


class CheckpointError(RuntimeError):
    """A checkpoint folder is missing or damaged; the message names the file and the rebuild command."""


def rebuild_command(name: str) -> str:
    if name.startswith("seq2seq-"):
        return f"python -m training.train_seq2seq --attention {name.removeprefix('seq2seq-')}"
    return f"see checkpoints/{name}/card.json for the training command"


def save_seq2seq(model: Seq2Seq, folder: Path) -> None:
    """Weights as fp16 safetensors (tied weights stored once) and the config as JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    state = {
        k: v.detach().to("cpu", torch.float16).contiguous() for k, v in model.state_dict().items()
    }
    if model.cfg.tie_embeddings:
        state.pop("generator.weight", None)
    save_file(state, str(folder / WEIGHTS))
    (folder / CONFIG).write_text(json.dumps(model.cfg.to_dict(), indent=2) + "\n")


def _need(folder: Path, filename: str, name: str) -> Path:
    path = folder / filename
    if not path.is_file():
        raise CheckpointError(f"{path} is missing; rebuild it with: {rebuild_command(name)}")
    return path


def load_seq2seq(
    name_or_folder: str | Path, device: str | torch.device = "cpu"
) -> tuple[Seq2Seq, SubwordTokenizer, SubwordTokenizer]:
    """Load (model in eval mode, source tokenizer, target tokenizer); raises CheckpointError."""
    folder = Path(name_or_folder)
    if not folder.is_dir():
        folder = CHECKPOINT_ROOT / str(name_or_folder)
    name = folder.name
    try:
        cfg = Seq2SeqConfig(**json.loads(_need(folder, CONFIG, name).read_text()))
        model = Seq2Seq(cfg)
        state = load_file(str(_need(folder, WEIGHTS, name)))
        if cfg.tie_embeddings:
            state["generator.weight"] = state["tgt_embedding.weight"]
        model.load_state_dict({k: v.float() for k, v in state.items()})
        src_tok = SubwordTokenizer(_need(folder, "src.model", name))
        tgt_tok = SubwordTokenizer(_need(folder, "tgt.model", name))
    except CheckpointError:
        raise
    except Exception as exc:  # damaged JSON, truncated safetensors, wrong shapes, bad tokenizer
        raise CheckpointError(
            f"checkpoint {folder} is damaged ({type(exc).__name__}: {exc}); "
            f"rebuild it with: {rebuild_command(name)}"
        ) from exc
    return model.to(device).eval(), src_tok, tgt_tok


def read_card(name_or_folder: str | Path) -> dict:
    """The model card (measured metrics); {} if the checkpoint has none."""
    folder = Path(name_or_folder)
    if not folder.is_dir():
        folder = CHECKPOINT_ROOT / str(name_or_folder)
    try:
        return json.loads((folder / CARD).read_text())
    except (OSError, ValueError):
        return {}
