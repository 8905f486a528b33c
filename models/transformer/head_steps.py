"""One head's scaled dot-product attention, step by step, from a model's own weights.

"Attention Is All You Need" (Vaswani et al. 2017), section 3.2.1, eq. 1 and section 3.2.2:

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V
    head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)
    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O

For one layer and head, :class:`HeadSteps` keeps every intermediate matrix: Q K^T, the division
by sqrt(d_k), the mask (section 3.2.3: the decoder's self-attention sets the scores of later
positions to -inf), the softmax and the product with V. The inputs are captured with a forward
pre-hook on the attention module while the model runs (its outputs are unchanged), then projected
with the module's own weights; ``gap`` is the largest difference between the softmax recomputed
here and the weights the model itself returned (tested with ``allclose``).

- :func:`transformer_head_steps`: the project's Transformer (:mod:`models.transformer.model`),
  encoder self, masked decoder self or cross attention of one translation;
- :func:`pretrained_head_steps`: a BERT-style Hugging Face encoder such as all-MiniLM-L6-v2 (Q, K
  and V from its ``query``/``key``/``value`` linear layers on the hidden states that layer read).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from i18n import _
from models.tokenizer import SubwordTokenizer
from models.transformer.pretrained import PretrainedEncoder
from models.transformer.translator import TransformerAttention, TransformerTranslator

ATTENTIONS = (
    "encoder",
    "decoder",
    "cross",
    "self",
)  # "self": a pretrained encoder's self-attention
GAP_LIMIT = 1e-4  # a recomputation further than this from the model's own weights is refused


@dataclass(frozen=True)
class ModelShape:
    """The numbers of a multi-head attention layer: h heads of width d_k = d_v = d_model / h."""

    n_layers: int  # layers of the stack shown
    n_heads: int  # h
    d_model: int  # the width of the token vectors
    d_k: int  # the width of each head's queries, keys and values


@dataclass(frozen=True)
class HeadSteps:
    """One head's attention, step by step (rows: queries, the tokens that attend; columns: keys,
    the tokens attended to).

    queries: (T_q, d_k) Q W_i^Q; keys: (T_k, d_k) K W_i^K; values: (T_k, d_k) V W_i^V.
    scores: (T_q, T_k) Q K^T; scaled: (T_q, T_k) scores / sqrt(d_k).
    keep: (T_q, T_k) bool, False where the mask hides a key (later positions in the decoder's
        self-attention, padding); ``causal``: the mask is the decoder's look-ahead mask.
    weights: (T_q, T_k) the softmax of each row of ``scaled`` over the kept keys (hidden keys
        get exactly 0); each row sums to 1.
    context: (T_q, d_k) weights @ values: head_i, the head's output for each query.
    gap: max |weights - the weights the model returned| (a check of the recomputation).
    """

    attention: str
    layer: int  # 0-based
    head: int  # 0-based
    shape: ModelShape
    queries: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    scores: np.ndarray
    scaled: np.ndarray
    keep: np.ndarray
    causal: bool
    weights: np.ndarray
    context: np.ndarray
    gap: float


def _this_thread(record: Callable[[tuple, dict], None]) -> Callable:
    """A forward pre-hook that records only the passes of the thread that registered it: the
    model is shared by every session, and another session's pass may run while the hook is on."""
    owner = threading.get_ident()

    def hook(_module: nn.Module, args: tuple, kwargs: dict) -> None:
        if threading.get_ident() == owner:
            record(args, kwargs)

    return hook


def attention_steps(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, keep: torch.Tensor
) -> dict[str, torch.Tensor]:
    """Eq. 1 for one head, each stage kept: q (T_q, d_k), k (T_k, d_k), v (T_k, d_v), keep
    (T_q, T_k) bool -> scores, scaled, weights (T_q, T_k) and context (T_q, d_v)."""
    if not bool(keep.any(-1).all()):
        raise ValueError(_("every key of at least one query is masked: nothing to attend to"))
    scores = q @ k.transpose(0, 1)  # (T_q, T_k)
    scaled = scores / math.sqrt(k.shape[-1])  # (T_q, T_k)
    weights = torch.softmax(scaled.masked_fill(~keep, float("-inf")), dim=-1)  # (T_q, T_k)
    weights = weights.masked_fill(~keep, 0.0)
    return {"scores": scores, "scaled": scaled, "weights": weights, "context": weights @ v}


