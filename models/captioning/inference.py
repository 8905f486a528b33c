"""The captioner's user-facing API: an image in, a :class:`CaptionResult` (the caption, its
attention maps, gates and sampled locations) out (Xu et al. 2015)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from models.captioning.decoding import beam_caption, force, sample_locations
from models.captioning.model import ShowAttendTell, Vocab


@dataclass(frozen=True)
class CaptionResult:
    """One image's caption and the attention behind it.

    words: the caption, T words (no <end>). alphas: (T, grid, grid), the attention map alpha_t used
    to emit words[t]; each map sums to 1. betas: (T,), the gate beta_t per word (in (0, 1)).
    word_log_probs: (T,), log p(words[t] | ...). end_log_prob: log p(<end>) after the last word.
    locations: (N, T) flat indices into the grid (row * grid + col): for each of N seeded samples
    the location hard attention sampled from alpha_t while saying words[t] (forced on ``words``);
    (0, T) when no samples were asked for. attention: "soft" or "hard".
    """

    words: list[str]
    alphas: np.ndarray
    betas: np.ndarray
    word_log_probs: np.ndarray
    end_log_prob: float
    locations: np.ndarray
    attention: str

    @property
    def alpha_sum(self) -> np.ndarray:
        """(grid, grid): sum_t alpha_t, which the doubly stochastic penalty pushes towards 1."""
        return self.alphas.sum(0)

    @property
    def log_prob(self) -> float:
        return float(self.word_log_probs.sum() + self.end_log_prob)


def describe(
    model: ShowAttendTell,
    features: torch.Tensor,
    vocab: Vocab,
    *,
    beam: int = 1,
    words: list[str] | None = None,
    samples: int = 0,
    seed: int = 0,
) -> CaptionResult:
    """Caption features (1, L, D) by beam search (or take ``words``: forced decoding) and return the
    maps; with samples > 0, also hard attention's sampled locations for N seeded samples."""
    words = beam_caption(model, features, vocab, beam) if words is None else list(words)
    alphas, betas, logps, end_logp = force(model, features, vocab, words)
    g = model.cfg.grid
    return CaptionResult(
        words=words,
        alphas=alphas.reshape(len(words), g, g),
        betas=betas,
        word_log_probs=logps,
        end_log_prob=end_logp,
        locations=sample_locations(model, features, vocab, words, samples, seed),
        attention=model.cfg.attention,
    )


class Captioner:
    """Encoder + decoder + vocabulary: an image (uint8 RGB 224 x 224) in, a CaptionResult out."""

    def __init__(
        self, encoder: nn.Module, decoder: ShowAttendTell, vocab: Vocab, device: str = "cpu"
    ) -> None:
        self.encoder, self.decoder, self.vocab, self.device = encoder, decoder, vocab, device

    @torch.inference_mode()
    def features(self, image: np.ndarray) -> torch.Tensor:
        """(224, 224, 3) uint8 -> annotations (1, L, D) on the device."""
        from models.captioning.image_encoder import encode

        return encode(self.encoder, image, self.device)

    @torch.inference_mode()
    def describe(
        self,
        image: np.ndarray,
        *,
        beam: int = 1,
        words: list[str] | None = None,
        samples: int = 0,
        seed: int = 0,
    ) -> CaptionResult:
        """Caption (or force ``words`` on) one image; see ``describe``."""
        feats = self.features(image)
        return describe(
            self.decoder, feats, self.vocab, beam=beam, words=words, samples=samples, seed=seed
        )
