"""Emoji scenes whose captions are known: the catalogue, random layouts, composition, captions.

The data behind the Show, Attend and Tell page (Xu et al. 2015 trained on photographs with human
captions; none can be had here, so the scenes and their captions are generated). A scene is 1-4
emoji sprites on a coloured, lightly noisy 224 x 224 background. Its caption names every object
from left to right and the relation between each neighbour pair, read off the layout:

    "a dog above an apple to the left of a cat"

Relation of object i to the next object j (j's centre is to the right of i's): "to the left of"
when the horizontal gap dominates (dx >= |dy|), else "above" (j lower) or "below" (j higher).
Random layouts keep a margin on every decision, so the caption is never a coin toss.

Pure numpy + Pillow: no font needed (sprites come from ``assets/sprites/``, exported once from
Debian's Noto Color Emoji by ``python -m training.make_scenes --export-sprites``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
SPRITES_DIR = ROOT / "assets" / "sprites"
IMAGE_SIZE = 224  # scene side in pixels (the encoder's input size)
SPRITE_PX = 80  # the longest side of an exported sprite
MIN_SIZE, MAX_SIZE = 44, 80  # object size range in random layouts (longest side, pixels)
MIN_DX = 14  # neighbours' centres differ at least this much horizontally
MIN_MARGIN = 16  # | |dx| - |dy| | at least this much between neighbours
GAP = 4  # boxes keep at least this many pixels apart

# name -> emoji code point (one word each; all with emoji presentation by default)
CATALOGUE: dict[str, int] = {
    # animals
    "dog": 0x1F415,
    "cat": 0x1F408,
    "mouse": 0x1F401,
    "rabbit": 0x1F407,
    "horse": 0x1F40E,
    "cow": 0x1F404,
    "pig": 0x1F416,
    "sheep": 0x1F411,
    "chicken": 0x1F414,
    "elephant": 0x1F418,
    "monkey": 0x1F412,
    "penguin": 0x1F427,
    "turtle": 0x1F422,
    "snake": 0x1F40D,
    "fish": 0x1F41F,
    "whale": 0x1F40B,
    "octopus": 0x1F419,
    "snail": 0x1F40C,
    "butterfly": 0x1F98B,
    "bee": 0x1F41D,
    "owl": 0x1F989,
    "duck": 0x1F986,
    "crab": 0x1F980,
    "camel": 0x1F42B,
    # fruit and vegetables
    "apple": 0x1F34E,
    "banana": 0x1F34C,
    "grapes": 0x1F347,
    "lemon": 0x1F34B,
    "strawberry": 0x1F353,
    "pineapple": 0x1F34D,
    "watermelon": 0x1F349,
    "pear": 0x1F350,
    "carrot": 0x1F955,
    "mushroom": 0x1F344,
    # vehicles
    "car": 0x1F697,
    "bus": 0x1F68C,
    "bicycle": 0x1F6B2,
    "rocket": 0x1F680,
    "helicopter": 0x1F681,
    "tractor": 0x1F69C,
    "truck": 0x1F69A,
    "sailboat": 0x26F5,
    # plants
    "tree": 0x1F333,
    "cactus": 0x1F335,
    "sunflower": 0x1F33B,
    "tulip": 0x1F337,
    # tools and things
    "hammer": 0x1F528,
    "wrench": 0x1F527,
    "key": 0x1F511,
    "guitar": 0x1F3B8,
    "ball": 0x26BD,
    "anchor": 0x2693,
    "axe": 0x1FA93,
    "magnet": 0x1F9F2,
    "house": 0x1F3E0,
    "crown": 0x1F451,
}
OBJECT_NAMES: tuple[str, ...] = tuple(CATALOGUE)
RELATION_WORDS = ("to", "the", "left", "of", "above", "below")


@dataclass(frozen=True)
class Placement:
    """Where one object goes: its name, centre (x, y) in pixels and longest side in pixels."""

    name: str
    x: float
    y: float
    size: float


@dataclass(frozen=True)
class SceneObject:
    """An object as drawn: its name and box (x0, y0, x1, y1) in pixels, exclusive right/bottom."""

    name: str
    box: tuple[int, int, int, int]

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return (x0 + x1) / 2, (y0 + y1) / 2


@dataclass(frozen=True)
class Scene:
    """A composed scene.

    image: (IMAGE_SIZE, IMAGE_SIZE, 3) uint8 RGB; objects in caption order (left to right);
    caption: the words of the caption read off the layout.
    """

    image: np.ndarray
    objects: tuple[SceneObject, ...]
    caption: tuple[str, ...]


def article(name: str) -> str:
    """'an' before a vowel sound (our names: a vowel letter), else 'a'."""
    return "an" if name[0] in "aeiou" else "a"


def relation(left: SceneObject, right: SceneObject) -> tuple[str, ...]:
    """Words relating ``left`` to the next object ``right`` (whose centre is further right)."""
    dx = right.center[0] - left.center[0]
    dy = right.center[1] - left.center[1]
    if dx >= abs(dy):
        return ("to", "the", "left", "of")
    return ("above",) if dy > 0 else ("below",)


def caption_for(objects: list[SceneObject] | tuple[SceneObject, ...]) -> tuple[str, ...]:
    """The caption of a layout: objects sorted left to right, each neighbour pair related."""
    ordered = sorted(objects, key=lambda o: (o.center[0], o.center[1]))
    words: list[str] = []
    for i, obj in enumerate(ordered):
        if i:
            words += relation(ordered[i - 1], obj)
        words += (article(obj.name), obj.name)
    return tuple(words)


def vocabulary_words() -> list[str]:
    """Every word a caption can contain (articles, relations, object names)."""
    return ["a", "an", *RELATION_WORDS, *OBJECT_NAMES]


def load_sprites(folder: Path = SPRITES_DIR) -> dict[str, Image.Image]:
    """The committed sprites, one RGBA image per catalogue name; raises FileNotFoundError."""
    sprites = {}
    for name in OBJECT_NAMES:
        with Image.open(folder / f"{name}.png") as img:
            sprites[name] = img.convert("RGBA")
    return sprites


def _fit(sprite: Image.Image, size: float) -> Image.Image:
    """``sprite`` resized so that its longest side is ``size`` pixels (aspect kept)."""
    scale = max(1.0, float(size)) / max(sprite.size)
    w, h = (max(1, round(s * scale)) for s in sprite.size)
    return sprite.resize((w, h), Image.LANCZOS)


def placed_box(placement: Placement, sprite: Image.Image) -> tuple[int, int, int, int]:
    """The pixel box the sprite occupies when drawn at ``placement`` (before clipping)."""
    w, h = _fit(sprite, placement.size).size
    x0, y0 = round(placement.x - w / 2), round(placement.y - h / 2)
    return (x0, y0, x0 + w, y0 + h)


def compose(
    placements: list[Placement],
    sprites: dict[str, Image.Image],
    background: tuple[int, int, int] = (235, 235, 225),
    noise: float = 0.0,
    seed: int = 0,
) -> Scene:
    """Draw the placements on a plain background with Gaussian pixel noise of std ``noise``."""
    canvas = Image.new("RGBA", (IMAGE_SIZE, IMAGE_SIZE), (*background, 255))
    objects = []
    for p in placements:
        sprite = _fit(sprites[p.name], p.size)
        x0, y0, x1, y1 = placed_box(p, sprites[p.name])
        layer = Image.new("RGBA", canvas.size, (0, 0, 0, 0))
        layer.paste(sprite, (x0, y0))  # clips what falls outside the canvas
        canvas = Image.alpha_composite(canvas, layer)
        box = (max(x0, 0), max(y0, 0), min(x1, IMAGE_SIZE), min(y1, IMAGE_SIZE))
        objects.append(SceneObject(p.name, box))
    image = np.asarray(canvas.convert("RGB"), dtype=np.float32)  # (224, 224, 3)
    if noise > 0:
        image = image + np.random.default_rng(seed).normal(0.0, noise, image.shape)
    image = np.clip(image, 0, 255).astype(np.uint8)
    ordered = tuple(sorted(objects, key=lambda o: (o.center[0], o.center[1])))
    return Scene(image=image, objects=ordered, caption=caption_for(ordered))


def _separated(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Boxes at least GAP pixels apart along some axis."""
    return a[2] + GAP <= b[0] or b[2] + GAP <= a[0] or a[3] + GAP <= b[1] or b[3] + GAP <= a[1]


