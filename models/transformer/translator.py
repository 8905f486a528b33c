"""The user-facing inference API of the Transformer translators: greedy, beam and forced decoding,
returning every attention weight in a typed result.

Decoding runs step by step with a key/value cache (each decoder layer keeps the projected keys and
values of the positions already decoded, and the encoder output is projected once), which makes a
step cost one position instead of the whole prefix. The weights shown are then taken from one full
teacher-forced pass over the chosen tokens: in eval mode this is the same computation, so the
weights are exactly those the decoder used (tested).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from models.attention import MultiHeadAttention, scaled_dot_product_attention
from models.beam import BeamSettings, Hypothesis, beam_search, check_beam, greedy_search
from models.limits import TRANSLATOR_BEAM
from models.tokenizer import BOS_ID, EOS_ID, SubwordTokenizer
from models.transformer.model import EncoderOutput, Transformer
from models.translator_base import Source, TranslatorBase


@dataclass(frozen=True)
class TransformerHypothesis:
    """One beam-search hypothesis: pieces, text and length-normalised log-probability."""

    target_tokens: list[str]
    text: str
    score: float


@dataclass(frozen=True)
class TransformerAttention:
    """One translated (or force-decoded) sentence and every attention weight of the Transformer.

    source_tokens: the S pieces the encoder read (ending with ``</s>``).
    target_tokens: the T pieces emitted (ending with ``</s>`` unless cut at the length limit).
    decoder_input_tokens: the T pieces the decoder read, ``<s>`` + target_tokens[:-1]; decoder
        position t reads decoder_input_tokens[t] and emits target_tokens[t].
    encoder_self: (L_enc, H, S, S) encoder self-attention; rows sum to 1.
    decoder_self: (L_dec, H, T, T) masked decoder self-attention over decoder_input_tokens; the
        upper triangle (a query looking at later positions) is exactly 0; rows sum to 1.
    cross: (L_dec, H, T, S) encoder-decoder attention; row t is where the decoder looked while
        emitting target_tokens[t]; rows sum to 1.
    token_probs: (T,) probability the model gave each emitted (or forced) piece.
    score: length-normalised log-probability of the target.
    hypotheses: beam search's finished hypotheses, best first ([] for greedy and forced).
    truncated / n_source_pieces: the source was cut to the model's limit; pieces before the cut.
    """

    source_tokens: list[str]
    target_tokens: list[str]
    decoder_input_tokens: list[str]
    text: str
    encoder_self: np.ndarray
    decoder_self: np.ndarray
    cross: np.ndarray
    token_probs: np.ndarray
    score: float
    hypotheses: list[TransformerHypothesis] = field(default_factory=list)
    truncated: bool = False
    n_source_pieces: int = 0
    forced: bool = False


# ------------------------------------------------------------------ cached step-by-step decoding


@dataclass
class DecoderCache:
    """Per decoder layer: self keys/values of the decoded positions (B, H, t, d_k) and the cross
    keys/values of the encoder output (B, H, S, d_k), plus the source mask (B, 1, 1, S)."""

    self_k: list[torch.Tensor]
    self_v: list[torch.Tensor]
    cross_k: list[torch.Tensor]
    cross_v: list[torch.Tensor]
    src_mask: torch.Tensor

    def select(self, index: torch.Tensor) -> DecoderCache:
        """Rows ``index`` of the batch (beam search reorders its hypotheses)."""
        pick = lambda xs: [x[index] for x in xs]  # noqa: E731
        return DecoderCache(
            pick(self.self_k),
            pick(self.self_v),
            pick(self.cross_k),
            pick(self.cross_v),
            self.src_mask[index],
        )


def _attend(
    mha: MultiHeadAttention,
    query: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Multi-head attention with keys/values already projected: query (B, T_q, d), k/v
    (B, H, T_k, d_k) -> (output (B, T_q, d), weights (B, H, T_q, T_k))."""
    q = mha._split(query, 0)  # (B, H, T_q, d_k)
    context, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    out = context.transpose(1, 2).reshape(query.shape[0], query.shape[1], mha.d_model)
    return mha.out_proj(out), weights


def start_cache(model: Transformer, enc: EncoderOutput) -> DecoderCache:
    """Project the encoder output once per decoder layer; empty self caches."""
    B, H, d_k = enc.memory.shape[0], model.cfg.n_heads, model.cfg.d_model // model.cfg.n_heads
    empty = enc.memory.new_zeros(B, H, 0, d_k)
    layers = model.decoder
    return DecoderCache(
        [empty] * len(layers),
        [empty] * len(layers),
        [layer.cross_attn._split(enc.memory, 1) for layer in layers],
        [layer.cross_attn._split(enc.memory, 2) for layer in layers],
        enc.src_mask,
    )


def decode_step(model: Transformer, y_prev: torch.Tensor, cache: DecoderCache) -> torch.Tensor:
    """One position: y_prev (B,) the last decoder input -> log-probabilities (B, V); the cache grows
    (in place)."""
    t = cache.self_k[0].shape[2]
    emb = model.tgt_embedding(y_prev[:, None]) * model.cfg.d_model**0.5  # (B, 1, d)
    pos = model.tgt_positions(torch.zeros(1, t + 1, emb.shape[-1], device=emb.device))[:, -1:]
    y = emb + pos  # (B, 1, d)
    for i, layer in enumerate(model.decoder):

        def self_attn(h: torch.Tensor, i: int = i, layer=layer):
            cache.self_k[i] = torch.cat([cache.self_k[i], layer.self_attn._split(h, 1)], 2)
            cache.self_v[i] = torch.cat([cache.self_v[i], layer.self_attn._split(h, 2)], 2)
            return _attend(layer.self_attn, h, cache.self_k[i], cache.self_v[i], None)

        y, _ = layer.res[0](y, self_attn)
        y, _ = layer.res[1](
            y,
            lambda h, i=i, la=layer: _attend(
                la.cross_attn, h, cache.cross_k[i], cache.cross_v[i], cache.src_mask
            ),
        )
        y, _ = layer.res[2](y, lambda h, la=layer: (la.ff(h), None))
    logits = model.generator(model.dec_norm(y))[:, 0]  # (B, V)
    return torch.log_softmax(logits.float(), -1)


