"""What a student does on each page: the page profiles of a lesson and their moves.

A profile opens one page (its url path and a query string, as a shared link would) and makes
moves, each one widget change chosen at random with the move's weight: a new sentence and Enter,
a slider, a choice, an edit in a table, an upload. Widgets are named by their keys; the ids and
the option labels come from what the server drew (:class:`bench.load.client.Session`). The
lesson's mix (:data:`LESSON`) says how many of a class's students are on each profile.
"""

from __future__ import annotations

import io
import json
import random
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bench.load.client import Session

Act = Callable[[Session, random.Random], Awaitable[float]]

SUBJECTS = (
    "a man", "a woman", "two dogs", "a little girl", "the young boy", "three people", "a cyclist",
    "an old woman", "a brown dog", "a group of children", "the football player", "a chef",
)  # fmt: skip
VERBS = (
    "is riding", "is holding", "walks past", "looks at", "is playing with", "jumps over",
    "is cooking", "sits next to", "is painting", "carries",
)  # fmt: skip
OBJECTS = (
    "a red bike", "the ball", "a large white building", "a blue umbrella", "the wooden fence",
    "a small boat on the lake", "a plate of food", "the old car", "a wall in the city",
)  # fmt: skip
PLACES = ("", "in the park", "on the street", "near the beach", "at night", "in the snow")
PIECE_WORDS = "the dog runs in the park with a red ball".split()  # one MiniLM piece each


def sentence(rng: random.Random) -> str:
    """An English sentence like the test set's (6-16 words), different most times."""
    parts = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(PLACES)]
    return " ".join(p for p in parts if p) + " ."


def text_with_pieces(n_pieces: int) -> str:
    """A text of ``n_pieces`` MiniLM word pieces ([CLS] and [SEP] included)."""
    return " ".join(PIECE_WORDS[i % len(PIECE_WORDS)] for i in range(n_pieces - 2))


