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
- eq. 14    soft training loss ``-log P(y|x) + lambda sum_i (1 - sum_t alpha_ti)^2`` (doubly
            stochastic attention).
- eq. 10-12 hard training: REINFORCE with reward ``log p(y | s, a)``, a moving-average baseline and
            an entropy bonus; with probability 0.5 per image, s is replaced by its expectation.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
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
        idx = loc.view(-1, 1, 1).expand(-1, 1, memory.annotations.shape[-1])  # (B, 1, A)
        return memory.annotations.gather(1, idx).squeeze(1), loc  # (B, A)

    def step(
        self,
        words: torch.Tensor,
        state: tuple[torch.Tensor, torch.Tensor],
        memory: Memory,
        mode: str = "soft",
        generator: torch.Generator | None = None,
        location: torch.Tensor | None = None,
    ) -> StepOutput:
        """One step: previous words (B,) -> logits for the next word (eqs. 1-7)."""
        h, c = state
        alphas = self.attend(memory, h)  # (B, L)
        beta = torch.sigmoid(self.f_beta(h)).squeeze(-1)  # (B,)
        if location is None:
            ctx, loc = self.context(memory, alphas, mode, generator)  # (B, A), (B,)
        else:
            loc = location
            idx = loc.view(-1, 1, 1).expand(-1, 1, memory.annotations.shape[-1])
            ctx = memory.annotations.gather(1, idx).squeeze(1)  # (B, A)
        z = beta.unsqueeze(-1) * ctx  # (B, A)
        embedded = self.embedding(words)  # (B, E)
        h, c = self.lstm(torch.cat([embedded, z], dim=-1), (h, c))  # (B, H)
        out = self.dropout(embedded + self.L_h(h) + self.L_z(z))  # (B, E)
        return StepOutput(self.L_o(out), alphas, beta, (h, c), loc)

    def default_mode(self) -> str:
        """Inference: the expectation for soft attention, the most likely location for hard."""
        return "soft" if self.cfg.attention == "soft" else "argmax"


# ---------------------------------------------------------------- training passes and losses


@dataclass(frozen=True)
class ForcedPass:
    """A teacher-forced pass over a batch: logits (B, T, V), alphas (B, T, L), betas (B, T),
    log_p_locations (B, T) = log alpha at the sampled location (0 where the expectation was used),
    entropy (B, T) of each alpha distribution."""

    logits: torch.Tensor
    alphas: torch.Tensor
    betas: torch.Tensor
    log_p_locations: torch.Tensor
    entropy: torch.Tensor


def forced_pass(
    model: ShowAttendTell,
    features: torch.Tensor,
    inputs: torch.Tensor,
    sampled: torch.Tensor | None = None,
    generator: torch.Generator | None = None,
) -> ForcedPass:
    """Teacher forcing on ``inputs`` (B, T) (<start> w_1 ... w_{T-1}); ``sampled`` (B,) bool marks the
    images that use a sampled location (hard attention); the others use the expectation (soft)."""
    memory, state = model.memory(features)
    logits, alphas, betas, logps, ents = [], [], [], [], []
    for t in range(inputs.shape[1]):
        h = state[0]
        alpha = model.attend(memory, h)  # (B, L)
        location = None
        if sampled is not None:
            loc = torch.multinomial(alpha.detach(), 1, generator=generator).squeeze(-1)  # (B,)
            logps.append(torch.log(alpha.gather(1, loc[:, None]).squeeze(1) + 1e-12) * sampled)
            location = loc
        out = _forced_step(model, inputs[:, t], state, memory, alpha, location, sampled)
        state = out.state
        logits.append(out.logits)
        alphas.append(alpha)
        betas.append(out.beta)
        ents.append(-(alpha * torch.log(alpha + 1e-12)).sum(-1))  # (B,)
    zeros = torch.zeros_like(inputs, dtype=torch.float)
    return ForcedPass(
        torch.stack(logits, 1), torch.stack(alphas, 1), torch.stack(betas, 1),
        torch.stack(logps, 1) if logps else zeros, torch.stack(ents, 1),
    )  # fmt: skip


def _forced_step(
    model: ShowAttendTell,
    words: torch.Tensor,
    state: tuple[torch.Tensor, torch.Tensor],
    memory: Memory,
    alpha: torch.Tensor,
    location: torch.Tensor | None,
    sampled: torch.Tensor | None,
) -> StepOutput:
    """One teacher-forced step with given alphas: soft context, or per image a sampled a_{s_t}."""
    h, c = state
    beta = torch.sigmoid(model.f_beta(h)).squeeze(-1)  # (B,)
    ctx = weighted_sum(alpha.unsqueeze(1), memory.annotations).squeeze(1)  # (B, A)
    if location is not None and sampled is not None:
        idx = location.view(-1, 1, 1).expand(-1, 1, memory.annotations.shape[-1])
        hard_ctx = memory.annotations.gather(1, idx).squeeze(1)  # (B, A)
        ctx = torch.where(sampled[:, None], hard_ctx, ctx)
    z = beta.unsqueeze(-1) * ctx  # (B, A)
    embedded = model.embedding(words)  # (B, E)
    h, c = model.lstm(torch.cat([embedded, z], dim=-1), (h, c))
    out = model.dropout(embedded + model.L_h(h) + model.L_z(z))  # (B, E)
    return StepOutput(model.L_o(out), alpha, beta, (h, c), alpha.argmax(-1))


