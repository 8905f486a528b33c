"""The user-facing inference API of the Transformer translators: greedy, beam and forced decoding,
returning every attention weight in a typed result.

Decoding runs step by step with a key/value cache (each decoder layer keeps the projected keys and
values of the positions already decoded, and the encoder output is projected once), which makes a
step cost one position instead of the whole prefix. The weights shown are then taken from one full
teacher-forced pass over the chosen tokens: in eval mode this is the same computation, so the
weights are exactly those the decoder used (tested).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from models.attention import MultiHeadAttention, scaled_dot_product_attention
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, SubwordTokenizer, clean_text
from models.transformer.model import EncoderOutput, Transformer


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
            pick(self.self_k), pick(self.self_v), pick(self.cross_k), pick(self.cross_v),
            self.src_mask[index],
        )  # fmt: skip


def _attend(mha: MultiHeadAttention, query: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
            mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
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
        [empty] * len(layers), [empty] * len(layers),
        [layer.cross_attn._split(enc.memory, 1) for layer in layers],
        [layer.cross_attn._split(enc.memory, 2) for layer in layers],
        enc.src_mask,
    )  # fmt: skip


def decode_step(model: Transformer, y_prev: torch.Tensor, cache: DecoderCache) -> torch.Tensor:
    """One position: y_prev (B,) the last decoder input -> log-probabilities (B, V); the cache grows."""
    t = cache.self_k[0].shape[2]
    emb = model.tgt_embedding(y_prev[:, None]) * model.cfg.d_model**0.5  # (B, 1, d)
    pos = model.tgt_positions(torch.zeros(1, t + 1, emb.shape[-1], device=emb.device))[:, -1:]
    y = emb + pos  # (B, 1, d)
    for i, layer in enumerate(model.decoder):

        def self_attn(h: torch.Tensor, i: int = i, layer=layer):  # noqa: ANN001
            cache.self_k[i] = torch.cat([cache.self_k[i], layer.self_attn._split(h, 1)], 2)
            cache.self_v[i] = torch.cat([cache.self_v[i], layer.self_attn._split(h, 2)], 2)
            return _attend(layer.self_attn, h, cache.self_k[i], cache.self_v[i], None)

        y, _ = layer.res[0](y, self_attn)
        y, _ = layer.res[1](
            y, lambda h, i=i, la=layer: _attend(la.cross_attn, h, cache.cross_k[i],
                                                  cache.cross_v[i], cache.src_mask)
        )  # fmt: skip
        y, _ = layer.res[2](y, lambda h, la=layer: (la.ff(h), None))
    logits = model.generator(model.dec_norm(y))[:, 0]  # (B, V)
    return torch.log_softmax(logits.float(), -1)


def _length_limit(model: Transformer, src: torch.Tensor, max_len: int | None) -> int:
    """At most ``max_tgt_len`` pieces, and at most 2 S + 10 (French is rarely twice as long)."""
    return max_len or min(model.cfg.max_tgt_len, 2 * src.shape[1] + 10)


@torch.inference_mode()
def greedy_ids(
    model: Transformer, src: torch.Tensor, *, max_len: int | None = None
) -> list[list[int]]:
    """Batched greedy decoding: src (B, S) -> per sentence the emitted ids (ending with </s>)."""
    enc = model.encode(src)
    cache = start_cache(model, enc)
    B = src.shape[0]
    y = torch.full((B,), BOS_ID, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    out: list[list[int]] = [[] for _ in range(B)]
    for _ in range(_length_limit(model, src, max_len)):
        y = decode_step(model, y, cache).argmax(-1).masked_fill(done, PAD_ID)  # (B,)
        for i in torch.nonzero(~done).flatten().tolist():
            out[i].append(int(y[i]))
        done |= y == EOS_ID
        if bool(done.all()):
            break
    return out


@torch.inference_mode()
def beam_ids(
    model: Transformer, src: torch.Tensor, *, beam: int = 5, max_len: int | None = None
) -> list[tuple[list[int], float]]:
    """Beam search for ONE sentence (src (1, S)): up to ``beam`` (ids, length-normalised
    log-probability) pairs, best first. beam=1 is greedy decoding."""
    if src.shape[0] != 1:
        raise ValueError(
            f"beam search decodes one sentence at a time, got a batch of {src.shape[0]}"
        )
    if not 1 <= beam <= 10:
        raise ValueError(f"beam must be between 1 and 10, got {beam}")
    cache = start_cache(model, model.encode(src))
    hyps, sums = [[]], torch.zeros(1, device=src.device)  # live ids, (K,) summed log-probs
    y = torch.full((1,), BOS_ID, dtype=torch.long, device=src.device)
    finished: list[tuple[list[int], float]] = []
    for _ in range(_length_limit(model, src, max_len)):
        log_probs = decode_step(model, y, cache)  # (K, V)
        best = (sums[:, None] + log_probs).flatten().topk(min(2 * beam, log_probs.numel()))
        rows, new_hyps, new_sums = [], [], []
        for value, flat in zip(best.values.tolist(), best.indices.tolist(), strict=True):
            k, tok = divmod(flat, log_probs.shape[1])
            if tok == EOS_ID:
                finished.append((hyps[k] + [tok], value / (len(hyps[k]) + 1)))
            else:
                rows.append(k), new_hyps.append(hyps[k] + [tok]), new_sums.append(value)
            if len(new_hyps) == beam:
                break
        if len(finished) >= beam or not new_hyps:
            break
        index = torch.tensor(rows, dtype=torch.long, device=src.device)
        cache, hyps = cache.select(index), new_hyps
        sums = torch.tensor(new_sums, device=src.device)
        y = torch.tensor([h[-1] for h in hyps], dtype=torch.long, device=src.device)
    if len(finished) < beam:  # cut at the length limit: rank the live ones too
        finished += [(h, s / max(1, len(h))) for h, s in zip(hyps, sums.tolist(), strict=True)]
    return sorted(finished, key=lambda f: f[1], reverse=True)[:beam]


# ------------------------------------------------------------------ the translator


class TransformerTranslator:
    """A loaded Transformer (eval mode) plus its tokenizers, and its inference API."""

    def __init__(
        self,
        model: Transformer,
        src_tok: SubwordTokenizer,
        tgt_tok: SubwordTokenizer,
        name: str = "",
    ):
        self.model, self.src_tok, self.tgt_tok = model.eval(), src_tok, tgt_tok
        self.name = name or f"transformer-{model.cfg.positional}"

    @classmethod
    def load(
        cls, name_or_folder: str | Path, device: str | torch.device = "cpu"
    ) -> TransformerTranslator:
        from models.transformer.checkpoint import load_transformer  # noqa: PLC0415 - no cycle

        model, src_tok, tgt_tok = load_transformer(name_or_folder, device)
        return cls(model, src_tok, tgt_tok, Path(name_or_folder).name)

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _source(self, text: str) -> tuple[torch.Tensor, list[int], int]:
        """-> (src (1, S), ids, pieces before truncation); ValueError on empty text."""
        if not clean_text(text):
            raise ValueError("the sentence is empty: type an English sentence to translate")
        pieces = self.src_tok.encode(text)
        ids = pieces[: self.model.cfg.max_src_len] + [EOS_ID]
        return torch.tensor([ids], device=self.device), ids, len(pieces)

    def translate(self, text: str, *, beam: int = 1) -> TransformerAttention:
        """Translate one sentence greedily (beam=1) or with beam search (beam 2-10)."""
        src, ids, n = self._source(text)
        if beam <= 1:
            return self._attention(src, ids, n, greedy_ids(self.model, src)[0])
        found = beam_ids(self.model, src, beam=beam)
        hyps = [
            TransformerHypothesis(self.tgt_tok.pieces(t), self.tgt_tok.decode(t), s)
            for t, s in found
        ]
        return self._attention(src, ids, n, found[0][0], hypotheses=hyps)

    def force(self, text: str, target: str) -> TransformerAttention:
        """Force the decoder through the given French ``target``: the attention of that pair."""
        src, ids, n = self._source(text)
        if not clean_text(target):
            raise ValueError("the reference translation is empty: type a French sentence")
        target_ids = self.tgt_tok.encode(target)[: self.model.cfg.max_tgt_len - 1] + [EOS_ID]
        return self._attention(src, ids, n, target_ids, forced=True)

    @torch.inference_mode()
    def _attention(
        self, src: torch.Tensor, ids: list[int], n: int, target: list[int], **extra
    ) -> TransformerAttention:
        """One teacher-forced pass over ``target`` (ids emitted, ending with </s>) -> the result."""
        tgt_in = torch.tensor([[BOS_ID] + target[:-1]], device=self.device)  # (1, T)
        enc = self.model.encode(src)
        dec = self.model.decode(tgt_in, enc)
        log_probs = torch.log_softmax(dec.logits[0].float(), -1)  # (T, V)
        chosen = log_probs.gather(1, torch.tensor(target, device=self.device)[:, None])[:, 0]
        numpy = lambda x: x[:, 0].float().cpu().numpy()  # noqa: E731 - (L, 1, H, ., .) -> (L, H, ., .)
        return TransformerAttention(
            source_tokens=self.src_tok.pieces(ids),
            target_tokens=self.tgt_tok.pieces(target),
            decoder_input_tokens=self.tgt_tok.pieces(tgt_in[0].tolist()),
            text=self.tgt_tok.decode(target),
            encoder_self=numpy(enc.weights),
            decoder_self=numpy(dec.self_weights),
            cross=numpy(dec.cross_weights),
            token_probs=chosen.exp().cpu().numpy(),
            score=float(chosen.mean()),
            truncated=n > self.model.cfg.max_src_len,
            n_source_pieces=n,
            **extra,
        )