def scene_png(rng: random.Random, size: tuple[int, int] = (320, 240)) -> bytes:
    """A small PNG of coloured shapes (a stand-in photo: the model's work is the same)."""
    img = Image.new("RGB", size, tuple(rng.randrange(150, 256) for _ in range(3)))
    draw = ImageDraw.Draw(img)
    for _ in range(rng.randint(2, 5)):
        x, y = rng.randrange(size[0] - 60), rng.randrange(size[1] - 60)
        w = rng.randint(24, 60)
        box = (x, y, x + w, y + w)
        colour = tuple(rng.randrange(256) for _ in range(3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=colour)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


# -- moves -------------------------------------------------------------------------------------


def type_text(key: str, make: Callable[[random.Random], str]) -> Act:
    """Type a new text in ``key`` and press Enter."""
    return lambda s, rng: s.set(key, make(rng))


def choose_act(key: str) -> Act:
    """Pick another of ``key``'s options (a selectbox, radio or segmented control)."""

    async def act(s: Session, rng: random.Random) -> float:
        return await s.set(key, rng.choice(s.widget(key).options))

    return act


def slide(key: str, lo: float | None = None, hi: float | None = None, step: float = 1) -> Act:
    """Move slider or number input ``key`` to a value on its grid (within [lo, hi] when given,
    else the widget's range)."""

    async def act(s: Session, rng: random.Random) -> float:
        w = s.widget(key)
        a = w.lo if lo is None else lo
        b = w.hi if hi is None else hi
        return await s.set(key, a + step * rng.randint(0, int((b - a) / step)))

    return act


def toggle(key: str) -> Act:
    """Flip checkbox or toggle ``key`` (its value set to a coin toss)."""
    return lambda s, rng: s.set(key, rng.random() < 0.5)


def edit_cell(prefixes: tuple[str, ...], columns: tuple[str, ...], lo: int, hi: int) -> Act:
    """Type a number in one cell of an editable table: a text box whose key starts with one of
    ``prefixes`` (a table of text inputs), else a data editor's cell (its edits as JSON)."""

    async def act(s: Session, rng: random.Random) -> float:
        keys = sorted(k for k in s.widgets if k.startswith(prefixes))
        if not keys:
            s.widget(prefixes[0])  # LoadError: the page drew no such table
        key = rng.choice(keys)
        if s.widgets[key].element_type != "dataframe":
            return await s.set(key, str(rng.randint(lo, hi)))
        edit = {"0": {rng.choice(columns): rng.randint(lo, hi)}}
        value = json.dumps({"edited_rows": edit, "added_rows": [], "deleted_rows": []})
        return await s.set(key, value)

    return act


def upload_scene(key: str) -> Act:
    """Upload a new picture to uploader ``key``."""

    async def act(s: Session, rng: random.Random) -> float:
        return await s.upload(key, f"photo{rng.randrange(10**6)}.png", scene_png(rng), "image/png")

    return act


# -- profiles ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """One page as a student uses it: ``page`` (url path), the link's ``query``, the ``moves``
    (weight, name, act), and ``first``: a move made before any other (an upload)."""

    name: str
    page: str
    moves: tuple[tuple[float, str, Act], ...]
    query: str = ""
    first: Act | None = None

    def pick(self, rng: random.Random) -> tuple[str, Act]:
        weights = [w for w, _, _ in self.moves]
        _, name, act = rng.choices(self.moves, weights=weights)[0]
        return name, act


def multi_head(pieces: int) -> Profile:
    """The Multi-head page on the pretrained encoder at about ``pieces`` pieces."""

    def around(rng: random.Random) -> str:
        return text_with_pieces(pieces - rng.randrange(8))

    query = urllib.parse.urlencode({"mh_model": "pretrained", "mh_text": around(random.Random())})
    moves = (
        (5, "sentence", type_text("mh_text", around)),
        (2, "layer", choose_act("mh_layer")),
        (2, "head", choose_act("mh_head")),
        (1, "summary", choose_act("mh_agg")),
    )
    return Profile(f"multi_head@{pieces}", "multi_head", moves, query)


ANATOMY_COLUMNS = ("key x", "key y", "value x", "value y")
PROFILES = {
    p.name: p
    for p in (
        Profile(
            "alignment",
            "alignment",
            (
                (6, "sentence", type_text("aln_text", sentence)),
                (1.5, "example", choose_act("aln_example")),
                (1, "beam", slide("aln_beam", 1, 4)),
                (1, "view", choose_act("aln_view")),
                (0.5, "mode", choose_act("aln_mode")),
            ),
        ),
        Profile(
            "local_attention",
            "local_attention",
            (
                (5, "sentence", type_text("loc_text", sentence)),
                (2, "D", slide("loc_D")),
                (1, "model", choose_act("loc_model")),
                (2, "step", slide("loc_step", 0, 5)),
            ),
        ),
        multi_head(128),
        multi_head(512),
        Profile(
            "captions",
            "captions",
            ((1, "upload", upload_scene("cap_upload")), (1, "beam", slide("cap_beam", 1, 3))),
            "cap_src=upload",
            first=upload_scene("cap_upload"),
        ),
        Profile(
            "anatomy",
            "anatomy",
            (
                (
                    3,
                    "edit",
                    edit_cell(("anat_items_cell_", "anat_editor_"), ANATOMY_COLUMNS, -3, 3),
                ),
                (2, "query", slide("anat_qx", -4, 4, 0.5)),
                (1, "query", slide("anat_qy", -4, 4, 0.5)),
                (1, "score", choose_act("anat_score")),
                (1, "temperature", slide("anat_temp", 0.25, 4, 0.25)),
                (1, "hard", toggle("anat_hard")),
            ),
        ),
        Profile(
            "positional_encoding",
            "positional_encoding",
            (
                (2, "positions", slide("pe_n", 8, 256, 8)),
                (2, "d_model", slide("pe_d", 16, 256, 16)),
                (1, "dimensions", type_text("pe_dims", lambda r: f"{r.randrange(8)}, 1, 4, 5")),
                (2, "sentence", type_text("pe_sentence", sentence)),
                (1, "shuffle", slide("pe_shuffle", 0, 50)),
            ),
        ),
    )
}
# A lesson's class of 30: students per profile (the Alignment page is the lesson's centre).
LESSON = {
    "alignment": 8,
    "local_attention": 3,
    "multi_head@128": 4,
    "multi_head@512": 2,
    "captions": 5,
    "anatomy": 5,
    "positional_encoding": 3,
}


def class_profiles(n: int) -> list[Profile]:
    """The profiles of ``n`` students in the lesson's proportions, interleaved: each next student
    goes to the page furthest below its share so far (any ``n`` keeps the mix)."""
    total, given, out = sum(LESSON.values()), dict.fromkeys(LESSON, 0), []
    for i in range(1, n + 1):
        name = max(LESSON, key=lambda k: LESSON[k] * i / total - given[k])
        given[name] += 1
        out.append(PROFILES[name])
    return out
