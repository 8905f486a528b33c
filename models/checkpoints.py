"""Checkpoint folders: where they are, how weights are stored, and the model card.

A checkpoint is one folder per trained model under :func:`checkpoint_root` (``$ATLAS_CHECKPOINTS``,
default ``<repo>/checkpoints``): ``model.safetensors`` (fp16, nothing unpickled), ``config.json``
(the constructor arguments), the family's own files (tokenizers, vocabulary) and ``card.json``
(:class:`Card`: data, the commands that rebuild it, wall time, measured metrics). The families'
``checkpoint`` modules build and load their models on top of :func:`save_checkpoint` and
:func:`load_state`; every failure is a :class:`CheckpointError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch import nn

from i18n import _
from models.tokenizer import SubwordTokenizer

CHECKPOINTS_ENV = "ATLAS_CHECKPOINTS"
SHIPPED_ROOT = Path(__file__).resolve().parents[1] / "checkpoints"
WEIGHTS, CONFIG, CARD = "model.safetensors", "config.json", "card.json"
TOKENIZERS = ("src.model", "tgt.model")  # a translator's SentencePiece models (source, target)
TIED_GENERATOR = {"generator.weight": "tgt_embedding.weight"}  # a translator's tied output layer
# The trainer of each family, for a checkpoint that has no card anywhere (name prefix -> command).
TRAINERS = {
    "seq2seq": "python -m training.train_seq2seq --attention {rest}",
    "transformer": "python -m training.train_transformer --positional {rest}",
    "caption": "python -m training.train_captions --attention {rest}",
    "rnn": "python -m training.train_encoders --rnn {last} --threads 1 --patience 3 --epochs 4",
}


def checkpoint_root() -> Path:
    """Where the checkpoint folders are: ``$ATLAS_CHECKPOINTS`` or ``<repo>/checkpoints``."""
    return Path(os.environ.get(CHECKPOINTS_ENV) or SHIPPED_ROOT)


def checkpoint_folder(name_or_folder: str | Path) -> Path:
    """A folder given as a path (several parts, or an existing folder), else ``root / name``."""
    path = Path(name_or_folder)
    if len(path.parts) > 1 or path.is_dir():
        return path
    return checkpoint_root() / path.name


class CheckpointError(RuntimeError):
    """A checkpoint is missing or damaged.

    name: the model (folder name); reason: what is wrong, for a person (a file name at most, never
    a path), in the language current when it was raised; command: the shell command that rebuilds
    it; detail: paths and the loader's exception, for the server log only. ``str()`` is the reason
    followed by the command.
    """

    def __init__(self, name: str, reason: str, *, detail: str = "") -> None:
        self.name, self.reason, self.detail = name, reason, detail
        self.command = rebuild_command(name)
        super().__init__(
            _("{reason} Rebuild it with: {command}").format(reason=reason, command=self.command)
        )


@contextmanager
def damage_as_error(folder: Path) -> Iterator[None]:
    """Turn any failure inside (bad JSON, wrong shapes, a broken tokenizer) into CheckpointError."""
    try:
        yield
    except CheckpointError:
        raise
    except Exception as exc:  # any failure means the folder is damaged
        raise CheckpointError(
            folder.name,
            _("The {name} checkpoint is damaged and cannot be loaded.").format(name=folder.name),
            detail=f"{folder}: {type(exc).__name__}: {exc}",
        ) from exc


def require(folder: Path, *filenames: str) -> None:
    """Raise CheckpointError naming the first of ``filenames`` missing from ``folder``."""
    if not folder.is_dir():
        raise CheckpointError(
            folder.name,
            _("The {name} checkpoint has not been built here.").format(name=folder.name),
            detail=f"{folder} is not a folder",
        )
    for filename in filenames:
        if not (folder / filename).is_file():
            raise CheckpointError(
                folder.name,
                _("The {name} checkpoint is missing its {filename}.").format(
                    name=folder.name, filename=filename
                ),
                detail=f"{folder / filename} is not a file",
            )


def save_checkpoint(
    folder: Path,
    state_dict: Mapping[str, torch.Tensor],
    config: dict,
    *,
    tied: Mapping[str, str] | None = None,
    files: Mapping[str, str] | None = None,
) -> None:
    """fp16 safetensors weights (each ``tied`` key dropped: it is a copy of its value's key),
    ``config.json``, and the text ``files`` (name -> contents) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu", torch.float16).contiguous() for k, v in state_dict.items()}
    for key, source in (tied or {}).items():
        if key in state and source in state:
            del state[key]
    save_file(state, str(folder / WEIGHTS))
    (folder / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    for name, text in (files or {}).items():
        (folder / name).write_text(text)


def load_state(
    folder: Path, *, needs: tuple[str, ...] = (), tied: Mapping[str, str] | None = None
) -> tuple[dict, dict[str, torch.Tensor]]:
    """(config, float32 state dict) of ``folder``, tied keys restored; CheckpointError when the
    config, the weights or one of ``needs`` is missing or damaged."""
    require(folder, CONFIG)
    with damage_as_error(folder):
        config = json.loads((folder / CONFIG).read_text())
        if not isinstance(config, dict):
            raise ValueError("config.json is not an object")
    require(folder, WEIGHTS, *needs)
    with damage_as_error(folder):
        state = {k: v.float() for k, v in load_file(str(folder / WEIGHTS)).items()}
    for key, source in (tied or {}).items():
        if key not in state and source in state:
            state[key] = state[source]
    return config, state


def load_module(
    folder: Path,
    build: Callable[[dict], nn.Module],
    device: str | torch.device = "cpu",
    *,
    needs: tuple[str, ...] = (),
    tied: Mapping[str, str] | None = None,
) -> tuple[nn.Module, dict]:
    """(``build(config)`` with the folder's weights, in eval mode on ``device``; the config).
    CheckpointError when a file is missing or the weights do not fit the config."""
    config, state = load_state(folder, needs=needs, tied=tied)
    with damage_as_error(folder):
        model = build(config)
        model.load_state_dict(state)
    return model.to(device).eval(), config


def save_translator(model: nn.Module, folder: Path) -> None:
    """A translator's (RNN or Transformer: ``model.cfg``, ``generator``, ``tgt_embedding``) weights
    and config; the tied generator is stored once. The trainer copies the tokenizers."""
    tied = TIED_GENERATOR if model.cfg.tie_embeddings else None
    save_checkpoint(folder, model.state_dict(), model.cfg.to_dict(), tied=tied)


def load_translator(
    name_or_folder: str | Path, build: Callable[[dict], nn.Module], device: str | torch.device
) -> tuple[nn.Module, SubwordTokenizer, SubwordTokenizer]:
    """(``build(config)`` in eval mode, source tokenizer, target tokenizer); CheckpointError."""
    folder = checkpoint_folder(name_or_folder)
    model, _config = load_module(folder, build, device, needs=TOKENIZERS, tied=TIED_GENERATOR)
    with damage_as_error(folder):
        src, tgt = (SubwordTokenizer(folder / name) for name in TOKENIZERS)
    return model, src, tgt


# ---------------------------------------------------------------- the model card


@dataclass(frozen=True)
class Card:
    """What a checkpoint is, how it was made and how well it does (``card.json``)."""

    name: str  # the checkpoint folder, e.g. "seq2seq-bahdanau"
    family: str  # "seq2seq", "transformer" or "caption" (the name's prefix)
    description: str  # the model and its paper, in words
    data: dict  # what it was trained, validated and tested on
    commands: tuple[str, ...]  # shell commands that rebuild it from nothing, warm starts first
    evaluate_commands: tuple[str, ...]  # the commands that measured ``metrics``
    wall_time_s: float  # training time of this model's own commands (not its warm starts')
    metrics: dict[str, float]  # measured on the test set; "val_*" on validation
    machine: str = ""  # where it was trained (cores, threads)
    init_from: str = ""  # the checkpoint whose weights it started from ("" when from scratch)
    parameters: int = 0  # trainable parameters (0 when not recorded)
    epochs_trained: int = 0
    best_epoch: int = 0  # the exported epoch
    bleu_by_length: dict = field(default_factory=dict)  # bucket -> {"bleu", "n"} on the test set
    long_sets: dict = field(default_factory=dict)  # "concat<k>" -> bleu, n, bleu_by_length
    train_config: dict = field(default_factory=dict)  # the trainer's settings
    # the longest training source as the model read it: {"src_pieces": subword pieces without
    # </s>, "src_words": words, "split": "train"}; {} when not measured (training.lengths)
    train_lengths: dict = field(default_factory=dict)
    history: tuple[dict, ...] = ()  # one row per epoch of the last command
    stages: tuple[dict, ...] = ()  # earlier training stages with their own figures
    notes: tuple[str, ...] = ()  # how metrics are measured, departures from the paper

    @classmethod
    def from_dict(cls, data: Mapping) -> Card:
        """The card from its JSON object; ValueError on a missing or unknown field."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown card fields {unknown}")
        values = dict(data)
        for name in ("commands", "evaluate_commands", "history", "stages", "notes"):
            values[name] = tuple(values.get(name, ()))
        values["metrics"] = {k: float(v) for k, v in values.get("metrics", {}).items()}
        return cls(**values)

    def to_dict(self) -> dict:
        """The JSON object of ``card.json`` (also what figure builders read)."""
        return asdict(self)

    def rebuild_command(self) -> str:
        """The commands that rebuild this model, as one shell line."""
        return " && ".join(self.commands)

    def headline(self) -> str:
        """The main measured figure, in words (the home page's table), in the current language."""
        m = self.metrics
        if "bleu_greedy" in m and "bleu_beam5" in m:
            return _("test BLEU {greedy:.1f} greedy, {beam:.1f} beam 5").format(
                greedy=m["bleu_greedy"], beam=m["bleu_beam5"]
            )
        if "bleu_greedy" in m:
            return _("test BLEU {greedy:.1f} greedy").format(greedy=m["bleu_greedy"])
        if "exact_match" in m:
            return _("exact match {exact:.0f}%, localization {localization:.0f}%").format(
                exact=100 * m["exact_match"], localization=100 * m.get("localization", 0)
            )
        return _("no measured metrics in card.json")


def read_card(name_or_folder: str | Path) -> Card:
    """The card of a checkpoint; CheckpointError when it is missing or not in the schema."""
    folder = checkpoint_folder(name_or_folder)
    require(folder, CARD)
    with damage_as_error(folder):
        return Card.from_dict(json.loads((folder / CARD).read_text()))


def write_card(folder: Path, card: Card) -> None:
    """Write ``card`` as ``folder/card.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CARD).write_text(json.dumps(card.to_dict(), indent=1) + "\n")


def rebuild_command(name: str) -> str:
    """The command that rebuilds checkpoint ``name``: from its card (under the root, else the
    shipped one), else the family's trainer."""
    for folder in (checkpoint_folder(name), SHIPPED_ROOT / Path(name).name):
        try:
            card = Card.from_dict(json.loads((folder / CARD).read_text()))
        except (OSError, ValueError, TypeError):
            continue
        if card.commands:
            return card.rebuild_command()
    family, _dash, rest = Path(name).name.partition("-")
    return TRAINERS.get(family, "python -m training.train_{family} ...").format(
        rest=rest or "...", family=family, last=rest.rpartition("-")[2] or "..."
    )
