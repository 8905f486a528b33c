"""The one checkpoint module: root and environment variable, the Card schema, rebuild commands, and
errors that a person can read (no paths, no loader exception text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from models.checkpoints import (
    CHECKPOINTS_ENV,
    SHIPPED_ROOT,
    Card,
    CheckpointError,
    checkpoint_folder,
    checkpoint_root,
    load_state,
    read_card,
    rebuild_command,
    save_checkpoint,
    write_card,
)
from models.rnn.checkpoint import load_seq2seq
from tests.helpers_seq2seq import tiny_checkpoint, tiny_tokenizers
from training.cards import rebuild_commands, with_caption_test

SHIPPED = sorted(p.name for p in SHIPPED_ROOT.iterdir() if (p / "card.json").is_file())


def _card(**kw) -> Card:
    base = dict(
        name="seq2seq-x",
        family="seq2seq",
        description="d",
        data={"task": "t"},
        commands=("python -m a", "python -m b --init-from a"),
        evaluate_commands=("e",),
        wall_time_s=1.5,
        metrics={"bleu_greedy": 30.0, "bleu_beam5": 31.5},
        history=({"epoch": 1, "train_loss": 2.0},),
        notes=("n",),
    )
    return Card(**(base | kw))


def test_card_round_trip(tmp_path: Path) -> None:
    card = _card(bleu_by_length={"1-10": {"bleu": 40.0, "n": 3}}, stages=({"stage": 1},))
    write_card(tmp_path / "seq2seq-x", card)
    assert read_card(tmp_path / "seq2seq-x") == card
    assert card.headline() == "test BLEU 30.0 greedy, 31.5 beam 5"
    assert (
        _card(metrics={"exact_match": 0.9, "localization": 0.8})
        .headline()
        .startswith("exact match 90%")
    )


def test_card_rejects_fields_outside_the_schema(tmp_path: Path) -> None:
    folder = tmp_path / "seq2seq-x"
    folder.mkdir()
    (folder / "card.json").write_text(json.dumps(_card().to_dict() | {"test_bleu_greedy": 1}))
    with pytest.raises(CheckpointError, match="damaged") as info:
        read_card(folder)
    assert "test_bleu_greedy" in info.value.detail and str(tmp_path) not in str(info.value)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_card_is_in_the_one_schema(name: str) -> None:
    card = read_card(SHIPPED_ROOT / name)
    assert card.name == name and name.startswith(card.family + "-")
    assert card.commands and all(c.startswith("python -m training.") for c in card.commands)
    assert card.evaluate_commands and card.wall_time_s > 0 and card.description
    assert card.metrics and all(isinstance(v, float) for v in card.metrics.values())
    assert not card.headline().startswith("no measured")
    if card.init_from:  # the warm start is rebuilt first, with its own commands
        assert card.commands[: -1 if card.family != "caption" else -2] == (
            read_card(SHIPPED_ROOT / card.init_from).commands
        )


def test_rebuild_command_includes_the_warm_start(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tmp_path))  # nothing there: the shipped card answers
    command = rebuild_command("seq2seq-none")
    assert "--attention none" in command and "--init-from seq2seq-bahdanau" in command
    assert command.index("--attention bahdanau") < command.index("--attention none")
    assert rebuild_command("seq2seq-bahdanau").count("python -m") == 1
    assert "train_seq2seq --attention newkind" in rebuild_command("seq2seq-newkind")
    assert "train_encoders --rnn newcell " in rebuild_command("rnn-encoder-newcell")


def test_environment_variable_moves_the_root(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv(CHECKPOINTS_ENV, raising=False)
    assert checkpoint_root() == SHIPPED_ROOT
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tmp_path))
    assert checkpoint_root() == tmp_path
    assert checkpoint_folder("seq2seq-bahdanau") == tmp_path / "seq2seq-bahdanau"
    assert checkpoint_folder(tmp_path / "elsewhere") == tmp_path / "elsewhere"
    write_card(tmp_path / "seq2seq-x", _card(commands=("python -m moved",)))
    assert read_card("seq2seq-x").commands == ("python -m moved",)
    assert rebuild_command("seq2seq-x") == "python -m moved"


def test_missing_and_damaged_checkpoints_say_so_without_paths(tmp_path: Path) -> None:
    tiny_tokenizers(tmp_path / "tok")
    folder = tiny_checkpoint(tmp_path / "seq2seq-none", "none", tmp_path / "tok")
    (folder / "model.safetensors").unlink()
    with pytest.raises(CheckpointError) as missing:
        load_seq2seq(folder)
    (folder / "model.safetensors").write_bytes(b"\x00garbage")
    with pytest.raises(CheckpointError) as damaged:
        load_seq2seq(folder)
    for error in (missing.value, damaged.value):
        assert error.name == "seq2seq-none" and "--init-from seq2seq-bahdanau" in error.command
        assert str(tmp_path) not in str(error) and "/" not in error.reason
        assert str(tmp_path) in error.detail
    assert "model.safetensors" in str(missing.value) and "damaged" in str(damaged.value)
    assert "garbage" not in str(damaged.value) and "Error" not in damaged.value.reason


def test_save_and_load_state_keep_tied_weights_once(tmp_path: Path) -> None:
    shared = torch.randn(4, 3)
    state = {"tgt_embedding.weight": shared, "generator.weight": shared, "bias": torch.ones(2)}
    tied = {"generator.weight": "tgt_embedding.weight"}
    save_checkpoint(tmp_path / "m", state, {"size": 4}, tied=tied, files={"vocab.json": "[]"})
    config, loaded = load_state(tmp_path / "m", needs=("vocab.json",), tied=tied)
    assert config == {"size": 4} and set(loaded) == set(state)
    assert torch.equal(loaded["generator.weight"], shared.half().float())
    (tmp_path / "m" / "vocab.json").unlink()
    with pytest.raises(CheckpointError, match="vocab.json"):
        load_state(tmp_path / "m", needs=("vocab.json",))


def test_caption_test_figures_land_in_the_card() -> None:
    card = _card(name="caption-soft", family="caption", metrics={"val_exact_match": 0.5})
    run = {
        "n": 500,
        "seed": 7,
        "beam": 1,
        "seconds": 9.5,
        "exact_match": 0.9,
        "localization": 0.8,
        "bleu4": 70.0,
        "localization_of": "argmax of alpha",
    }
    greedy = with_caption_test(card, run, "python -m training.evaluate_captions --json", ("d",))
    beam3 = with_caption_test(greedy, run | {"beam": 3}, "python -m eval --beam 3", ("d",))
    again = with_caption_test(beam3, run, "python -m training.evaluate_captions --n 500", ("d",))
    assert again.metrics["exact_match"] == 0.9 and again.metrics["beam3_bleu4"] == 70.0
    assert again.metrics["val_exact_match"] == 0.5
    assert again.data["test_scenes"] == 500 and again.data["test_seed"] == 7
    assert again.evaluate_commands == (
        "python -m eval --beam 3",
        "python -m training.evaluate_captions --n 500",
    )
    assert again.notes[:2] == ("localization is measured on the argmax of alpha", "d")


def test_retraining_in_place_keeps_each_command_once(tmp_path: Path) -> None:
    write_card(tmp_path / "caption-hard", _card(commands=("soft", "stage 1", "stage 2")))
    assert rebuild_commands("stage 2", tmp_path / "caption-hard") == ("soft", "stage 1", "stage 2")
    assert rebuild_commands("solo", None) == ("solo",)
