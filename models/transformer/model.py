"""A small encoder-decoder Transformer whose attention weights are all kept (Vaswani et al. 2017).

"Attention Is All You Need" (Vaswani et al. 2017), the parts used here:

- section 3.1, Fig. 1: a stack of encoder layers (self-attention + position-wise feed-forward) and a
  stack of decoder layers (masked self-attention + encoder-decoder "cross" attention + feed-forward),
  each sub-layer wrapped in a residual connection and layer normalisation;
- section 3.2.1, eq. 1: scaled dot-product attention ``softmax(Q K^T / sqrt(d_k)) V``, computed by our
  own :func:`models.attention.scaled_dot_product_attention` so that the weights exist;
- section 3.2.2: multi-head attention (:class:`models.attention.MultiHeadAttention`);
- section 3.2.3: the decoder's self-attention is masked so position t sees positions <= t only
  ("preventing leftward information flow"), so its weights are exactly 0 above the diagonal;
- section 3.3, eq. 2: ``FFN(x) = max(0, x W_1 + b_1) W_2 + b_2``;
- section 3.4: embeddings multiplied by ``sqrt(d_model)``; the target embedding and the pre-softmax
  linear layer share one matrix (``tie_embeddings``; Press & Wolf 2017);
- section 3.5: sinusoidal positional encoding, or learned position embeddings (table 3, row (E));
- section 5.4: dropout 0.1 on each sub-layer's output and on the embedding sums; label smoothing
  (training/train_transformer.py).

One deliberate difference, recorded in the config as ``norm_first``: layer normalisation is applied
*before* each sub-layer (``x + Sublayer(LN(x))``, Xiong et al. 2020) with a final LN on each stack,
which trains reliably without a long warm-up; ``norm_first=False`` gives the paper's post-LN.

Weights use the BertViz layout ``(n_layers, n_heads, T_query, T_key)``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn

from models.attention import MultiHeadAttention
from models.tokenizer import PAD_ID
from models.transformer.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding

POSITIONAL_NAMES = ("sinusoidal", "learned")


@dataclass
class TransformerConfig:
    """Constructor arguments of :class:`Transformer`; saved as ``config.json`` with each checkpoint."""

    positional: str = "sinusoidal"  # "sinusoidal" (section 3.5) or "learned" (table 3 (E))
    src_vocab: int = 5000  # source subword vocabulary size
    tgt_vocab: int = 5000  # target subword vocabulary size
    d_model: int = 192  # model width (the paper's base model: 512)
    n_heads: int = 8  # attention heads per layer; d_k = d_model / n_heads
    d_ff: int = 768  # inner size of the position-wise feed-forward network
    enc_layers: int = 3  # encoder layers (the paper: 6)
    dec_layers: int = 3  # decoder layers (the paper: 6)
    dropout: float = 0.1  # residual, embedding and attention dropout (section 5.4)
    max_len: int = 128  # positions available (source and target, including <s> / </s>)
    max_src_len: int = 100  # longer sources are truncated (subwords, before </s>)
    max_tgt_len: int = 100  # decoding stops here at the latest
    tie_embeddings: bool = True  # generator shares the target embedding (section 3.4)
    norm_first: bool = True  # pre-LN (Xiong et al. 2020); False = the paper's post-LN

    def __post_init__(self) -> None:
        if self.positional not in POSITIONAL_NAMES:
            raise ValueError(
                f"unknown positional {self.positional!r}; choose one of {POSITIONAL_NAMES}"
            )
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model {self.d_model} is not divisible by n_heads {self.n_heads}")
        if self.max_len < max(self.max_src_len, self.max_tgt_len) + 1:
            raise ValueError(f"max_len {self.max_len} is shorter than the longest sequence + 1")

    def to_dict(self) -> dict:
        return asdict(self)


def key_padding_mask(ids: torch.Tensor) -> torch.Tensor:
    """ids (B, T) -> (B, 1, 1, T) bool, True = a real token (broadcasts over heads and queries)."""
    return (ids != PAD_ID)[:, None, None, :]


class FeedForward(nn.Sequential):
    """``max(0, x W_1 + b_1) W_2 + b_2`` (eq. 2): (B, T, d) -> (B, T, d)."""

    def __init__(self, d_model: int, d_ff: int, dropout: float):
        super().__init__(
            nn.Linear(d_model, d_ff), nn.ReLU(), nn.Dropout(dropout), nn.Linear(d_ff, d_model)
        )


class Residual(nn.Module):
    """``x + Dropout(Sublayer(LN(x)))`` (pre-LN) or ``LN(x + Dropout(Sublayer(x)))`` (post-LN)."""

    def __init__(self, d_model: int, dropout: float, norm_first: bool):
        super().__init__()
        self.norm, self.dropout, self.norm_first = (
            nn.LayerNorm(d_model),
            nn.Dropout(dropout),
            norm_first,
        )

    def forward(self, x: torch.Tensor, sublayer) -> tuple[torch.Tensor, torch.Tensor | None]:
        """sublayer(h) -> (out, weights or None); returns (new x (B, T, d), weights)."""
        out, weights = sublayer(self.norm(x) if self.norm_first else x)
        x = x + self.dropout(out)
        return (x if self.norm_first else self.norm(x)), weights


def _attention(cfg: TransformerConfig) -> MultiHeadAttention:
    return MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.dropout)


def _feed_forward(cfg: TransformerConfig) -> FeedForward:
    return FeedForward(cfg.d_model, cfg.d_ff, cfg.dropout)


def _residual(cfg: TransformerConfig) -> Residual:
    return Residual(cfg.d_model, cfg.dropout, cfg.norm_first)


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward (section 3.1)."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.self_attn, self.ff = _attention(cfg), _feed_forward(cfg)
        self.res_attn, self.res_ff = _residual(cfg), _residual(cfg)

    def forward(self, x: torch.Tensor, src_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, S, d), src_mask (B, 1, 1, S) -> (x (B, S, d), weights (B, H, S, S))."""
        x, weights = self.res_attn(x, lambda h: self.self_attn(h, h, h, mask=src_mask))
        x, _ = self.res_ff(x, lambda h: (self.ff(h), None))
        return x, weights


