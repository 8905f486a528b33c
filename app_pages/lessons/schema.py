"""Lessons are data: one TOML file per lesson under ``lessons/``, checked against one schema.

A lesson is a list of steps; each step shows one live view of a real model (``VIEWS``) with a
short narration, and may ask one prediction question (``KINDS``) whose answer is computed from the
model at the reveal. Parsing never executes anything from the file (``tomllib`` only) and every
problem becomes a :class:`LessonError` naming the file, the step and what is wrong, so that one
broken lesson never stops the others (docs/lessons.md describes the format).

A lesson is data, never a door: a teacher's lesson reaches every phone of a class, so no text in
it may make a browser fetch from anywhere (no Markdown image, no ``data:`` or ``javascript:``
link, no ``\\includegraphics``), and a message quoting a value from the file escapes it.
"""

from __future__ import annotations

import html
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from app_pages.lessons.sights import answered_first
from i18n import N_, _
from ui.text import escape_markdown

LESSONS_DIR = Path(__file__).resolve().parents[2] / "lessons"
MAX_FILE_BYTES = 64_000  # an uploaded lesson file larger than this is refused
MAX_STEPS = 12
MIN_STEPS = 1
MAX_TEXT = 1_500  # characters of one narration or explanation
MAX_SENTENCE = 300  # characters of a lesson's sentence (the pages' own limits still apply)
QUOTED = 60  # characters of a file's value that a message quotes
# what would make a browser fetch or run something: an image (inline or by reference), a link
# to a data:, javascript:, vbscript: or file: address (inline, by reference or an autolink), a
# formula's picture
_DOORS = re.compile(
    r"!\[|(?:\]\s*\(|\]\s*:|<)\s*<?\s*(?:javascript|data|vbscript|file)\s*:|\\includegraphics",
    re.IGNORECASE,
)

# view -> what it shows (the page it opens, see app_pages.lessons.step_view)
VIEWS = (
    "translations",  # an encoder-decoder without and with attention on one sentence (BLEU)
    "alignment",  # an RNN translator's alignment heatmap (word level)
    "stages",  # scores, softmax weights and context for one target word
    "local",  # Luong local-p: p_t and the window per target word
    "caption",  # an example scene, its caption and the soft model's map of one word
    "heads",  # every head of one layer of all-MiniLM-L6-v2
    "head",  # one head of all-MiniLM-L6-v2, large
    "scaling",  # softmax entropy with and without the 1/sqrt(d_k) over d_k
    "positional",  # the sinusoidal encodings as a heatmap
    "shuffle",  # self-attention on a sentence and on a shuffled copy (with or without PE)
)
# question kind -> the views it can be asked on
KINDS = {
    "token": ("alignment", "stages"),  # the source word the model attends to for a target word
    "window": ("local",),  # where local-p centres its window (p_t) for a target word
    "region": ("caption",),  # the part of the image the soft model looks at for a word
    "pattern": ("head",),  # previous token, diagonal or broad
    "scaling": ("scaling",),  # which softmax is flatter, with or without 1/sqrt(d_k)
    "shuffle": ("shuffle",),  # does the shuffled map keep its pattern?
    "bleu": ("translations",),  # which of two sentences loses more BLEU without attention
}
TRANSLATORS = ("bahdanau", "luong-dot", "luong-general", "luong-concat")
PATTERNS = ("previous", "diagonal", "broad")


class LessonError(ValueError):
    """A lesson file that cannot be used: ``where`` (file, and step when known) and ``problem``
    (translated)."""

    def __init__(self, source: str, problem: str, step: int | None = None) -> None:
        self.source, self.problem, self.step = source, problem, step
        super().__init__(self.message)

    @property
    def message(self) -> str:
        file = quoted(self.source)  # the problem quotes the file's values escaped already
        if self.step is None:
            return _("Lesson file {file}: {problem}").format(file=file, problem=self.problem)
        return _("Lesson file {file}, step {step}: {problem}").format(
            file=file, step=self.step, problem=self.problem
        )


