"""How English a text looks to a translator: the share of its letters in the Latin script and the
share of its words that the source tokenizer knows whole.

The translators read English subword pieces with byte fallback (:mod:`models.tokenizer`), so any
text is accepted, and Chinese or German comes out as confident French all the same. A word is
*known* when the vocabulary holds it as one word piece (``▁dog``, in its own case, lower case or
capitalised); a word the tokenizer has to spell out in pieces or bytes (``▁retrie`` ``ving``,
``<0xE6>`` ...) is not.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from models.sentence import Sentence, as_sentence
from models.tokenizer import UNK_ID, WORD_START, SubwordTokenizer

WORD = re.compile(r"[^\W\d_]+")  # a run of letters (any script)
MOSTLY = 0.5  # "mostly": more than half


@dataclass(frozen=True)
class EnglishCheck:
    """latin_share: the share of the text's letters in the Latin script (1.0 without letters);
    n_words: the words (runs of letters); n_known: those the vocabulary holds as one word piece;
    symbols_only: the text has characters but no letter or digit ("🙂🙂", "!!! ???")."""

    latin_share: float
    n_words: int
    n_known: int
    symbols_only: bool = False

    @property
    def not_latin(self) -> bool:
        """Most letters are not Latin (Chinese, Cyrillic, Arabic...)."""
        return self.latin_share < MOSTLY

    @property
    def mostly_unknown(self) -> bool:
        """Most words are not in the vocabulary as words."""
        return self.n_words > 0 and self.n_known < MOSTLY * self.n_words

    @property
    def suspicious(self) -> bool:
        """The translation of this text is unlikely to mean much."""
        return self.not_latin or self.mostly_unknown or self.symbols_only


def is_latin(char: str) -> bool:
    """A letter of the Latin script (a, É, ß, ø...)."""
    return unicodedata.name(char, "").startswith("LATIN ")


def knows(tokenizer: SubwordTokenizer, word: str) -> bool:
    """The vocabulary holds ``word`` (as typed, lower case or capitalised) as one word piece."""
    forms = {word, word.lower(), word.capitalize()}
    return any(tokenizer.sp.piece_to_id(WORD_START + form) != UNK_ID for form in forms)


def check_english(sentence: Sentence | str, tokenizer: SubwordTokenizer) -> EnglishCheck:
    """How much of ``sentence`` the English ``tokenizer`` can read (its words looked up in the
    vocabulary, the sentence not tokenized; a bare ``str`` is cleaned first)."""
    text = as_sentence(sentence).text
    letters = [c for c in text if c.isalpha()]
    latin = sum(1 for c in letters if is_latin(c))
    words = WORD.findall(text)
    known = sum(1 for word in words if knows(tokenizer, word))
    share = latin / len(letters) if letters else 1.0
    symbols_only = bool(text.strip()) and not any(c.isalnum() for c in text)
    return EnglishCheck(share, len(words), known, symbols_only)
