"""Show, Attend and Tell (Xu et al. 2015): an LSTM decoder with soft or hard attention over a grid.

Notation of the paper. Annotation vectors ``a_i`` (i = 1..L, L = 14 x 14) come from a frozen CNN
(``models.captioning.image_encoder``; here passed through a learned per-location projection). At step t:

- eq. 4-5   scores ``e_ti = f_att(a_i, h_{t-1}) = v^T tanh(W_a a_i + W_h h_{t-1})`` (the additive
            score of ``models.attention``) and alphas ``alpha_ti = softmax_i(e_ti)``.
- eq. 6     context ``z_t = phi({a_i}, {alpha_i})``:
            soft (section 4.2): ``z_t = beta_t sum_i alpha_ti a_i`` with the gating scalar
            ``beta_t = sigmoid(f_beta(h_{t-1}))`` (section 4.2.1);
            hard (section 4.1): one location ``s_t ~ Multinoulli_L({alpha_i})`` and
            ``z_t = beta_t a_{s_t}`` (we keep the gate in both, so that beta can be shown for both).
- eq. 1-3   LSTM on ``[E y_{t-1}; z_t]``; initial ``h_0, c_0`` from MLPs of the mean annotation (eq. 5).
- eq. 7     deep output ``p(y_t) = softmax(L_o(E y_{t-1} + L_h h_t + L_z z_t))``.

The training objectives (eq. 14 for soft attention, eqs. 10-12 for hard) are in
``training/caption_losses.py``; the teacher-forced pass and the decoding loops in
``models.captioning.decoding``; the user-facing result and :class:`Captioner` in
``models.captioning.inference``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from models.attention import masked_softmax, weighted_sum

DEPARTURES = (
    "annotation vectors are a learned projection of [LayerNorm(CNN features); cell x, y]: the "
    "captions name spatial relations, and VGG-style features carry position only implicitly",
    "the doubly stochastic penalty uses a small lambda (0.001 for the shipped soft model; the "
    "paper: 1): our captions are short "
    "(T <= 20) against L = 196 locations, and a large lambda flattened the maps",
    "the gate beta is applied in both models (the paper introduces it for soft attention)",
    "hard attention at inference attends the most likely location (argmax of alpha); the sampled "
    "locations are drawn separately, N seeded samples forced along the caption",
    "training uses a curriculum: 1-object scenes for the first epochs, then up to 2, 3 and 4 "
    "objects (without it, attention stayed flat within the steps a shared CPU allowed)",
)
PAD, START, END, UNK = "<pad>", "<start>", "<end>", "<unk>"
SPECIALS = (PAD, START, END, UNK)
ATTENTION_KINDS = ("soft", "hard")
LOCATION_MODES = ("soft", "argmax", "sample")  # how z_t is formed at inference


class Vocab:
    """Words <-> ids; ids 0..3 are <pad>, <start>, <end>, <unk>."""

    def __init__(self, words: list[str]) -> None:
        self.itos = list(SPECIALS) + [w for w in words if w not in SPECIALS]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, words: list[str] | tuple[str, ...]) -> list[int]:
        """Word ids, unknown words as <unk>."""
        return [self.stoi.get(w, self.stoi[UNK]) for w in words]

    def decode(self, ids: list[int]) -> list[str]:
        """Words up to (not including) <end>, specials dropped."""
        words = []
        for i in ids:
            if i == self.stoi[END]:
                break
            if i >= len(SPECIALS):
                words.append(self.itos[i])
        return words


@dataclass(frozen=True)
class CaptionConfig:
    """Constructor arguments of a ``ShowAttendTell`` decoder (stored as config.json)."""

    vocab_size: int  # words including the four specials
    attention: str = "soft"  # "soft" | "hard"
    feature_dim: int = 112  # D of the encoder's annotation vectors
    grid: int = 14  # the feature map is grid x grid: L = grid^2
    annotation_dim: int = 192  # a_i after the learned per-location projection of [features; x, y]
    embed_dim: int = 64  # word embedding E y
    hidden: int = 256  # LSTM state
    attention_dim: int = 128  # inner size of f_att
    dropout: float = 0.3  # before the deep output layer
    max_len: int = 24  # decoding stops after this many words

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class StepOutput:
    """One decoder step for a batch: logits (B, V), alphas (B, L), beta (B,), new (h, c), location (B,)
    (the attended location for hard/argmax/sample modes, argmax of alphas for soft)."""

    logits: torch.Tensor
    alphas: torch.Tensor
    beta: torch.Tensor
    state: tuple[torch.Tensor, torch.Tensor]
    location: torch.Tensor


@dataclass(frozen=True)
class Memory:
    """What the decoder attends over: annotations a (B, L, A) and their f_att projection (B, L, d_att)."""

    annotations: torch.Tensor
    keys: torch.Tensor

    def at(self, location: torch.Tensor) -> torch.Tensor:
        """The annotation a_{s_t} at each image's location (B,) -> (B, A)."""
        idx = location.view(-1, 1, 1).expand(-1, 1, self.annotations.shape[-1])  # (B, 1, A)
        return self.annotations.gather(1, idx).squeeze(1)  # (B, A)


def grid_coordinates(grid: int) -> torch.Tensor:
    """(grid * grid, 2): the (x, y) centre of every cell in [-1, 1], row-major like the features.

    Appended to each annotation vector before the projection: VGG's features in the paper carry
    position only implicitly, and our captions name spatial relations, so the decoder is told where
    each location is (a departure from the paper, stated in the card)."""
    centres = (torch.arange(grid, dtype=torch.float32) + 0.5) / grid * 2 - 1
    ys, xs = torch.meshgrid(centres, centres, indexing="ij")
    return torch.stack([xs.flatten(), ys.flatten()], dim=-1)


