"""Join codes and secrets of a live class: the short code students type, the teacher's key and the
students' tokens (random, from ``secrets``), and how a secret is kept (its sha256 only)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

# Capital consonants without the look-alike L, and no digits (0/O, 1/I, 5/S, 8/B): no vowels
# (nor Y), so that a code read out in front of a class never spells a word.
ALPHABET = "BCDFGHJKMNPQRSTVWXZ"
CODE_LENGTH = 6
_SEPARATORS = re.compile(r"[\s\-]+")  # what a person may type between the letters: spaces, dashes


def new_code() -> str:
    """A random join code: CODE_LENGTH letters of ALPHABET (19**6 = 47,045,881 codes)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(raw: str) -> str | None:
    """``raw`` as a code ("abc-def", " ABC DEF " -> "ABCDEF"); None when it cannot be one."""
    if len(raw) > 4 * CODE_LENGTH:
        return None
    code = _SEPARATORS.sub("", raw).upper()
    if len(code) != CODE_LENGTH or any(letter not in ALPHABET for letter in code):
        return None
    return code


def foreign_letters(raw: str) -> str:
    """The characters of ``raw`` that no code has (separators aside, any case), each once, in
    order: "AEIOU" for "aeioux". Empty when every one is a code's letter."""
    typed = _SEPARATORS.sub("", raw[: 4 * CODE_LENGTH]).upper()
    return "".join(dict.fromkeys(letter for letter in typed if letter not in ALPHABET))


def new_secret() -> str:
    """A secret for a link (a teacher's key, a student's token): 24 random bytes, URL-safe."""
    return secrets.token_urlsafe(24)


def digest(secret: str) -> str:
    """What is stored of a secret: its sha256, in hex."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def same_secret(secret: str, stored_digest: str) -> bool:
    """Whether ``secret`` is the one ``stored_digest`` was made from (in constant time)."""
    return hmac.compare_digest(digest(secret), stored_digest)
