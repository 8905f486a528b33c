"""Captioner checkpoints without unpickling: fp16 safetensors + config.json + vocab.json + card.json."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from models.captioning.model import CaptionConfig, ShowAttendTell, Vocab

CHECKPOINT_ROOT = Path(__file__).resolve().parents[2] / "checkpoints"
WEIGHTS, CONFIG, VOCAB, CARD = "model.safetensors", "config.json", "vocab.json", "card.json"
CAPTION_MODELS = ("caption-soft", "caption-hard")


class CaptionCheckpointError(RuntimeError):
    """A captioner checkpoint is missing or damaged; the message names the rebuild command."""


def rebuild_command(name: str) -> str:
    """The command that trains checkpoint ``name``."""
    kind = name.removeprefix("caption-")
    return f"python -m training.train_captions --attention {kind}"


def resolve(name_or_folder: str | Path) -> Path:
    """A checkpoint folder from a name under checkpoints/ or a path."""
    folder = Path(name_or_folder)
    return folder if folder.is_dir() else CHECKPOINT_ROOT / str(name_or_folder)


def save_captioner(model: ShowAttendTell, vocab: Vocab, folder: Path) -> None:
    """Weights as fp16 safetensors, the config and the vocabulary as JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    state = {
        k: v.detach().to("cpu", torch.float16).contiguous() for k, v in model.state_dict().items()
    }
    save_file(state, str(folder / WEIGHTS))
    (folder / CONFIG).write_text(json.dumps(model.cfg.to_dict(), indent=2) + "\n")
    (folder / VOCAB).write_text(json.dumps(vocab.itos, indent=1) + "\n")


def load_captioner(
    name_or_folder: str | Path, device: str | torch.device = "cpu"
) -> tuple[ShowAttendTell, Vocab]:
    """(decoder in eval mode, vocabulary); raises CaptionCheckpointError naming the training command."""
    folder = resolve(name_or_folder)
    name = folder.name
    for filename in (CONFIG, WEIGHTS, VOCAB):
        if not (folder / filename).is_file():
            raise CaptionCheckpointError(
                f"{folder / filename} is missing; train it with: {rebuild_command(name)}"
            )
    try:
        cfg = CaptionConfig(**json.loads((folder / CONFIG).read_text()))
        itos = json.loads((folder / VOCAB).read_text())
        model = ShowAttendTell(cfg)
        model.load_state_dict({k: v.float() for k, v in load_file(str(folder / WEIGHTS)).items()})
    except Exception as exc:  # damaged JSON, truncated weights, wrong shapes
        raise CaptionCheckpointError(
            f"checkpoint {folder} is damaged ({type(exc).__name__}: {exc}); "
            f"rebuild it with: {rebuild_command(name)}"
        ) from exc
    vocab = Vocab(itos)
    if vocab.itos != itos or len(vocab) != cfg.vocab_size:
        raise CaptionCheckpointError(f"{folder / VOCAB} does not match the config")
    return model.to(device).eval(), vocab


def read_card(name_or_folder: str | Path) -> dict:
    """The model card (measured metrics); {} when there is none."""
    try:
        return json.loads((resolve(name_or_folder) / CARD).read_text())
    except (OSError, ValueError):
        return {}
