"""Scene sets for the captioners, with the frozen encoder's features cached under ``runs/``.

A set is identified by (seed, n); it is generated and encoded in shards of SHARD scenes, each
saved as ``runs/caption-features/seed-S/shard-K.npz`` (features fp16 (n, L, D), captions, boxes),
so that an interrupted run loses at most one shard and a training run can start on the shards
that are ready.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from tqdm import tqdm

from media.scenes import load_sprites, random_scene
from models.captioning.image_encoder import encode, load_encoder

RUNS = Path(__file__).resolve().parent.parent / "runs"
FEATURES = RUNS / "caption-features"
SHARD = 250


@dataclass(frozen=True)
class SceneSet:
    """Encoded scenes: features (N, L, D) float16, captions (N strings), boxes (per scene, in caption order)."""

    features: np.ndarray
    captions: list[str]
    boxes: list[list[list[int]]]


def scene_sprites() -> dict[str, Image.Image]:
    """Font-rendered sprites when the font is installed (training), else the committed ones."""
    try:
        from training.make_scenes import font_sprites

        return font_sprites()
    except SystemExit:
        return load_sprites()


def encode_shard(seed: int, start: int, stop: int, encoder, sprites, device: str = "cpu") -> dict:
    """Scenes start..stop-1 of set ``seed``, encoded one by one (fastest on a busy CPU)."""
    feats, captions, boxes = [], [], []
    for i in range(start, stop):
        scene = random_scene(seed, i, sprites)
        feats.append(encode(encoder, scene.image, device)[0].to("cpu", torch.float16).numpy())
        captions.append(" ".join(scene.caption))
        boxes.append([list(o.box) for o in scene.objects])
    return {"features": np.stack(feats), "captions": captions, "boxes": boxes}


def build_set(seed: int, n: int, device: str = "cpu", folder: Path = FEATURES) -> None:
    """Generate and encode every missing shard of set (seed, n)."""
    out = folder / f"seed-{seed}"
    out.mkdir(parents=True, exist_ok=True)
    encoder, sprites = load_encoder(device), scene_sprites()
    for start in tqdm(range(0, n, SHARD), desc=f"shards of seed {seed}", unit="shard"):
        path = out / f"shard-{start // SHARD:04d}.npz"
        if path.is_file():
            continue
        shard = encode_shard(seed, start, min(n, start + SHARD), encoder, sprites, device)
        meta = json.dumps({"captions": shard["captions"], "boxes": shard["boxes"]})
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, features=shard["features"], meta=np.array(meta))
        tmp.replace(path)


def load_set(seed: int, n: int | None = None, folder: Path = FEATURES) -> SceneSet:
    """The ready shards of set ``seed`` (at most n scenes); FileNotFoundError when none."""
    paths = sorted((folder / f"seed-{seed}").glob("shard-[0-9]*.npz"))
    if not paths:
        raise FileNotFoundError(f"no encoded scenes for seed {seed} in {folder}")
    feats, captions, boxes = [], [], []
    for path in paths:
        with np.load(path) as data:
            feats.append(data["features"])
            meta = json.loads(str(data["meta"]))
        captions += meta["captions"]
        boxes += meta["boxes"]
    n = len(captions) if n is None else min(n, len(captions))
    return SceneSet(np.concatenate(feats)[:n], captions[:n], boxes[:n])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    build_set(args.seed, args.n)


if __name__ == "__main__":
    main(sys.argv[1:])
