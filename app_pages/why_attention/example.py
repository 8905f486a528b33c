"""The Why attention page's own glue: its first example (chosen by a rule, read from
``assets/why_example.json``, which ``python -m training.choose_why_example`` writes) and a French
reference that always belongs to the sentence in the box.

Session-state keys and URL parameters of the page start with ``why_``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from i18n import N_, _
from ui.translation import EXAMPLE_PAIRS, EXAMPLES

LOG = logging.getLogger(__name__)
EXAMPLE_FILE = Path(__file__).resolve().parents[2] / "assets" / "why_example.json"
TEXT_KEY, REF_KEY, PICKER_KEY = "why_text", "why_ref", "why_example"
REF_OWNER = "_why_ref_for"  # the sentence the reference in the box was given for
RULE = N_(
    "**Why this sentence?** The page opens on a sentence chosen by a rule, not by hand: the "
    "{n} test sentences of {min_words} words or more are ranked by their gap in sentence BLEU "
    "between `bahdanau` and `none`, and the middle one is taken (of two middle ones, the lower). "
    "This is line {line} of the test set ({words} words): {bahdanau:.1f} with attention, "
    "{none:.1f} without, a gap of {gap:.1f}, where the group's median gap is {median:.1f}. One "
    "sentence's BLEU is noisy: the sentence illustrates, and the chart above, over the whole test "
    "set, carries the evidence."
)
CLEARED = N_(
    "The French reference belonged to the previous sentence, so it was cleared: give one for "
    "this sentence to score it."
)


@dataclass(frozen=True)
class WhyExample:
    """The page's first sentence and, when it was chosen by the rule, the numbers that chose it:
    its line in the test set, its length, each model's sentence BLEU (model -> score), its gap,
    the group's median gap, the group's size and the least length of the group."""

    source: str
    reference: str
    line: int = 0
    words: int = 0
    bleu: Mapping[str, float] = field(default_factory=dict)
    gap: float = 0.0
    median_gap: float = 0.0
    n_candidates: int = 0
    min_words: int = 0

    @property
    def chosen_by_rule(self) -> bool:
        return self.n_candidates > 0 and {"none", "bahdanau"} <= set(self.bleu)


FALLBACK = WhyExample(EXAMPLES[-1], EXAMPLE_PAIRS[EXAMPLES[-1]])


def parse_example(doc: Mapping) -> WhyExample:
    """A :class:`WhyExample` from the document ``training.choose_why_example`` writes (raises
    KeyError, TypeError or ValueError on a malformed one)."""
    source, reference = str(doc["source"]).strip(), str(doc["reference"]).strip()
    if not source or not reference:
        raise ValueError("empty example")
    return WhyExample(
        source=source,
        reference=reference,
        line=int(doc["line"]),
        words=int(doc["words"]),
        bleu={str(k): float(v) for k, v in dict(doc["bleu"]).items()},
        gap=float(doc["gap"]),
        median_gap=float(doc["median_gap"]),
        n_candidates=len(doc["candidates"]),
        min_words=int(doc["rule"]["min_words"]),
    )


@st.cache_resource(show_spinner=False)
def first_example(path: Path = EXAMPLE_FILE) -> WhyExample:
    """The chosen example, or a fixed test sentence when the file is missing or damaged (logged)."""
    try:
        return parse_example(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        LOG.warning("why_attention: no chosen example (%s): %s", path.name, exc)
        return FALLBACK


def example_pairs() -> dict[str, str]:
    """The page's examples (English -> French): the chosen one first, then the shared ones."""
    chosen = first_example()
    return {chosen.source: chosen.reference} | dict(EXAMPLE_PAIRS)


def rule_text(example: WhyExample) -> str | None:
    """The stated rule with the chosen sentence's numbers (None when no rule chose it)."""
    if not example.chosen_by_rule:
        return None
    return _(RULE).format(
        n=example.n_candidates,
        min_words=example.min_words,
        line=example.line,
        words=example.words,
        bahdanau=example.bleu["bahdanau"],
        none=example.bleu["none"],
        gap=example.gap,
        median=example.median_gap,
    )


def refresh_reference(default: WhyExample) -> bool:
    """Before the sentence and reference boxes are drawn: when the sentence is no longer the one
    the reference was given for, the reference becomes that sentence's example reference, or
    empty (and the example picker forgets a choice the text no longer shows). True when a
    reference was cleared, for a note. ``default``: the page's first sentence, whose reference
    is the box's default."""
    text, owner = st.session_state.get(TEXT_KEY), st.session_state.get(REF_OWNER)
    picked = st.session_state.get(PICKER_KEY)
    if picked is not None and text is not None and text != picked:
        st.session_state[PICKER_KEY] = None
    if owner is None:
        _first_reference(default)
        return False
    if text is None or text == owner:
        return False
    old = st.session_state.get(REF_KEY) or ""
    new = example_pairs().get(text.strip(), "")
    st.session_state[REF_KEY] = new
    st.session_state[REF_OWNER] = text
    return bool(old.strip()) and not new


def _first_reference(default: WhyExample) -> None:
    """A session's first run: a link with a sentence but no reference gets that sentence's
    example reference or none, not the default sentence's (the box's default)."""
    if REF_KEY in st.session_state or REF_KEY in st.query_params:
        return
    linked = st.query_params.get(TEXT_KEY)
    if linked is not None and linked.strip() != default.source:
        st.session_state[REF_KEY] = example_pairs().get(linked.strip(), "")


def remember_reference() -> None:
    """After the boxes are drawn: the reference now belongs to the sentence box's text, as
    typed (what :func:`refresh_reference` compares)."""
    st.session_state[REF_OWNER] = st.session_state.get(TEXT_KEY) or ""


def cleared_note() -> None:
    """Say why the reference box emptied itself."""
    st.caption(_(CLEARED))