def _steps(
    attention: str,
    where: tuple[int, int],
    shape: ModelShape,
    projected: tuple,
    keep,
    causal,
    returned,
) -> HeadSteps:
    """Run :func:`attention_steps` on one head's projections and check it against ``returned``
    (T_q, T_k), the weights the model gave; ValueError when they differ by over GAP_LIMIT."""
    q, k, v = (x.float() for x in projected)
    out = attention_steps(q, k, v, keep)
    gap = float((out["weights"] - returned.float()).abs().max())
    if not gap <= GAP_LIMIT:
        raise ValueError(
            _(
                "this model's attention could not be recomputed from its weights (off by {gap:.2g})"
            ).format(gap=gap)
        )
    numpy = lambda x: x.detach().float().cpu().numpy()  # noqa: E731
    return HeadSteps(
        attention=attention,
        layer=where[0],
        head=where[1],
        shape=shape,
        queries=numpy(q),
        keys=numpy(k),
        values=numpy(v),
        scores=numpy(out["scores"]),
        scaled=numpy(out["scaled"]),
        keep=keep.cpu().numpy(),
        causal=causal,
        weights=numpy(out["weights"]),
        context=numpy(out["context"]),
        gap=gap,
    )


def _check_where(shape: ModelShape, layer: int, head: int) -> None:
    if not (0 <= layer < shape.n_layers and 0 <= head < shape.n_heads):
        raise ValueError(
            f"layer {layer}, head {head} outside {shape.n_layers} layers x {shape.n_heads} heads"
        )


# ------------------------------------------------------------------ the project's Transformer


