"""Toy sequence tasks whose true alignment is known, for the training lab.

- ``reverse``: "a b c" -> "c b a" (target i reads source S-1-i: the anti-diagonal).
- ``copy``: "a b c" -> "a b c" (target i reads source i: the diagonal).
- ``sort``: digits -> the same digits in ascending order (target i reads every source position
  holding its digit: a permutation, spread over duplicates).
- ``date``: "3 march 2021", "march 3, 2021", "3rd of mar 2021", "2021 march 3", "03/03/2021" ->
  "2021-03-03", character by character (each year digit reads its own character; the month digits
  read the whole month word, or the month's digits; the day digits read the day's digits; the
  dashes read nothing in particular).

Every example carries its true alignment as a matrix over the model's steps: rows are the target
tokens plus </s>, columns the source tokens plus </s> (the encoder sees a closing </s>, as in the
translators, and the decoder's last step emits </s> while reading it). A row sums to 1, or is all
zero when the target token has no source counterpart (the dashes of a date).
"""

from __future__ import annotations

import calendar
import random
from dataclasses import dataclass

import numpy as np

from i18n import N_
from models.tokenizer import EOS_ID

TASK_NAMES = ("reverse", "copy", "sort", "date")
LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")
DIGITS = tuple("0123456789")
DATE_SOURCE = tuple("abcdefghijklmnopqrstuvwxyz0123456789 ,/")
DATE_TARGET = (*DIGITS, "-")
FIRST_ID = EOS_ID + 1  # ids 0..3 are <pad>, <unk>, <s>, </s> as in the translators
MONTHS = tuple(calendar.month_name[m].lower() for m in range(1, 13))
SUFFIX = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}
MIN_DATE_LEN = 8  # the shortest date: "1/5/2021"
YEARS = (1950, 2049)


@dataclass(frozen=True)
class Task:
    """A toy task: its name, the symbols it reads and writes, the shortest length its examples
    can have (``min_len``) and how long the longest ``max_len`` it accepts may be."""

    name: str
    source_symbols: tuple[str, ...]
    target_symbols: tuple[str, ...]
    min_len: int  # the shortest source an example can have
    description: str  # English, marked for the catalogue: shown as _(description)

    @property
    def src_vocab(self) -> int:
        return FIRST_ID + len(self.source_symbols)

    @property
    def tgt_vocab(self) -> int:
        return FIRST_ID + len(self.target_symbols)

    def source_ids(self, tokens: list[str]) -> list[int]:
        """Source tokens -> ids, closed with </s>."""
        index = {s: FIRST_ID + i for i, s in enumerate(self.source_symbols)}
        return [index[t] for t in tokens] + [EOS_ID]

    def target_ids(self, tokens: list[str]) -> list[int]:
        """Target tokens -> ids, closed with </s>."""
        index = {s: FIRST_ID + i for i, s in enumerate(self.target_symbols)}
        return [index[t] for t in tokens] + [EOS_ID]

    def target_tokens(self, ids: list[int]) -> list[str]:
        """Decoded ids -> tokens, up to (not including) the first </s>; unknown ids as '?'."""
        out = []
        for i in ids:
            if i == EOS_ID:
                break
            k = i - FIRST_ID
            out.append(self.target_symbols[k] if 0 <= k < len(self.target_symbols) else "?")
        return out


TASKS = {
    "reverse": Task("reverse", LETTERS, LETTERS, 1, N_("Write the letters in reverse order.")),
    "copy": Task("copy", LETTERS, LETTERS, 1, N_("Write the letters again, in the same order.")),
    "sort": Task("sort", DIGITS, DIGITS, 1, N_("Write the digits in ascending order.")),
    "date": Task(
        "date",
        DATE_SOURCE,
        DATE_TARGET,
        MIN_DATE_LEN,
        N_("Write a date, given in words and in any order, as YYYY-MM-DD."),
    ),
}


@dataclass(frozen=True)
class Example:
    """One source and its target, as tokens (no </s>).

    alignment: (len(target) + 1, len(source) + 1), the true alignment over the model's steps
    (</s> row and column last); each row sums to 1, or is all zero where the target token reads
    no particular source token.
    """

    source: list[str]
    target: list[str]
    alignment: np.ndarray


def _one_hot_rows(rows: list[list[int]], n_src: int) -> np.ndarray:
    """Rows listing the source positions each target token reads -> the alignment matrix, with the
    </s> row reading the source </s>; each non-empty row spread evenly over its positions."""
    matrix = np.zeros((len(rows) + 1, n_src + 1))
    for i, cols in enumerate(rows):
        if cols:
            matrix[i, cols] = 1.0 / len(cols)
    matrix[len(rows), n_src] = 1.0
    return matrix


