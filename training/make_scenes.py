"""Generate emoji scenes with captions read off their layout, and export the committed sprites.

    python -m training.make_scenes --n 4000 --seed 1 --out runs/scenes-1
    python -m training.make_scenes --export-sprites assets/sprites

Glyphs come from Debian's Noto Color Emoji (``make font``: ``apt-get install fonts-noto-color-emoji``),
drawn by Pillow at the font's bitmap size 109 with ``embedded_color=True``, cropped to their
visible pixels and scaled so that the longest side is ``SPRITE_PX``: exactly the sprites that
``assets/sprites/`` holds, so that scenes from the font and scenes composed by the app look alike.
Writes ``DIR/images/NNNNNN.png`` and ``DIR/scenes.jsonl`` (caption and boxes per line).
Deterministic for a seed: scene i depends only on (seed, i).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from tqdm import tqdm

from media.scenes import CATALOGUE, SPRITE_PX, SPRITES_DIR, random_scene, scene_record

FONT_CANDIDATES = (
    Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"),
    Path("/usr/share/fonts/noto/NotoColorEmoji.ttf"),
)
LICENCE_SOURCE = Path("/usr/share/doc/fonts-noto-color-emoji/copyright")


def find_font() -> Path:
    """The Noto Color Emoji file; SystemExit naming the package when it is not installed."""
    for path in FONT_CANDIDATES:
        if path.is_file():
            return path
    found = sorted(Path("/usr/share/fonts").rglob("NotoColorEmoji.ttf"))
    if found:
        return found[0]
    raise SystemExit(
        "NotoColorEmoji.ttf not found: run `make font` (apt-get install fonts-noto-color-emoji)"
    )


def render_glyph(font: ImageFont.FreeTypeFont, code_point: int) -> Image.Image:
    """One emoji as an RGBA sprite: drawn at size 109, cropped to its pixels, longest side SPRITE_PX."""
    canvas = Image.new("RGBA", (160, 160), (0, 0, 0, 0))
    ImageDraw.Draw(canvas).text((10, 10), chr(code_point), font=font, embedded_color=True)
    bbox = canvas.getbbox()
    if bbox is None:
        raise ValueError(f"U+{code_point:04X} draws nothing in this font")
    glyph = canvas.crop(bbox)
    scale = SPRITE_PX / max(glyph.size)
    size = tuple(max(1, round(s * scale)) for s in glyph.size)
    return glyph.resize(size, Image.LANCZOS)


def font_sprites() -> dict[str, Image.Image]:
    """Every catalogue object rendered from the font."""
    font = ImageFont.truetype(str(find_font()), 109)
    return {name: render_glyph(font, cp) for name, cp in CATALOGUE.items()}


def export_sprites(out: Path) -> None:
    """Write one PNG per object, the licence of the font, and a list of names and code points."""
    out.mkdir(parents=True, exist_ok=True)
    for name, sprite in font_sprites().items():
        sprite.save(out / f"{name}.png", optimize=True)
    if LICENCE_SOURCE.is_file():
        shutil.copy(LICENCE_SOURCE, out / "LICENSE-NotoColorEmoji.txt")
    index = {name: f"U+{cp:04X}" for name, cp in CATALOGUE.items()}
    (out / "catalogue.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"wrote {len(index)} sprites to {out}")


def make_scenes(n: int, seed: int, out: Path, sprites: dict[str, Image.Image]) -> None:
    """Write n scenes and their records (caption, boxes) to ``out``."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    with (out / "scenes.jsonl").open("w") as records:
        for i in tqdm(range(n), desc="scenes", unit="scene"):
            scene = random_scene(seed, i, sprites)
            name = f"{i:06d}.png"
            Image.fromarray(scene.image).save(out / "images" / name)
            records.write(json.dumps({"image": f"images/{name}", **scene_record(scene)}) + "\n")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--n", type=int, default=1000, help="number of scenes")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, help="output folder for scenes")
    p.add_argument(
        "--export-sprites",
        type=Path,
        nargs="?",
        const=SPRITES_DIR,
        metavar="DIR",
        help=f"write the sprite set instead (default {SPRITES_DIR})",
    )
    args = p.parse_args(argv)
    if args.export_sprites:
        export_sprites(args.export_sprites)
        return
    if args.out is None:
        p.error("--out is required when generating scenes")
    make_scenes(args.n, args.seed, args.out, font_sprites())


if __name__ == "__main__":
    main(sys.argv[1:])