def quoted(value: object) -> str:
    """A value from a lesson file (or its name) as a message quotes it: its first QUOTED
    characters, Markdown escaped, so that it shows as typed and makes nothing of itself."""
    return escape_markdown(str(value)[:QUOTED])


def opens_a_door(text: str) -> bool:
    """Whether ``text`` holds Markdown that makes a browser fetch or run something (_DOORS),
    also written with HTML entities (``&#33;[``) or spread over spaces and lines."""
    return bool(_DOORS.search(html.unescape(text)))


@dataclass(frozen=True)
class Question:
    """A prediction asked before the view is revealed.

    kind: one of KINDS. prompt, explain: the question and the two or three sentences shown at the
    reveal (message ids). target: the word the question is about (a French word of the
    translation, or a caption word; None lets the model's result choose). layer, head: 1-based,
    for ``pattern``. d_k: for ``scaling``. with_pe: for ``shuffle``. pair: two (English,
    French reference) sentences for ``bleu``.
    """

    kind: str
    prompt: str
    explain: str
    target: str | None = None
    layer: int = 1
    head: int = 1
    d_k: int = 64
    with_pe: bool = False
    pair: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Step:
    """One step: a ``view`` (VIEWS) of ``sentence`` (or ``scene``, the example image's number)
    through ``model``, with a ``title`` and ``text`` (message ids); ``layer`` and ``head``
    (1-based) pick what the ``heads`` and ``head`` views show; ``try_it`` lets the student type
    their own sentence; ``question`` hides the view until the student has guessed."""

    title: str
    text: str
    view: str
    sentence: str = ""
    model: str = "bahdanau"
    scene: int = 0
    layer: int = 1
    head: int = 1
    try_it: bool = False
    question: Question | None = None


@dataclass(frozen=True)
class Lesson:
    """A lesson: ``id`` (in the URL), ``title``, ``summary`` and its steps; ``source``: the file
    it came from (shown in error messages)."""

    id: str
    title: str
    summary: str
    steps: tuple[Step, ...]
    source: str
    text: str = field(default="", compare=False, repr=False)  # the file, for a class to keep

    @property
    def questions(self) -> list[int]:
        """The (0-based) numbers of the steps that ask a question."""
        return [i for i, step in enumerate(self.steps) if step.question is not None]


def check_predictions(steps: tuple[Step, ...], source: str) -> None:
    """Every question is a prediction: raises LessonError naming the first question that an
    earlier step answers, and that step."""
    for number, before in answered_first(steps)[:1]:
        problem = _(
            "its question is answered before it is asked: step {before} shows the same view of "
            "the same input. Show another sentence, scene or head there, or ask first and show "
            "the whole view after."
        ).format(before=before)
        raise LessonError(source, problem, number)


# ---------------------------------------------------------------- reading a file

_STEP_KEYS = {
    "title",
    "text",
    "view",
    "sentence",
    "model",
    "scene",
    "layer",
    "head",
    "try_it",
    "question",
}
_QUESTION_KEYS = {"kind", "prompt", "explain", "target", "layer", "head", "d_k", "with_pe", "pair"}
ID_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-_")


def _text(table: dict, key: str, where: tuple[str, int | None], *, limit: int = MAX_TEXT) -> str:
    """``table[key]``: a non-empty string of at most ``limit`` characters."""
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise LessonError(
            where[0], _("'{key}' must be a non-empty text.").format(key=key), where[1]
        )
    if len(value) > limit:
        problem = _("'{key}' is longer than {n} characters.").format(key=key, n=limit)
        raise LessonError(where[0], problem, where[1])
    _no_door(value, key, where)
    return value.strip()


