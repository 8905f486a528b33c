"""The model cards the training and evaluation commands write (:class:`models.checkpoints.Card`)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from models.checkpoints import Card, CheckpointError, read_card

MULTI30K = {
    "task": "Multi30k task 1, English -> French",
    "train": "train",
    "val": "val",
    "test": "test_2016_flickr",
}
BLEU_NOTE = "BLEU: sacreBLEU 13a, cased, detokenized output vs raw references"
CAPTION_METRICS = ("exact_match", "localization", "bleu4")


def this_command(module: str, argv: list[str] | None = None, drop: tuple[str, ...] = ()) -> str:
    """``python -m <module> <arguments>`` of the running command (``argv`` or ``sys.argv``)."""
    args = sys.argv[1:] if argv is None else argv
    return " ".join(["python -m", module, *(a for a in args if a not in drop)])


def rebuild_commands(command: str, init_from: str | Path | None) -> tuple[str, ...]:
    """``command`` after the commands that rebuild its warm start ``init_from`` (from that
    checkpoint's card; a folder retrained in place keeps each command once)."""
    earlier: tuple[str, ...] = ()
    if init_from:
        try:
            earlier = read_card(init_from).commands
        except CheckpointError:
            earlier = ()
    return (*(c for c in earlier if c != command), command)


def translator_card(
    out: Path,
    *,
    family: str,
    description: str,
    command: str,
    init_from: str | None,
    wall: float,
    history: list[dict],
    test: dict,
    data: dict,
    needs: str | Path | None = None,
    train_metrics: dict[str, float] | None = None,
    **fields: object,
) -> Card:
    """The card of an RNN or Transformer translator; ``test`` as the trainers' test_metrics
    ("test_*" figures, "bleu_by_length", "long_sets"; empty with --skip-test). ``needs``: a
    checkpoint to build first when there is no warm start (the Transformer's tokenizers);
    ``train_metrics``: figures measured while training (e.g. seconds per epoch)."""
    metrics = {k.removeprefix("test_"): float(v) for k, v in test.items() if k.startswith("test_")}
    metrics |= train_metrics or {}
    return Card(
        name=out.name,
        family=family,
        description=description,
        data=MULTI30K | data,
        commands=rebuild_commands(command, init_from or needs),
        evaluate_commands=(
            f"python -m training.evaluate --model {out.name} [--beam 5] [--concat 3] --json",
        ),
        wall_time_s=round(wall, 1),
        metrics=metrics,
        init_from=init_from or "",
        epochs_trained=len(history),
        best_epoch=max(history, key=lambda h: h["val_bleu"])["epoch"] if history else 0,
        bleu_by_length=test.get("bleu_by_length", {}),
        long_sets=test.get("long_sets", {}),
        history=tuple(history),
        notes=(BLEU_NOTE,),
        **fields,
    )


def caption_card(
    out: Path,
    *,
    description: str,
    command: str,
    init_from: str | None,
    wall: float,
    best: dict,
    history: list[dict],
    data: dict,
    **fields: object,
) -> Card:
    """The card of a captioner after training: validation figures of the ``best`` epoch; the test
    figures, evaluation commands and notes of the card already in ``out`` are kept."""
    try:
        previous = read_card(out)
    except CheckpointError:
        previous = Card(out.name, "caption", "", {}, (), (), 0.0, {})
    return Card(
        name=out.name,
        family="caption",
        description=description,
        data=data | {k: v for k, v in previous.data.items() if k.startswith("test_")},
        commands=rebuild_commands(command, init_from),
        evaluate_commands=previous.evaluate_commands,
        wall_time_s=round(wall, 1),
        metrics={k: v for k, v in previous.metrics.items() if not k.startswith("val_")}
        | {f"val_{k}": float(best[k]) for k in CAPTION_METRICS},
        init_from=init_from or "",
        epochs_trained=len(history),
        best_epoch=best["epoch"],
        history=tuple(history),
        notes=_caption_notes(best["localization_of"], previous.notes),
        **fields,
    )


def _caption_notes(localization_of: str, notes: tuple[str, ...], departures=()) -> tuple[str, ...]:
    """How localization is measured, the departures from the paper, the other notes; once each."""
    first = f"localization is measured on the {localization_of}"
    rest = (n for n in notes if not n.startswith("localization is measured on"))
    return tuple(dict.fromkeys((first, *departures, *rest)))


def with_caption_test(card: Card, metrics: dict, command: str, departures: tuple[str, ...]) -> Card:
    """``card`` with the test figures of ``evaluate_captions`` (beam B > 1: "beamB_*" keys)."""
    beam = int(metrics["beam"])
    prefix = "" if beam == 1 else f"beam{beam}_"
    new = {prefix + k: float(metrics[k]) for k in CAPTION_METRICS}
    if beam == 1:
        new["seconds"] = float(metrics["seconds"])
    same_beam = f"--beam {beam}" if beam > 1 else None

    def other(c: str) -> bool:
        return (same_beam not in c) if same_beam else ("--beam" in c and "--beam 1" not in c)

    return replace(
        card,
        metrics=card.metrics | new,
        data=card.data | {"test_seed": metrics["seed"], "test_scenes": metrics["n"]},
        evaluate_commands=(*(c for c in card.evaluate_commands if other(c)), command),
        notes=_caption_notes(metrics["localization_of"], card.notes, departures),
    )
