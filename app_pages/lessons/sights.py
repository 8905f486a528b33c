"""Every question is a prediction: what each step of a lesson puts in view, what each question
asks, and which questions an earlier step already answers (the schema refuses those,
:func:`app_pages.lessons.schema.check_predictions`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app_pages.lessons.schema import Step

ALL = None  # a Sight's parts: the whole view is in sight


@dataclass(frozen=True)
class Sight:
    """What a step puts in view: a view ``family`` (the views that draw the same numbers) on one
    ``source`` (model, sentence, scene ...), and which ``parts`` of it (a French word's row, a
    head, a caption word's map, a d_k), ALL for the whole view."""

    family: str
    source: tuple
    parts: frozenset | None = ALL

    def shows(self, asked: Sight) -> bool:
        """Whether this sight holds what ``asked`` (one part) asks about."""
        same = self.family == asked.family and self.source == asked.source
        return same and (self.parts is ALL or bool(self.parts & (asked.parts or frozenset())))


def _words(sentence: str) -> str:
    """A sentence as the models read it for comparison: spaces collapsed, case ignored."""
    return " ".join(sentence.split()).casefold()


def _target(target: str | None) -> str:
    return (target or "").strip().casefold() or "<most confident>"


def asked(step: Step) -> Sight:
    """What ``step``'s question asks about, as one part of its view (``step.question`` is set)."""
    q = step.question
    one = frozenset
    match q.kind:
        case "token":
            return Sight("alignment", (step.model, _words(step.sentence)), one({_target(q.target)}))
        case "window":
            return Sight("local", (_words(step.sentence),), one({_target(q.target)}))
        case "region":
            return Sight("caption", (step.scene,), one({_target(q.target)}))
        case "pattern":
            return Sight("heads", (_words(step.sentence),), one({(q.layer, q.head)}))
        case "scaling":
            return Sight("scaling", (), one({q.d_k}))
        case "shuffle":
            return Sight("shuffle", (_words(step.sentence), q.with_pe), one({"map"}))
        case _:  # bleu
            return Sight("bleu", tuple(q.pair), one({"loss"}))


def in_view(step: Step) -> Sight:
    """What ``step`` shows of its model's numbers: a question's step only its own answer (at the
    reveal; before it, the options), any other step its whole view."""
    if step.question is not None:
        return asked(step)
    sentence = _words(step.sentence)
    match step.view:
        case "alignment" | "stages":
            return Sight("alignment", (step.model, sentence))
        case "local":
            return Sight("local", (sentence,))
        case "caption":
            return Sight("caption", (step.scene,))
        case "heads":
            return Sight("heads", (sentence,), frozenset((step.layer, h) for h in range(1, 13)))
        case "head":
            return Sight("heads", (sentence,), frozenset({(step.layer, step.head)}))
        case "shuffle":
            return Sight("shuffle", (sentence, False))
        case "translations":  # the two translations, no references: no BLEU in view
            return Sight("bleu", ((step.sentence, ""),))
        case _:  # scaling's curves over d_k; the positional encodings
            return Sight(step.view, ())


def answered_first(steps: tuple[Step, ...]) -> list[tuple[int, int]]:
    """(question's step, earlier step) for each question that an earlier step (a view, or an
    earlier question's reveal) answers: it shows what the question asks, on the same model and
    input (1-based step numbers)."""
    found = []
    for number, step in enumerate(steps, start=1):
        if step.question is None:
            continue
        wanted = asked(step)
        for before, earlier in enumerate(steps[: number - 1], start=1):
            if in_view(earlier).shows(wanted):
                found.append((number, before))
                break
    return found
