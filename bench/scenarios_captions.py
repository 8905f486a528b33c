"""Image captions: caption + maps for one image (encoder included), model load, and the page's
example picker -> redrawn overlays.

Floors: caption plus maps for one image <= 150 ms (greedy, encoder included), model
load <= 1 s. Times are wall-clock medians with one torch thread, as the app runs.
"""

from __future__ import annotations

import statistics
import time

from bench.register import RENDERED, Row, Scenario, register, timing

TRIES = 15


def _median_ms(func, tries: int = TRIES) -> float:
    times = []
    for _ in range(tries):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


@timing
def caption_timings() -> list[Row]:
    """Load (encoder + decoder) and caption + maps per image, for each shipped captioner."""
    import torch

    from media.scenes import load_sprites, random_scene
    from models.captioning.checkpoint import CAPTION_MODELS, load_captioner
    from models.captioning.image_encoder import load_encoder
    from models.captioning.inference import Captioner
    from models.checkpoints import CheckpointError

    torch.set_num_threads(1)
    sprites = load_sprites()
    images = [random_scene(2026, i, sprites).image for i in range(4)]
    rows = []
    for name in CAPTION_MODELS:
        try:
            start = time.perf_counter()
            decoder, vocab = load_captioner(name)
            captioner = Captioner(load_encoder(), decoder, vocab)
            load = time.perf_counter() - start
        except CheckpointError as exc:
            rows.append(Row(f"captions: {name}", "missing", str(exc)[:60]))
            continue
        rows.append(Row(f"captions: load {name} (encoder + decoder)", f"{load:.2f} s", "floor 1 s"))
        samples = 20 if name.endswith("hard") else 0
        ms = _median_ms(
            lambda c=captioner, s=samples: [c.describe(im, beam=1, samples=s) for im in images]
        ) / len(images)
        note = f"floor 150 ms; greedy{', 20 samples' if samples else ''}"
        rows.append(Row(f"captions: caption + maps, {name}", f"{ms:.0f} ms", note))
    return rows


def _pick(page, i: int) -> None:  # a playwright Page
    """Move the example picker one step right (even tries) or left (odd tries)."""
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")


def _shows_example(i: int) -> str:
    expected = 1 if i % 2 == 0 else 0
    return f"() => location.search.includes('cap_ex={expected}') && ({RENDERED})()"


register(
    Scenario(
        name="captions (example picker -> overlays, soft + hard)",
        url_path="captions?cap_ex=0",
        interact=_pick,
        redrawn=_shows_example,
    )
)