def caption_nll(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """-log p(y | a) per caption (B,): summed over the non-pad target words."""
    nll = nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (B, T)
    return (nll * (targets != 0)).sum(1)


def doubly_stochastic_penalty(alphas: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """sum_i (1 - sum_t alpha_ti)^2 per caption (B,) over the real steps (eq. 14)."""
    mask = (targets != 0).float().unsqueeze(-1)  # (B, T, 1)
    total = (alphas * mask).sum(1)  # (B, L)
    return ((1.0 - total) ** 2).sum(1)


def soft_loss(model: ShowAttendTell, features, inputs, targets, penalty: float) -> torch.Tensor:  # noqa: ANN001
    """Mean over the batch of -log P(y|x) + lambda * the doubly stochastic penalty (eq. 14)."""
    fp = forced_pass(model, features, inputs)
    return (
        caption_nll(fp.logits, targets) + penalty * doubly_stochastic_penalty(fp.alphas, targets)
    ).mean()


@dataclass
class Baseline:
    """The moving average b_k = decay b_{k-1} + (1 - decay) log p(y | s_k, a) (section 4.1)."""

    value: float = 0.0
    decay: float = 0.9
    started: bool = False

    def update(self, reward: float) -> None:
        self.value = (
            reward if not self.started else self.decay * self.value + (1 - self.decay) * reward
        )
        self.started = True


def hard_loss(
    model: ShowAttendTell, features, inputs, targets, baseline: Baseline,  # noqa: ANN001
    reinforce: float = 1.0, entropy: float = 0.01, generator: torch.Generator | None = None,
) -> torch.Tensor:  # fmt: skip
    """The hard-attention objective (eq. 12): -[log p(y|s,a) + lambda_r (log p(y|s,a) - b)
    log p(s|a) + lambda_e H[s]]; with probability 0.5 per image s is replaced by its expectation."""
    B = features.shape[0]
    sampled = torch.rand(B, generator=generator) < 0.5  # (B,)
    fp = forced_pass(model, features, inputs, sampled.to(features.device), generator)
    nll = caption_nll(fp.logits, targets)  # (B,)
    mask = (targets != 0).float()  # (B, T)
    reward = -nll.detach()  # log p(y | s, a)
    advantage = (reward - baseline.value) * sampled.to(reward.device)  # (B,)
    log_p_s = (fp.log_p_locations * mask).sum(1)  # (B,)
    ent = (fp.entropy * mask).sum(1)  # (B,)
    if bool(sampled.any()):
        baseline.update(float(reward[sampled.to(reward.device)].mean()))
    return (nll - reinforce * advantage * log_p_s - entropy * ent).mean()


# ---------------------------------------------------------------- inference


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


def _expand(memory: Memory, state: tuple[torch.Tensor, torch.Tensor], k: int):  # noqa: ANN202
    """Repeat a single image's memory and state k times along the batch."""
    mem = Memory(memory.annotations.expand(k, -1, -1), memory.keys.expand(k, -1, -1))
    return mem, (state[0].expand(k, -1).contiguous(), state[1].expand(k, -1).contiguous())


@torch.inference_mode()
def beam_search(
    model: ShowAttendTell, features: torch.Tensor, vocab: Vocab, beam: int = 1
) -> list[str]:
    """The most probable caption under beam search (beam 1 = greedy); features (1, L, D)."""
    if not 1 <= beam <= 5:
        raise ValueError(f"beam must be between 1 and 5, got {beam}")
    memory, state = _expand(*model.memory(features), 1)
    words = torch.full((1,), vocab.stoi[START], dtype=torch.long, device=features.device)
    seqs, scores = [[]], torch.zeros(1, device=features.device)
    finished: list[tuple[float, list[int]]] = []
    end = vocab.stoi[END]
    for _ in range(model.cfg.max_len):
        out = model.step(words, state, memory, model.default_mode())
        logp = torch.log_softmax(out.logits, -1)  # (k, V)
        logp[:, : len(SPECIALS)] = torch.where(torch.arange(len(SPECIALS), device=logp.device) == end, logp[:, : len(SPECIALS)], -torch.inf)  # fmt: skip
        top = (scores[:, None] + logp).flatten().topk(beam)
        keep = []
        for value, flat in zip(top.values.tolist(), top.indices.tolist(), strict=True):
            hyp, word = divmod(flat, logp.shape[1])
            if word == end:
                finished.append((value, seqs[hyp]))
            else:
                keep.append((value, hyp, word))
        if not keep or (finished and max(f[0] for f in finished) >= keep[0][0]):
            break
        hyps = torch.tensor([h for _, h, _ in keep], device=features.device)
        seqs = [seqs[h] + [w] for _, h, w in keep]
        scores = torch.tensor([v for v, _, _ in keep], device=features.device)
        words = torch.tensor([w for _, _, w in keep], device=features.device)
        state = (out.state[0][hyps], out.state[1][hyps])
        memory, _ = _expand(Memory(memory.annotations[:1], memory.keys[:1]), state, len(keep))
    best = max(finished, key=lambda f: f[0])[1] if finished else seqs[0]
    return vocab.decode(best)


@torch.inference_mode()
def force(
    model: ShowAttendTell, features: torch.Tensor, vocab: Vocab, words: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Forced decoding of ``words``: (alphas (T, L), betas (T,), word log-probs (T,), log p(<end>))."""
    memory, state = model.memory(features)  # (1, L, A)
    ids = vocab.encode(words) + [vocab.stoi[END]]
    prev = torch.tensor([vocab.stoi[START]], device=features.device)
    alphas, betas, logps = [], [], []
    for target in ids:
        out = model.step(prev, state, memory, model.default_mode())
        logps.append(float(torch.log_softmax(out.logits, -1)[0, target]))
        alphas.append(out.alphas[0])
        betas.append(out.beta[0])
        state, prev = out.state, torch.tensor([target], device=features.device)
    a = torch.stack(alphas[:-1]).cpu().numpy() if words else np.zeros((0, features.shape[1]))
    b = torch.stack(betas[:-1]).cpu().numpy() if words else np.zeros(0)
    return a, b, np.array(logps[:-1]), logps[-1]


@torch.inference_mode()
def sample_locations(
    model: ShowAttendTell, features: torch.Tensor, vocab: Vocab, words: list[str], n: int, seed: int
) -> np.ndarray:
    """(n, T) locations sampled from alpha_t, s_t ~ Multinoulli(alpha_t), along ``words`` (section 4.1)."""
    if n <= 0 or not words:
        return np.zeros((0, len(words)), dtype=np.int64)
    generator = torch.Generator(device=features.device).manual_seed(seed)
    memory, state = _expand(*model.memory(features), n)
    prev = torch.full((n,), vocab.stoi[START], dtype=torch.long, device=features.device)
    locations = []
    for word_id in vocab.encode(words):
        out = model.step(prev, state, memory, "sample", generator)
        locations.append(out.location)
        state, prev = out.state, torch.full_like(prev, word_id)
    return torch.stack(locations, 1).cpu().numpy()  # (n, T)


def describe(
    model: ShowAttendTell, features: torch.Tensor, vocab: Vocab, *, beam: int = 1,
    words: list[str] | None = None, samples: int = 0, seed: int = 0,
) -> CaptionResult:  # fmt: skip
    """Caption features (1, L, D) by beam search (or take ``words``: forced decoding) and return the
    maps; with samples > 0, also hard attention's sampled locations for N seeded samples."""
    words = beam_search(model, features, vocab, beam) if words is None else list(words)
    alphas, betas, logps, end_logp = force(model, features, vocab, words)
    g = model.cfg.grid
    return CaptionResult(
        words=words, alphas=alphas.reshape(len(words), g, g), betas=betas,
        word_log_probs=logps, end_log_prob=end_logp,
        locations=sample_locations(model, features, vocab, words, samples, seed),
        attention=model.cfg.attention,
    )  # fmt: skip


class Captioner:
    """Encoder + decoder + vocabulary: an image (uint8 RGB 224 x 224) in, a CaptionResult out."""

    def __init__(
        self, encoder: nn.Module, decoder: ShowAttendTell, vocab: Vocab, device: str = "cpu"
    ) -> None:
        self.encoder, self.decoder, self.vocab, self.device = encoder, decoder, vocab, device

    @torch.inference_mode()
    def features(self, image: np.ndarray) -> torch.Tensor:
        """(224, 224, 3) uint8 -> annotations (1, L, D) on the device."""
        from models.captioning.image_encoder import encode  # noqa: PLC0415

        return encode(self.encoder, image, self.device)

    @torch.inference_mode()
    def describe(
        self, image: np.ndarray, *, beam: int = 1, words: list[str] | None = None,
        samples: int = 0, seed: int = 0,
    ) -> CaptionResult:  # fmt: skip
        """Caption (or force ``words`` on) one image; see ``describe``."""
        feats = self.features(image)
        return describe(
            self.decoder, feats, self.vocab, beam=beam, words=words, samples=samples, seed=seed
        )
