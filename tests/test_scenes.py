"""Emoji scenes: deterministic per seed, captions that match the layout, the committed sprites."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from media.scenes import (
    CATALOGUE,
    IMAGE_SIZE,
    OBJECT_NAMES,
    SPRITES_DIR,
    Placement,
    SceneObject,
    caption_for,
    compose,
    layout_ok,
    load_sprites,
    random_scene,
)
from tests.requirements_env import need


@pytest.fixture(scope="module")
def sprites():
    return load_sprites()


def test_catalogue_and_sprites_committed():
    assert 40 <= len(CATALOGUE) <= 60
    assert all(" " not in name for name in OBJECT_NAMES)
    files = [SPRITES_DIR / f"{name}.png" for name in OBJECT_NAMES]
    assert all(f.is_file() for f in files)
    assert sum(f.stat().st_size for f in files) < 1.5 * 2**20
    assert "Open Font License" in (SPRITES_DIR / "LICENSE-NotoColorEmoji.txt").read_text()


def test_same_seed_same_scene(sprites):
    a, b = random_scene(5, 3, sprites), random_scene(5, 3, sprites)
    assert np.array_equal(a.image, b.image) and a.caption == b.caption and a.objects == b.objects
    c = random_scene(6, 3, sprites)
    assert not np.array_equal(a.image, c.image)


def _centre(o: SceneObject) -> tuple[float, float]:
    return o.center


@pytest.mark.parametrize("index", range(40))
def test_caption_matches_layout(sprites, index):
    scene = random_scene(11, index, sprites)
    assert scene.image.shape == (IMAGE_SIZE, IMAGE_SIZE, 3) and scene.image.dtype == np.uint8
    names = [w for w in scene.caption if w in OBJECT_NAMES]
    assert names == [o.name for o in scene.objects]  # every object named once, left to right
    xs = [o.center[0] for o in scene.objects]
    assert xs == sorted(xs)
    assert layout_ok([o.box for o in scene.objects])
    text = " ".join(scene.caption)
    for left, right in zip(scene.objects, scene.objects[1:], strict=False):
        dx, dy = right.center[0] - left.center[0], right.center[1] - left.center[1]
        expected = "to the left of" if dx >= abs(dy) else ("above" if dy > 0 else "below")
        assert (
            f"{left.name} {expected} {'an' if right.name[0] in 'aeiou' else 'a'} {right.name}"
            in text
        )


def test_relations_from_explicit_layouts(sprites):
    side = compose([Placement("dog", 40, 112, 60), Placement("apple", 180, 110, 60)], sprites)
    assert " ".join(side.caption) == "a dog to the left of an apple"
    stack = compose(
        [
            Placement("tree", 100, 40, 60),
            Placement("car", 120, 180, 60),
            Placement("cat", 200, 60, 50),
        ],
        sprites,
    )
    assert " ".join(stack.caption) == "a tree above a car below a cat"
    assert " ".join(caption_for([])) == ""


def test_boxes_hold_the_sprite_pixels(sprites):
    scene = compose([Placement("elephant", 112, 112, 80)], sprites, background=(255, 255, 255))
    x0, y0, x1, y1 = scene.objects[0].box
    changed = np.argwhere((scene.image != 255).any(-1))
    assert changed[:, 0].min() >= y0 and changed[:, 0].max() < y1
    assert changed[:, 1].min() >= x0 and changed[:, 1].max() < x1


def test_objects_partly_outside_are_clipped(sprites):
    scene = compose([Placement("bus", 5, 220, 80)], sprites)
    x0, y0, x1, y1 = scene.objects[0].box
    assert x0 == 0 and y1 == IMAGE_SIZE


def test_make_scenes_cli_with_the_font(tmp_path: Path):
    from training import make_scenes

    try:
        make_scenes.find_font()
    except SystemExit as missing:  # fonts-noto-color-emoji is not installed (make font)
        need(False, str(missing))
    make_scenes.main(["--n", "3", "--seed", "4", "--out", str(tmp_path / "a")])
    make_scenes.main(["--n", "3", "--seed", "4", "--out", str(tmp_path / "b")])
    a = (tmp_path / "a" / "scenes.jsonl").read_text()
    assert a == (tmp_path / "b" / "scenes.jsonl").read_text()
    records = [json.loads(line) for line in a.splitlines()]
    assert len(records) == 3 and all((tmp_path / "a" / r["image"]).is_file() for r in records)
    font = make_scenes.font_sprites()
    committed = load_sprites()
    for name in ("dog", "apple", "car"):  # the committed sprites are the font's glyphs
        assert np.array_equal(np.asarray(font[name]), np.asarray(committed[name]))