def _length_limit(model: Transformer, src: torch.Tensor, max_len: int | None) -> int:
    """At most ``max_tgt_len`` pieces, and at most 2 S + 10 (French is rarely twice as long)."""
    return max_len or min(model.cfg.max_tgt_len, 2 * src.shape[1] + 10)


def _step(model: Transformer) -> Callable[[torch.Tensor, DecoderCache], tuple]:
    """:func:`decode_step` as the ``step(tokens, state) -> (log_probs, state)`` of models.beam."""
    return lambda tokens, cache: (decode_step(model, tokens, cache), cache)


@torch.inference_mode()
def greedy_ids(
    model: Transformer, src: torch.Tensor, *, max_len: int | None = None
) -> list[list[int]]:
    """Batched greedy decoding: src (B, S) -> per sentence the emitted ids (ending with </s>)."""
    first = torch.full((src.shape[0],), BOS_ID, dtype=torch.long, device=src.device)
    found = greedy_search(
        _step(model),
        start_cache(model, model.encode(src)),
        first,
        end=EOS_ID,
        max_len=_length_limit(model, src, max_len),
    )
    return [list(h.tokens) for h in found]


@torch.inference_mode()
def beam_ids(
    model: Transformer, src: torch.Tensor, *, beam: int = 5, max_len: int | None = None
) -> list[Hypothesis]:
    """Beam search for ONE sentence (src (1, S)): up to ``beam`` hypotheses (ids, length-normalised
    log-probability as their score), best first. beam=1 is greedy decoding."""
    if src.shape[0] != 1:
        raise ValueError(
            f"beam search decodes one sentence at a time, got a batch of {src.shape[0]}"
        )
    check_beam(beam, TRANSLATOR_BEAM)
    settings = BeamSettings(beam, _length_limit(model, src, max_len), n_best=beam)
    first = torch.full((1,), BOS_ID, dtype=torch.long, device=src.device)
    return beam_search(
        _step(model), start_cache(model, model.encode(src)), first, end=EOS_ID, settings=settings
    )


# ------------------------------------------------------------------ the translator


class TransformerTranslator(TranslatorBase):
    """A loaded Transformer (eval mode) plus its tokenizers, and its inference API."""

    model: Transformer

    def __init__(
        self,
        model: Transformer,
        src_tok: SubwordTokenizer,
        tgt_tok: SubwordTokenizer,
        name: str = "",
    ):
        super().__init__(model, src_tok, tgt_tok, name or f"transformer-{model.cfg.positional}")

    @classmethod
    def load(
        cls, name_or_folder: str | Path, device: str | torch.device = "cpu"
    ) -> TransformerTranslator:
        from models.transformer.checkpoint import load_transformer

        model, src_tok, tgt_tok = load_transformer(name_or_folder, device)
        return cls(model, src_tok, tgt_tok, Path(name_or_folder).name)

    def translate(self, text: str, *, beam: int = 1) -> TransformerAttention:
        """Translate one sentence greedily (beam=1) or with beam search (beam 2-10)."""
        source = self._source(text)
        if beam <= 1:
            return self._attention(source, greedy_ids(self.model, source.src)[0])
        found = beam_ids(self.model, source.src, beam=beam)
        hyps = [
            TransformerHypothesis(
                self.tgt_tok.pieces(h.tokens), self.tgt_tok.decode(h.tokens), h.score
            )
            for h in found
        ]
        return self._attention(source, list(found[0].tokens), hypotheses=hyps)

    def force(self, text: str, target: str) -> TransformerAttention:
        """Force the decoder through the given French ``target``: the attention of that pair."""
        source = self._source(text)
        return self._attention(source, self._target(target), forced=True)

    @torch.inference_mode()
    def _attention(self, source: Source, target: list[int], **extra) -> TransformerAttention:
        """One teacher-forced pass over ``target`` (ids emitted, ending with </s>) -> the result."""
        tgt_in = torch.tensor([[BOS_ID] + target[:-1]], device=self.device)  # (1, T)
        enc = self.model.encode(source.src)
        dec = self.model.decode(tgt_in, enc)
        log_probs = torch.log_softmax(dec.logits[0].float(), -1)  # (T, V)
        chosen = log_probs.gather(1, torch.tensor(target, device=self.device)[:, None])[:, 0]
        numpy = lambda x: x[:, 0].float().cpu().numpy()  # noqa: E731 - (L, 1, H, ., .) -> (L, H, ., .)
        return TransformerAttention(
            source_tokens=self.src_tok.pieces(source.ids),
            target_tokens=self.tgt_tok.pieces(target),
            decoder_input_tokens=self.tgt_tok.pieces(tgt_in[0].tolist()),
            text=self.tgt_tok.decode(target),
            encoder_self=numpy(enc.weights),
            decoder_self=numpy(dec.self_weights),
            cross=numpy(dec.cross_weights),
            token_probs=chosen.exp().cpu().numpy(),
            score=float(chosen.mean()),
            truncated=source.truncated,
            n_source_pieces=source.n_pieces,
            **extra,
        )