def transformer_shape(translator: TransformerTranslator, attention: str = "encoder") -> ModelShape:
    """h, d_model and d_k of the Transformer; the layers of its encoder or decoder stack."""
    cfg = translator.model.cfg
    layers = cfg.enc_layers if attention == "encoder" else cfg.dec_layers
    return ModelShape(layers, cfg.n_heads, cfg.d_model, cfg.d_model // cfg.n_heads)


def _ids(tokenizer: SubwordTokenizer, pieces: list[str]) -> list[int]:
    """The ids of pieces that came from ``tokenizer.pieces`` (SentencePiece maps both ways)."""
    return [int(tokenizer.sp.piece_to_id(piece)) for piece in pieces]


def _module(translator: TransformerTranslator, attention: str, layer: int) -> nn.Module:
    model = translator.model
    if attention == "encoder":
        return model.encoder[layer].self_attn
    if attention == "decoder":
        return model.decoder[layer].self_attn
    if attention == "cross":
        return model.decoder[layer].cross_attn
    raise ValueError(f"unknown attention {attention!r}; choose encoder, decoder or cross")


@torch.inference_mode()
def transformer_head_steps(
    translator: TransformerTranslator,
    result: TransformerAttention,
    attention: str,
    layer: int,
    head: int,
) -> HeadSteps:
    """Head ``head`` of layer ``layer`` (0-based) of attention ``attention`` ("encoder", "decoder",
    "cross") in the translation ``result``: one teacher-forced pass over its pieces with the
    attention module's inputs captured, then eq. 1 recomputed from its W^Q, W^K, W^V."""
    shape = transformer_shape(translator, attention)
    module = _module(translator, attention, layer)
    _check_where(shape, layer, head)
    src = torch.tensor([_ids(translator.src_tok, result.source_tokens)], device=translator.device)
    tgt_in = _ids(translator.tgt_tok, result.decoder_input_tokens)
    tgt_in = torch.tensor([tgt_in], device=translator.device)  # (1, T)
    seen: list = []
    hook = module.register_forward_pre_hook(
        _this_thread(lambda args, kwargs: seen.append((args, kwargs))), with_kwargs=True
    )
    try:
        enc = translator.model.encode(src)
        dec = translator.model.decode(tgt_in, enc) if attention != "encoder" else None
    finally:
        hook.remove()
    (query, key, value), options = seen[0][0][:3], seen[0][1]
    projected = [
        module._split(x, i)[0, head] for i, x in enumerate((query, key, value))
    ]  # (T, d_k)
    T_q, T_k = projected[0].shape[0], projected[1].shape[0]
    keep = torch.ones(T_q, T_k, dtype=torch.bool, device=query.device)
    if options.get("mask") is not None:
        keep = keep & torch.broadcast_to(options["mask"][0, 0].bool(), (T_q, T_k))
    causal = bool(options.get("causal", False))
    if causal:
        keep = keep & keep.new_ones(T_q, T_k).tril(T_k - T_q)  # key s only for query t >= s
    returned = {
        "encoder": lambda: enc.weights,
        "decoder": lambda: dec.self_weights,
        "cross": lambda: dec.cross_weights,
    }[attention]()[layer, 0, head]  # (T_q, T_k)
    return _steps(attention, (layer, head), shape, projected, keep, causal, returned)


# ------------------------------------------------------------------ a pretrained encoder


def _self_attention_modules(model: nn.Module) -> list[nn.Module]:
    """The self-attention modules of a BERT-style encoder, in layer order: those with ``query``,
    ``key`` and ``value`` linear layers (BERT, RoBERTa, MiniLM, XLM-R, ELECTRA)."""
    return [
        m
        for m in model.modules()
        if all(isinstance(getattr(m, name, None), nn.Linear) for name in ("query", "key", "value"))
    ]


def pretrained_shape(encoder: PretrainedEncoder) -> ModelShape:
    """h, d_model and d_k of a pretrained encoder (from its config)."""
    cfg = encoder.model.config
    d_model, n_heads = int(cfg.hidden_size), int(cfg.num_attention_heads)
    return ModelShape(int(cfg.num_hidden_layers), n_heads, d_model, d_model // n_heads)


@torch.inference_mode()
def pretrained_head_steps(
    encoder: PretrainedEncoder, text: str, layer: int, head: int
) -> HeadSteps:
    """Head ``head`` of layer ``layer`` (0-based) of a BERT-style encoder on ``text`` (cut as
    :meth:`PretrainedEncoder.attend` cuts it): Q, K, V from that layer's query/key/value linear
    layers on the hidden states it read, then eq. 1. ValueError for an encoder of another attention."""
    shape = pretrained_shape(encoder)
    modules = _self_attention_modules(encoder.model)
    relative = getattr(encoder.model.config, "position_embedding_type", "absolute") != "absolute"
    if len(modules) != shape.n_layers or relative:
        raise ValueError(
            _("the head's computation is shown for BERT-style encoders only, not {name}").format(
                name=encoder.name
            )
        )
    _check_where(shape, layer, head)
    if not text or not text.strip():
        raise ValueError(_("the sentence is empty: type some text"))
    enc = encoder.tokenizer(
        text, truncation=True, max_length=encoder.max_pieces, return_tensors="pt"
    )
    module, seen = modules[layer], []
    hook = module.register_forward_pre_hook(
        _this_thread(
            lambda args, kwargs: seen.append(args[0] if args else kwargs["hidden_states"])
        ),
        with_kwargs=True,
    )
    try:
        out = encoder.model(
            **{k: v.to(encoder.device) for k, v in enc.items()}, output_attentions=True
        )
    finally:
        hook.remove()
    hidden = seen[0][0]  # (T, d_model): the hidden states this layer read
    projected = [
        getattr(module, name)(hidden).view(hidden.shape[0], shape.n_heads, shape.d_k)[:, head]
        for name in ("query", "key", "value")
    ]  # 3 x (T, d_k)
    T = hidden.shape[0]
    keep = torch.ones(T, T, dtype=torch.bool, device=hidden.device)  # one sentence: no padding
    returned = out.attentions[layer][0, head]  # (T, T)
    return _steps("self", (layer, head), shape, projected, keep, False, returned)