def sequence_example(task: str, source: list[str]) -> Example:
    """The reverse, copy or sort example for ``source`` with its true alignment."""
    n = len(source)
    if task == "reverse":
        target, rows = source[::-1], [[n - 1 - i] for i in range(n)]
    elif task == "copy":
        target, rows = list(source), [[i] for i in range(n)]
    elif task == "sort":
        target = sorted(source)
        rows = [[j for j, s in enumerate(source) if s == t] for t in target]
    else:
        raise ValueError(f"{task!r} is not a sequence task; use one of reverse, copy, sort")
    return Example(list(source), target, _one_hot_rows(rows, n))


def _date_fields(rng: random.Random) -> tuple[int, int, int]:
    year = rng.randint(*YEARS)
    month = rng.randint(1, 12)
    return year, month, rng.randint(1, calendar.monthrange(year, month)[1])


def _date_parts(rng: random.Random, year: int, month: int, day: int) -> list[tuple[str, str]]:
    """The source as (text, field) pieces, field one of 'year', 'month', 'day' or '' (filler)."""
    name = MONTHS[month - 1] if rng.random() < 0.6 else MONTHS[month - 1][:3]
    d = str(day)
    ordinal = [("d", "day"), (SUFFIX.get(day, "th"), "")]
    fmt = rng.randrange(6)
    parts = {
        0: [(d, "day"), (" ", ""), (name, "month"), (" ", ""), (str(year), "year")],
        1: [(name, "month"), (" ", ""), (d, "day"), (", ", ""), (str(year), "year")],
        2: [*ordinal, (" of ", ""), (name, "month"), (" ", ""), (str(year), "year")],
        3: [*ordinal, (" ", ""), (name, "month"), (" ", ""), (str(year), "year")],
        4: [(str(year), "year"), (" ", ""), (name, "month"), (" ", ""), (d, "day")],
        5: [
            (f"{day:02d}", "day"),
            ("/", ""),
            (f"{month:02d}", "month"),
            ("/", ""),
            (str(year), "year"),
        ],
    }[fmt]
    return [(d if text == "d" else text, field) for text, field in parts]


def _digit_rows(span: list[int], n_digits: int) -> list[list[int]]:
    """Which source positions each of ``n_digits`` output digits reads from a field's ``span``:
    digit for digit when the lengths match, else the whole span (a month word, a 1-digit day)."""
    if len(span) == n_digits:
        return [[j] for j in span]
    return [list(span) for _ in range(n_digits)]


def date_example(rng: random.Random) -> Example:
    """A random date in one of the formats, its ISO form and their true alignment."""
    year, month, day = _date_fields(rng)
    spans: dict[str, list[int]] = {}
    source: list[str] = []
    for text, field in _date_parts(rng, year, month, day):
        if field:
            spans[field] = list(range(len(source), len(source) + len(text)))
        source.extend(text)
    target = list(f"{year:04d}-{month:02d}-{day:02d}")
    dash: list[list[int]] = [[]]
    rows = [
        *_digit_rows(spans["year"], 4),
        *dash,
        *_digit_rows(spans["month"], 2),
        *dash,
        *_digit_rows(spans["day"], 2),
    ]
    return Example(source, target, _one_hot_rows(rows, len(source)))


def sample(task: str, rng: random.Random, max_len: int, length: int | None = None) -> Example:
    """One random example of ``task`` with a source of at most ``max_len`` tokens (exactly
    ``length`` for the sequence tasks when given, else a uniform length from 1 to max_len)."""
    spec = TASKS[task]
    if max_len < spec.min_len:
        raise ValueError(f"the {task} task needs sources of at least {spec.min_len} tokens")
    if task == "date":
        while True:  # most formats fit in 12 to 20 characters: a few draws at most
            example = date_example(rng)
            if len(example.source) <= max_len:
                return example
    n = length if length is not None else rng.randint(1, max_len)
    return sequence_example(task, [rng.choice(spec.source_symbols) for _ in range(n)])


def eval_examples(task: str, max_len: int, per_length: int, seed: int = 1234) -> list[Example]:
    """A fixed evaluation set, the same for every run of ``task`` up to ``max_len``: for the
    sequence tasks ``per_length`` examples of each length 1..max_len; for dates
    ``per_length * 12`` random dates (their lengths are what the formats make them)."""
    rng = random.Random(f"{seed}-{task}-{max_len}")
    if task == "date":
        return [sample(task, rng, max_len) for _ in range(per_length * 12)]
    return [sample(task, rng, max_len, n) for n in range(1, max_len + 1) for _ in range(per_length)]


def probe_example(task: str, max_len: int) -> Example:
    """The fixed example whose attention the lab draws: a long one (the longest of a few draws)."""
    rng = random.Random(f"probe-{task}-{max_len}")
    if task == "date":
        return max((sample(task, rng, max_len) for _ in range(8)), key=lambda e: len(e.source))
    return sample(task, rng, max_len, max_len)