class DecoderLayer(nn.Module):
    """Masked self-attention, cross attention over the encoder output, feed-forward (section 3.1)."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.self_attn, self.cross_attn = _attention(cfg), _attention(cfg)
        self.ff = _feed_forward(cfg)
        self.res = nn.ModuleList(_residual(cfg) for _ in range(3))

    def forward(
        self, y: torch.Tensor, memory: torch.Tensor, src_mask: torch.Tensor, tgt_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """y (B, T, d), memory (B, S, d), src_mask (B, 1, 1, S), tgt_mask (B, 1, 1, T)
        -> (y (B, T, d), self weights (B, H, T, T), cross weights (B, H, T, S))."""
        y, self_w = self.res[0](y, lambda h: self.self_attn(h, h, h, mask=tgt_mask, causal=True))
        y, cross_w = self.res[1](y, lambda h: self.cross_attn(h, memory, memory, mask=src_mask))
        y, _ = self.res[2](y, lambda h: (self.ff(h), None))
        return y, self_w, cross_w


@dataclass
class EncoderOutput:
    """memory (B, S, d) the encoder's output (keys and values of cross attention); src_mask
    (B, 1, 1, S) True = real token; weights (L_enc, B, H, S, S) per layer's self-attention."""

    memory: torch.Tensor
    src_mask: torch.Tensor
    weights: torch.Tensor

    def select(self, index: torch.Tensor) -> EncoderOutput:
        """Rows ``index`` of the batch (beam search repeats one sentence K times)."""
        return EncoderOutput(self.memory[index], self.src_mask[index], self.weights[:, index])


@dataclass
class DecoderOutput:
    """logits (B, T, V); self_weights (L_dec, B, H, T, T); cross_weights (L_dec, B, H, T, S)."""

    logits: torch.Tensor
    self_weights: torch.Tensor
    cross_weights: torch.Tensor