def _no_door(value: str, key: str, where: tuple[str, int | None]) -> None:
    """A lesson's text shows Markdown and formulas, never an image or a data: or javascript:
    link (:func:`opens_a_door`): LessonError naming ``key``."""
    if opens_a_door(value):
        problem = _(
            "'{key}' holds an image or a data:, javascript: or file: link. A lesson shows text "
            "and formulas only: nothing in it may load from another address."
        ).format(key=key)
        raise LessonError(where[0], problem, where[1])


def _int(table: dict, key: str, default: int, lo: int, hi: int, where: tuple[str, int]) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        problem = _("'{key}' must be a whole number from {lo} to {hi}.").format(
            key=key, lo=lo, hi=hi
        )
        raise LessonError(where[0], problem, where[1])
    return value


def _unknown(table: dict, allowed: set[str], where: tuple[str, int]) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        problem = _("unknown key '{key}'.").format(key=quoted(extra[0]))
        raise LessonError(where[0], problem, where[1])


def _pair(raw: object, where: tuple[str, int]) -> tuple[tuple[str, str], ...]:
    """Two [English, French reference] sentences for a ``bleu`` question."""
    ok = (
        isinstance(raw, list)
        and len(raw) == 2
        and all(
            isinstance(item, list)
            and len(item) == 2
            and all(isinstance(s, str) and 0 < len(s.strip()) <= MAX_SENTENCE for s in item)
            for item in raw
        )
    )
    if not ok:
        problem = _("'pair' must hold two [English, French] sentences.")
        raise LessonError(where[0], problem, where[1])
    for sentence in (s for item in raw for s in item):
        _no_door(sentence, "pair", where)
    return tuple((en.strip(), fr.strip()) for en, fr in raw)


def _question(raw: object, view: str, where: tuple[str, int]) -> Question:
    if not isinstance(raw, dict):
        raise LessonError(where[0], _("'question' must be a table."), where[1])
    _unknown(raw, _QUESTION_KEYS, where)
    kind = raw.get("kind")
    if kind not in KINDS:
        problem = _("unknown question kind '{kind}' (known: {known}).").format(
            kind=quoted(kind), known=", ".join(KINDS)
        )
        raise LessonError(where[0], problem, where[1])
    if view not in KINDS[kind]:
        problem = _("a '{kind}' question needs the view {views}.").format(
            kind=kind, views=" / ".join(KINDS[kind])
        )
        raise LessonError(where[0], problem, where[1])
    target = raw.get("target")
    if target is not None and (not isinstance(target, str) or not 0 < len(target) <= 40):
        raise LessonError(where[0], _("'target' must be a short word."), where[1])
    if target is not None:
        _no_door(target, "target", where)
    with_pe = raw.get("with_pe", False)
    if not isinstance(with_pe, bool):
        raise LessonError(where[0], _("'with_pe' must be true or false."), where[1])
    return Question(
        kind=kind,
        prompt=_text(raw, "prompt", where),
        explain=_text(raw, "explain", where),
        target=target,
        layer=_int(raw, "layer", 1, 1, 6, where),
        head=_int(raw, "head", 1, 1, 12, where),
        d_k=_int(raw, "d_k", 64, 1, 1024, where),
        with_pe=with_pe,
        pair=_pair(raw.get("pair"), where) if kind == "bleu" else (),
    )


