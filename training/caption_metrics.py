"""Caption quality on encoded scenes: exact match, localization of the attention, BLEU-4.

- exact_match: the decoded caption equals the caption read off the layout, word for word.
- localization: for each object word of the decoded caption, the argmax of alpha_t (soft) or each of
  N sampled locations s_t (hard) lies in a grid cell that overlaps that object's box (cells are
  16 x 16 pixels); an object word naming something not in the scene counts as a miss.
- bleu4: corpus BLEU-4 of the decoded captions (sacreBLEU, whitespace tokens).
"""

from __future__ import annotations

import numpy as np
import sacrebleu
import torch

from media.scenes import OBJECT_NAMES
from models.captioning.image_encoder import INPUT_SIZE
from models.captioning.inference import describe
from models.captioning.model import ShowAttendTell, Vocab

OBJECTS = set(OBJECT_NAMES)


def cell_in_box(location: int, box: list[int] | tuple[int, ...], grid: int) -> bool:
    """Whether grid cell ``location`` (row * grid + col) overlaps box (x0, y0, x1, y1) in pixels."""
    cell = INPUT_SIZE / grid
    row, col = divmod(int(location), grid)
    x0, y0, x1, y1 = box
    return col * cell < x1 and (col + 1) * cell > x0 and row * cell < y1 and (row + 1) * cell > y0


def localization_hits(
    words: list[str], locations: np.ndarray, names: list[str], boxes: list, grid: int
) -> tuple[int, int]:
    """(hits, trials) for object words; locations (N, T) or (T,) flat cell indices."""
    locs = np.atleast_2d(locations)  # (N, T)
    hits = trials = 0
    for t, word in enumerate(words):
        if word not in OBJECTS:
            continue
        trials += locs.shape[0]
        if word in names:
            box = boxes[names.index(word)]
            hits += sum(cell_in_box(loc, box, grid) for loc in locs[:, t])
    return hits, trials


@torch.inference_mode()
def caption_scores(
    model: ShowAttendTell,
    vocab: Vocab,
    features: np.ndarray,
    captions: list[str],
    boxes: list,
    *,
    device: str = "cpu",
    beam: int = 1,
    samples: int = 10,
    seed: int = 0,
) -> dict:
    """Exact match, localization (argmax for soft, N sampled locations for hard) and BLEU-4."""
    model.eval()
    hyps, exact, hits, trials = [], 0, 0, 0
    hard = model.cfg.attention == "hard"
    for i, (ref, scene_boxes) in enumerate(zip(captions, boxes, strict=True)):
        feats = torch.from_numpy(np.asarray(features[i], dtype=np.float32))[None].to(device)
        result = describe(
            model, feats, vocab, beam=beam, samples=samples if hard else 0, seed=seed + i
        )
        hyps.append(" ".join(result.words))
        exact += hyps[-1] == ref
        names = _names_in_order(ref)
        locs = result.locations if hard else result.alphas.reshape(len(result.words), -1).argmax(-1)
        h, n = localization_hits(result.words, locs, names, scene_boxes, model.cfg.grid)
        hits, trials = hits + h, trials + n
    bleu = sacrebleu.corpus_bleu(hyps, [captions], tokenize="none").score
    return {
        "n": len(captions),
        "exact_match": exact / max(1, len(captions)),
        "localization": hits / max(1, trials),
        "bleu4": bleu,
        "localization_of": "sampled locations" if hard else "argmax of alpha",
    }


def _names_in_order(caption: str) -> list[str]:
    """Object names of a reference caption, in order (the order of the boxes)."""
    return [w for w in caption.split() if w in OBJECTS]