class Transformer(nn.Module):
    """The encoder-decoder of Fig. 1 with every attention weight returned."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.cfg = cfg
        d = cfg.d_model
        self.src_embedding = nn.Embedding(cfg.src_vocab, d, padding_idx=PAD_ID)
        self.tgt_embedding = nn.Embedding(cfg.tgt_vocab, d, padding_idx=PAD_ID)
        positional = (
            SinusoidalPositionalEncoding
            if cfg.positional == "sinusoidal"
            else LearnedPositionalEmbedding
        )
        self.src_positions, self.tgt_positions = (
            positional(d, cfg.max_len),
            positional(d, cfg.max_len),
        )
        self.dropout = nn.Dropout(cfg.dropout)
        self.encoder = nn.ModuleList(EncoderLayer(cfg) for _ in range(cfg.enc_layers))
        self.decoder = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.dec_layers))
        self.enc_norm = nn.LayerNorm(d) if cfg.norm_first else nn.Identity()
        self.dec_norm = nn.LayerNorm(d) if cfg.norm_first else nn.Identity()
        self.generator = nn.Linear(d, cfg.tgt_vocab, bias=False)
        self._init_weights()

    def _init_weights(self) -> None:
        """Xavier-uniform matrices, N(0, d^-1/2) embeddings (they are scaled by sqrt(d) on use)."""
        for name, p in self.named_parameters():
            if p.dim() > 1 and "embedding" not in name:
                nn.init.xavier_uniform_(p)
        for emb in (self.src_embedding, self.tgt_embedding):
            nn.init.normal_(emb.weight, 0.0, self.cfg.d_model**-0.5)
            with torch.no_grad():
                emb.weight[PAD_ID].zero_()
        if isinstance(self.src_positions, LearnedPositionalEmbedding):
            for pos in (self.src_positions, self.tgt_positions):
                nn.init.normal_(pos.embedding.weight, 0.0, 0.02)
        if self.cfg.tie_embeddings:
            self.generator.weight = self.tgt_embedding.weight

    def _embed(
        self, ids: torch.Tensor, embedding: nn.Embedding, positions: nn.Module
    ) -> torch.Tensor:
        """ids (B, T) -> dropout(embedding * sqrt(d) + position) (B, T, d) (section 3.4)."""
        return self.dropout(positions(embedding(ids) * math.sqrt(self.cfg.d_model)))

    def encode(self, src: torch.Tensor) -> EncoderOutput:
        """src (B, S) ids padded with PAD_ID -> :class:`EncoderOutput`."""
        src_mask = key_padding_mask(src)  # (B, 1, 1, S)
        x = self._embed(src, self.src_embedding, self.src_positions)  # (B, S, d)
        weights = []
        for layer in self.encoder:
            x, w = layer(x, src_mask)
            weights.append(w)
        return EncoderOutput(self.enc_norm(x), src_mask, torch.stack(weights))

    def decode(self, tgt_in: torch.Tensor, enc: EncoderOutput) -> DecoderOutput:
        """tgt_in (B, T) decoder inputs (<s> y_1 .. y_{T-1}) -> :class:`DecoderOutput`."""
        tgt_mask = key_padding_mask(tgt_in)  # (B, 1, 1, T); causal added inside
        y = self._embed(tgt_in, self.tgt_embedding, self.tgt_positions)  # (B, T, d)
        self_ws, cross_ws = [], []
        for layer in self.decoder:
            y, self_w, cross_w = layer(y, enc.memory, enc.src_mask, tgt_mask)
            self_ws.append(self_w), cross_ws.append(cross_w)
        logits = self.generator(self.dec_norm(y))  # (B, T, V)
        return DecoderOutput(logits, torch.stack(self_ws), torch.stack(cross_ws))

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        """Teacher forcing: src (B, S), tgt_in (B, T) -> logits (B, T, V)."""
        return self.decode(tgt_in, self.encode(src)).logits

    def n_parameters(self) -> int:
        """Distinct parameters (a tied matrix counted once)."""
        return sum(p.numel() for p in self.parameters())