def _step(raw: object, number: int, source: str) -> Step:
    where = (source, number)
    if not isinstance(raw, dict):
        raise LessonError(source, _("a step must be a table ([[step]])."), number)
    _unknown(raw, _STEP_KEYS, where)
    view = raw.get("view")
    if view not in VIEWS:
        problem = _("unknown view '{view}' (known: {known}).").format(
            view=quoted(view), known=", ".join(VIEWS)
        )
        raise LessonError(source, problem, number)
    model = raw.get("model", "bahdanau")
    if model not in TRANSLATORS:
        problem = _("unknown model '{model}' (known: {known}).").format(
            model=quoted(model), known=", ".join(TRANSLATORS)
        )
        raise LessonError(source, problem, number)
    sentence = raw.get("sentence", "")
    if not isinstance(sentence, str) or len(sentence) > MAX_SENTENCE:
        problem = _("'sentence' must be a text of at most {n} characters.").format(n=MAX_SENTENCE)
        raise LessonError(source, problem, number)
    _no_door(sentence, "sentence", where)
    try_it = raw.get("try_it", False)
    if not isinstance(try_it, bool):
        raise LessonError(source, _("'try_it' must be true or false."), number)
    question = raw.get("question")
    return Step(
        title=_text(raw, "title", where, limit=120),
        text=_text(raw, "text", where),
        view=view,
        sentence=sentence.strip(),
        model=model,
        scene=_int(raw, "scene", 0, 0, 11, where),
        layer=_int(raw, "layer", 1, 1, 6, where),
        head=_int(raw, "head", 1, 1, 12, where),
        try_it=try_it,
        question=None if question is None else _question(question, view, where),
    )


def parse_lesson(data: bytes, source: str) -> Lesson:
    """The lesson in ``data`` (the bytes of a TOML file named ``source``); raises LessonError,
    also for a file nested too deeply to read (arrays in arrays in ..., under the size limit)."""
    try:
        return _parse(data, source)
    except RecursionError:
        problem = _("it nests arrays or tables too deeply to be a lesson.")
        raise LessonError(source, problem) from None


def _parse(data: bytes, source: str) -> Lesson:
    if len(data) > MAX_FILE_BYTES:
        problem = _("the file is larger than {n:,} bytes.").format(n=MAX_FILE_BYTES)
        raise LessonError(source, problem)
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise LessonError(source, _("the file is not UTF-8 text.")) from None
    except tomllib.TOMLDecodeError as exc:
        problem = _("it is not valid TOML ({detail}).").format(
            detail=escape_markdown(str(exc)[:160])
        )
        raise LessonError(source, problem) from None
    where = (source, None)
    _unknown(raw, {"id", "title", "summary", "step"}, where)
    lesson_id = raw.get("id")
    if not isinstance(lesson_id, str) or not 0 < len(lesson_id) <= 40 or set(lesson_id) - ID_CHARS:
        problem = _("'id' must be 1-40 lower-case letters, digits, - or _.")
        raise LessonError(source, problem)
    steps = raw.get("step")
    if not isinstance(steps, list) or not MIN_STEPS <= len(steps) <= MAX_STEPS:
        problem = _("a lesson needs 1 to {n} steps ([[step]] tables).").format(n=MAX_STEPS)
        raise LessonError(source, problem)
    parsed = tuple(_step(step, i + 1, source) for i, step in enumerate(steps))
    check_predictions(parsed, source)
    return Lesson(
        id=lesson_id,
        title=_text(raw, "title", where, limit=120),
        summary=_text(raw, "summary", where, limit=400),
        steps=parsed,
        source=source,
        text=data.decode("utf-8"),
    )


def load_folder(folder: Path = LESSONS_DIR) -> tuple[list[Lesson], list[LessonError]]:
    """Every ``*.toml`` lesson in ``folder`` in file-name order, and the errors of those that
    could not be read (the others still load). A second lesson with an id already taken is an
    error too."""
    lessons: list[Lesson] = []
    errors: list[LessonError] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            lesson = parse_lesson(path.read_bytes(), path.name)
        except LessonError as exc:
            errors.append(exc)
            continue
        except OSError:
            errors.append(LessonError(path.name, _("the file cannot be read.")))
            continue
        if any(other.id == lesson.id for other in lessons):
            errors.append(
                LessonError(
                    path.name, _("another lesson has the id '{id}'.").format(id=quoted(lesson.id))
                )
            )
            continue
        lessons.append(lesson)
    return lessons, errors


PATTERN_LABELS = {
    "previous": N_("the previous token"),
    "diagonal": N_("itself (the diagonal)"),
    "broad": N_("broadly, over many tokens"),
}