class ShowAttendTell(nn.Module):
    """The LSTM decoder with soft or hard attention (Xu et al. 2015, sections 3.1.2 and 4)."""

    def __init__(self, cfg: CaptionConfig) -> None:
        super().__init__()
        if cfg.attention not in ATTENTION_KINDS:
            raise ValueError(f"attention must be one of {ATTENTION_KINDS}, got {cfg.attention!r}")
        self.cfg = cfg
        A, H, E, d = cfg.annotation_dim, cfg.hidden, cfg.embed_dim, cfg.attention_dim
        self.feature_norm = nn.LayerNorm(cfg.feature_dim)  # the CNN's activations reach ~50
        self.project = nn.Sequential(nn.Linear(cfg.feature_dim + 2, A), nn.ReLU())
        self.register_buffer("coords", grid_coordinates(cfg.grid), persistent=False)  # (L, 2)
        self.init_h, self.init_c = nn.Linear(A, H), nn.Linear(A, H)
        self.embedding = nn.Embedding(cfg.vocab_size, E)
        self.att_key = nn.Linear(A, d)  # W_a
        self.att_query = nn.Linear(H, d, bias=False)  # W_h
        self.att_v = nn.Linear(d, 1, bias=False)  # v
        self.f_beta = nn.Linear(H, 1)
        self.lstm = nn.LSTMCell(E + A, H)
        self.L_h, self.L_z = nn.Linear(H, E), nn.Linear(A, E)
        self.L_o = nn.Linear(E, cfg.vocab_size)
        self.dropout = nn.Dropout(cfg.dropout)

    def memory(self, features: torch.Tensor) -> tuple[Memory, tuple[torch.Tensor, torch.Tensor]]:
        """features (B, L, D) -> annotations, f_att keys and the initial (h_0, c_0) (eq. 5)."""
        coords = self.coords.expand(features.shape[0], -1, -1)  # (B, L, 2)
        normed = self.feature_norm(features.float())  # (B, L, D)
        a = self.project(torch.cat([normed, coords], dim=-1))  # (B, L, A)
        mean = a.mean(dim=1)  # (B, A)
        state = (torch.tanh(self.init_h(mean)), torch.tanh(self.init_c(mean)))  # (B, H) each
        return Memory(a, self.att_key(a)), state  # keys (B, L, d)

    def attend(self, memory: Memory, h: torch.Tensor) -> torch.Tensor:
        """alphas (B, L) = softmax_i v^T tanh(W_a a_i + W_h h) (eqs. 4-5), via the attention core."""
        hidden = torch.tanh(memory.keys + self.att_query(h).unsqueeze(1))  # (B, L, d)
        scores = self.att_v(hidden).squeeze(-1)  # (B, L)
        return masked_softmax(scores)  # (B, L)

    def context(
        self, memory: Memory, alphas: torch.Tensor, mode: str, generator: torch.Generator | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """phi (eq. 6) before the gate: the expected annotation (soft) or one chosen a_{s_t};
        returns (context (B, A), location (B,))."""
        if mode == "soft":
            ctx = weighted_sum(alphas.unsqueeze(1), memory.annotations).squeeze(1)  # (B, A)
            return ctx, alphas.argmax(dim=-1)
        if mode == "argmax":
            loc = alphas.argmax(dim=-1)  # (B,)
        elif mode == "sample":
            loc = torch.multinomial(alphas, 1, generator=generator).squeeze(-1)  # (B,)
        else:
            raise ValueError(f"mode must be one of {LOCATION_MODES}, got {mode!r}")
        return memory.at(loc), loc  # (B, A), (B,)

    def gate(self, h: torch.Tensor) -> torch.Tensor:
        """beta_t = sigmoid(f_beta(h_{t-1})) (section 4.2.1): (B, H) -> (B,)."""
        return torch.sigmoid(self.f_beta(h)).squeeze(-1)

    def emit(
        self, words: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor], z: torch.Tensor
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """The LSTM on [E y_{t-1}; z_t] and the deep output (eqs. 1-3, 7): previous words (B,),
        (h, c), gated context z (B, A) -> (logits (B, V), new (h, c))."""
        embedded = self.embedding(words)  # (B, E)
        h, c = self.lstm(torch.cat([embedded, z], dim=-1), state)  # (B, H)
        out = self.dropout(embedded + self.L_h(h) + self.L_z(z))  # (B, E)
        return self.L_o(out), (h, c)

    def step(
        self,
        words: torch.Tensor,
        state: tuple[torch.Tensor, torch.Tensor],
        memory: Memory,
        mode: str = "soft",
        generator: torch.Generator | None = None,
    ) -> StepOutput:
        """One step: previous words (B,) -> logits for the next word (eqs. 1-7)."""
        alphas = self.attend(memory, state[0])  # (B, L)
        beta = self.gate(state[0])  # (B,)
        ctx, loc = self.context(memory, alphas, mode, generator)  # (B, A), (B,)
        logits, state = self.emit(words, state, beta.unsqueeze(-1) * ctx)
        return StepOutput(logits, alphas, beta, state, loc)

    def default_mode(self) -> str:
        """Inference: the expectation for soft attention, the most likely location for hard."""
        return "soft" if self.cfg.attention == "soft" else "argmax"