def layout_ok(boxes: list[tuple[int, int, int, int]]) -> bool:
    """No overlaps, inside the canvas, and every caption decision has its margin."""
    if any(min(b) < 2 or b[2] > IMAGE_SIZE - 2 or b[3] > IMAGE_SIZE - 2 for b in boxes):
        return False
    if any(not _separated(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]):
        return False
    centres = sorted(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes)
    for (x0, y0), (x1, y1) in zip(centres, centres[1:], strict=False):
        dx, dy = x1 - x0, y1 - y0
        if dx < MIN_DX or abs(dx - abs(dy)) < MIN_MARGIN:
            return False
    return True


def random_placements(
    rng: np.random.Generator, sprites: dict[str, Image.Image], n_objects: int | None = None
) -> list[Placement]:
    """1-4 distinct objects at random sizes and places, retried until ``layout_ok``."""
    n = int(rng.integers(1, 5)) if n_objects is None else n_objects
    names = [OBJECT_NAMES[i] for i in rng.choice(len(OBJECT_NAMES), size=n, replace=False)]
    for _ in range(10_000):
        placements = []
        for name in names:
            size = float(rng.integers(MIN_SIZE, MAX_SIZE + 1))
            lo, hi = size / 2 + 3, IMAGE_SIZE - size / 2 - 3
            placements.append(
                Placement(name, float(rng.uniform(lo, hi)), float(rng.uniform(lo, hi)), size)
            )
        if layout_ok([placed_box(p, sprites[p.name]) for p in placements]):
            return placements
    raise RuntimeError(f"no valid layout for {n} objects after 10000 tries")


def random_scene(seed: int, index: int, sprites: dict[str, Image.Image]) -> Scene:
    """Scene number ``index`` of the set with ``seed``: deterministic, independent per index."""
    rng = np.random.default_rng([seed, index])
    placements = random_placements(rng, sprites)
    background = tuple(int(c) for c in rng.integers(110, 256, size=3))
    noise = float(rng.uniform(0.0, 8.0))
    return compose(placements, sprites, background, noise, seed=int(rng.integers(2**31)))


def scene_record(scene: Scene) -> dict:
    """The JSON-ready description of a scene: caption and boxes."""
    return {
        "caption": " ".join(scene.caption),
        "objects": [{"name": o.name, "box": list(o.box)} for o in scene.objects],
    }
