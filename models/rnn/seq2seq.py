"""RNN encoder-decoder translators with and without attention: one configurable family.

- ``none``: the encoder-decoder with a fixed context vector ``c`` (Cho et al. 2014, "Learning Phrase
  Representations using RNN Encoder-Decoder", eqs. 5-6; Sutskever et al. 2014): ``c`` summarises the
  whole source and is fed to every decoder step — the fixed-length bottleneck.
- ``bahdanau``: additive attention from the *previous* decoder state (Bahdanau et al. 2015, eqs. 4-6):
  ``e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j)``, ``alpha_ij = softmax_j(e_ij)``, ``c_i = sum_j alpha_ij h_j``,
  ``s_i = f(s_{i-1}, y_{i-1}, c_i)``, output from ``[s_i; c_i; y_{i-1}]`` (a one-layer deep output).
- ``luong-dot|general|concat``: global attention from the *current* state ``h_t`` (Luong et al. 2015,
  eqs. 5-8), attentional hidden ``h~_t = tanh(W_c [c_t; h_t])`` (eq. 5), ``p(y_t) = softmax(W_s h~_t)``
  (eq. 6), and input feeding (section 3.3): ``h~_{t-1}`` is concatenated to the next input.
- ``local-m`` / ``local-p``: local attention (section 3.2): ``p_t = t`` (monotonic) or
  ``p_t = (S - 1) * sigmoid(v_p^T tanh(W_p h_t))`` (eq. 9, whose ``S * sigmoid(...)`` we take with
  0-based positions: p_t stays on a real token, 0 .. S - 1), general score, Gaussian
  ``exp(-(s-p_t)^2/(2 sigma^2))`` with ``sigma = D/2`` (eq. 10), window ``[p_t - D, p_t + D]``
  (local-m: p_t = min(t, S - 1)). Unlike the paper we renormalise the windowed, Gaussian-weighted
  alignment so each row sums to 1 (the paper leaves it below 1): the context stays a weighted
  average of the h_s, as with global attention.

The encoder is an embedding plus a GRU or LSTM, optionally bidirectional and multi-layer; its outputs
are projected to the decoder size and serve as keys and values ``h_s`` (B, S, H).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from models.attention import local_attention, masked_softmax, weighted_sum

ATTENTION_NAMES = (
    "none",
    "bahdanau",
    "luong-dot",
    "luong-general",
    "luong-concat",
    "local-m",
    "local-p",
)


@dataclass
class Seq2SeqConfig:
    """Constructor arguments of :class:`Seq2Seq`; saved as ``config.json`` with each checkpoint."""

    attention: str = "bahdanau"  # one of ATTENTION_NAMES
    src_vocab: int = 6000  # source subword vocabulary size
    tgt_vocab: int = 6000  # target subword vocabulary size
    rnn: str = "gru"  # "gru", "lstm" or "rnn" (Elman, tanh), encoder and decoder
    emb_dim: int = 256  # embedding size (equals hidden when tie_embeddings)
    hidden: int = 256  # decoder hidden size = size of keys/values h_s
    enc_hidden: int = 256  # encoder hidden size per direction
    enc_layers: int = 1  # stacked encoder layers (the seeds' Deep RNN)
    dec_layers: int = 1  # stacked decoder layers
    bidirectional: bool = True  # BiRNN encoder (Bahdanau et al. 2015, section 3.2)
    dropout: float = 0.3  # on embeddings and the attentional hidden
    attn_dim: int = 256  # size of the additive attention's hidden layer
    window: int = 5  # D, the half-width of the local window
    max_src_len: int = 100  # longer sources are truncated (subwords, before </s>)
    max_tgt_len: int = 100  # decoding stops here at the latest
    tie_embeddings: bool = True  # output projection shares the target embedding (Press & Wolf 2017)

    def __post_init__(self) -> None:
        if self.attention not in ATTENTION_NAMES:
            raise ValueError(
                f"unknown attention {self.attention!r}; choose one of {ATTENTION_NAMES}"
            )
        if self.rnn not in ("gru", "lstm", "rnn"):
            raise ValueError(f"rnn must be 'gru', 'lstm' or 'rnn', got {self.rnn!r}")

    @classmethod
    def of_width(cls, width: int, **fields: object) -> Seq2SeqConfig:
        """Embeddings, encoder and decoder all ``width`` wide (the CLI's and the lab's models)."""
        return cls(emb_dim=width, hidden=width, enc_hidden=width, **fields)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Memory:
    """What the decoder attends to. keys/values (B, S, H); keys_proj (B, S, A) precomputed for the
    additive/general scores; mask (B, S) True = real token; lengths (B,); summary (B, H) = c for ``none``."""

    values: torch.Tensor
    keys_proj: torch.Tensor | None
    mask: torch.Tensor
    lengths: torch.Tensor
    summary: torch.Tensor
    dense: bool = False  # no padded position anywhere: the softmax needs no mask (one sentence)

    def select(self, index: torch.Tensor) -> Memory:
        """Rows ``index`` of every field (beam search reorders hypotheses)."""
        kp = None if self.keys_proj is None else self.keys_proj[index]
        rows = (self.values[index], kp, self.mask[index], self.lengths[index], self.summary[index])
        return Memory(*rows, self.dense)


@dataclass
class DecoderState:
    """rnn: the RNN state (GRU (L, B, H) or LSTM tuple); feed: h~_{t-1} (Luong input feeding) (B, H);
    step: the 0-based target position t (local-m uses p_t = t)."""

    rnn: torch.Tensor | tuple[torch.Tensor, torch.Tensor]
    feed: torch.Tensor
    step: int

    def select(self, index: torch.Tensor) -> DecoderState:
        rnn = (
            tuple(x[:, index] for x in self.rnn)
            if isinstance(self.rnn, tuple)
            else self.rnn[:, index]
        )
        return DecoderState(rnn, self.feed[index], self.step)


@dataclass
class StepOutput:
    """One decoder step. logits (B, V); weights, raw_weights, gaussian (B, S) or None; p_t (B,) or None;
    query (B, H): the vector the scores were computed from (s_{i-1} for Bahdanau, h_t for Luong)."""

    logits: torch.Tensor
    weights: torch.Tensor | None
    raw_weights: torch.Tensor | None
    gaussian: torch.Tensor | None
    p_t: torch.Tensor | None
    query: torch.Tensor


def _rnn(cell: str, input_size: int, hidden: int, layers: int, bidirectional: bool) -> nn.RNNBase:
    cls = {"gru": nn.GRU, "lstm": nn.LSTM, "rnn": nn.RNN}[cell]
    return cls(input_size, hidden, num_layers=layers, batch_first=True, bidirectional=bidirectional)


class Encoder(nn.Module):
    """Embedding + (Bi)GRU/LSTM; outputs projected to the decoder size H."""

    def __init__(self, cfg: Seq2SeqConfig):
        super().__init__()
        self.embedding = nn.Embedding(cfg.src_vocab, cfg.emb_dim, padding_idx=0)
        self.rnn = _rnn(cfg.rnn, cfg.emb_dim, cfg.enc_hidden, cfg.enc_layers, cfg.bidirectional)
        n_dir = 2 if cfg.bidirectional else 1
        self.project = nn.Linear(n_dir * cfg.enc_hidden, cfg.hidden)
        self.bridge = nn.Linear(n_dir * cfg.enc_hidden, cfg.hidden)
        self.dropout = nn.Dropout(cfg.dropout)
        self.n_dir = n_dir

    def embed(self, src: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.embedding(src))  # (B, S, E)

    def forward_embedded(
        self, embedded: torch.Tensor, lengths: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """embedded (B, S, E), lengths (B,) -> (outputs h_s (B, S, H), summary c (B, H))."""
        packed = nn.utils.rnn.pack_padded_sequence(
            embedded, lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        out, h_n = self.rnn(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(
            out, batch_first=True, total_length=embedded.shape[1]
        )  # (B, S, n_dir * H_e)
        h_n = h_n[0] if isinstance(h_n, tuple) else h_n  # (layers * n_dir, B, H_e)
        last = torch.cat(
            [h_n[-self.n_dir + i] for i in range(self.n_dir)], dim=-1
        )  # (B, n_dir*H_e)
        return self.project(out), torch.tanh(self.bridge(last))  # (B, S, H), (B, H)


class BahdanauAttention(nn.Module):
    """``e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j)`` (Bahdanau et al. 2015, eq. 6 and appendix A.1.2)."""

    def __init__(self, hidden: int, attn_dim: int):
        super().__init__()
        self.W_a = nn.Linear(hidden, attn_dim, bias=False)
        self.U_a = nn.Linear(hidden, attn_dim)
        self.v_a = nn.Linear(attn_dim, 1, bias=False)

    def project_keys(self, keys: torch.Tensor) -> torch.Tensor:
        return self.U_a(keys)  # (B, S, A), computed once per sentence

    def scores(self, query: torch.Tensor, keys_proj: torch.Tensor) -> torch.Tensor:
        """query (B, H), keys_proj (B, S, A) -> scores (B, S)."""
        return self.v_a(torch.tanh(self.W_a(query).unsqueeze(1) + keys_proj)).squeeze(-1)


class LuongAttention(nn.Module):
    """Luong et al. 2015, eq. 8: dot ``h_t^T h_s``, general ``h_t^T W_a h_s``, concat
    ``v_a^T tanh(W_a [h_t; h_s])`` (split as ``W_1 h_t + W_2 h_s``)."""

    def __init__(self, score: str, hidden: int, attn_dim: int):
        super().__init__()
        if score not in ("dot", "general", "concat"):
            raise ValueError(f"unknown Luong score {score!r}")
        self.score = score
        if score == "general":
            self.W_a = nn.Linear(hidden, hidden, bias=False)
            nn.init.eye_(self.W_a.weight)  # starts as the dot score
        elif score == "concat":
            self.W_1 = nn.Linear(hidden, attn_dim, bias=False)
            self.W_2 = nn.Linear(hidden, attn_dim)
            self.v_a = nn.Linear(attn_dim, 1, bias=False)

    def project_keys(self, keys: torch.Tensor) -> torch.Tensor:
        if self.score == "general":
            return self.W_a(keys)  # (B, S, H): W_a h_s, so h_t . (W_a h_s) = h_t^T W_a h_s
        if self.score == "concat":
            return self.W_2(keys)  # (B, S, A)
        return keys

    def scores(self, query: torch.Tensor, keys_proj: torch.Tensor) -> torch.Tensor:
        """query h_t (B, H), keys_proj (B, S, .) -> scores (B, S)."""
        if self.score == "concat":
            return self.v_a(torch.tanh(self.W_1(query).unsqueeze(1) + keys_proj)).squeeze(-1)
        return torch.bmm(keys_proj, query.unsqueeze(-1)).squeeze(-1)  # (B, S)


class Seq2Seq(nn.Module):
    """Encoder-decoder; ``cfg.attention`` picks the decoder (see the module docstring)."""

    def __init__(self, cfg: Seq2SeqConfig):
        super().__init__()
        self.cfg = cfg
        H, E = cfg.hidden, cfg.emb_dim
        self.encoder = Encoder(cfg)
        self.tgt_embedding = nn.Embedding(cfg.tgt_vocab, E, padding_idx=0)
        name = cfg.attention  # one of ATTENTION_NAMES
        self.is_luong = name.startswith("luong") or name.startswith("local")
        if name == "bahdanau":
            self.attention = BahdanauAttention(H, cfg.attn_dim)
        elif self.is_luong:
            score = name.split("-")[1] if name.startswith("luong") else "general"
            self.attention = LuongAttention(score, H, cfg.attn_dim)
        else:
            self.attention = None
        if name == "local-p":
            self.W_p = nn.Linear(H, cfg.attn_dim, bias=False)
            self.v_p = nn.Linear(cfg.attn_dim, 1, bias=False)
        # none: input [y; c]; bahdanau: [y; c_i]; luong: [y; h~_{t-1}] (input feeding)
        self.decoder_rnn = _rnn(cfg.rnn, E + H, H, cfg.dec_layers, False)
        readout_in = 2 * H if self.is_luong else 2 * H + E
        self.readout = nn.Linear(readout_in, E if cfg.tie_embeddings else H)  # W_c for Luong
        self.generator = nn.Linear(E if cfg.tie_embeddings else H, cfg.tgt_vocab)
        if cfg.tie_embeddings:
            self.generator.weight = self.tgt_embedding.weight
        self.dropout = nn.Dropout(cfg.dropout)
        for emb in (
            self.encoder.embedding,
            self.tgt_embedding,
        ):  # small init: tied logits stay O(1)
            nn.init.uniform_(emb.weight, -0.1, 0.1)
            emb.weight.data[0].zero_()

    # -- encoder side ---------------------------------------------------------------------------
    def encode(self, src: torch.Tensor, lengths: torch.Tensor) -> tuple[Memory, DecoderState]:
        """src (B, S) padded with 0, lengths (B,) -> (memory, initial decoder state)."""
        return self.encode_embedded(self.encoder.embed(src), lengths)

    def encode_embedded(
        self, embedded: torch.Tensor, lengths: torch.Tensor
    ) -> tuple[Memory, DecoderState]:
        values, summary = self.encoder.forward_embedded(embedded, lengths)  # (B, S, H), (B, H)
        mask = torch.arange(values.shape[1], device=values.device)[None] < lengths[:, None]
        keys_proj = None if self.attention is None else self.attention.project_keys(values)
        dense = bool(mask.all())
        memory = Memory(values, keys_proj, mask, lengths.to(values.device), summary, dense)
        h0 = summary.unsqueeze(0).repeat(self.cfg.dec_layers, 1, 1)  # (L, B, H)
        rnn = (h0, torch.zeros_like(h0)) if self.cfg.rnn == "lstm" else h0
        feed = summary if self.attention is None else torch.zeros_like(summary)
        return memory, DecoderState(rnn, feed, 0)

    # -- one decoder step -------------------------------------------------------------------------
    def _generate(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, E) -> logits (B, V). At inference, one addmm with the weight transposed once
        (kept until the weight changes): a third faster on a CPU than ``nn.Linear``'s layout."""
        if self.training or x.requires_grad:  # autograd records it: the module's own path
            return self.generator(self._drop(x))
        weight = self.generator.weight  # (V, E)
        stamp = (weight.data_ptr(), weight._version, weight.device, weight.dtype)
        if getattr(self, "_generator_t", (None,))[0] != stamp:
            self._generator_t = (stamp, weight.detach().t().contiguous())  # (E, V)
        return torch.addmm(self.generator.bias, x, self._generator_t[1])  # (B, V)

    def _drop(self, x: torch.Tensor) -> torch.Tensor:
        """Dropout while training; at inference the module call itself is skipped (per-step cost)."""
        return self.dropout(x) if self.training else x

    def _attend(
        self, query: torch.Tensor, memory: Memory, step: int, window: int | None, override=None
    ) -> tuple[torch.Tensor, ...]:
        """-> context (B, H), weights (B, S), raw_weights, gaussian, p_t (last three None if global).
        ``override`` (B, S): these weights instead of the model's own; nothing is scored."""
        if override is not None:
            context = weighted_sum(override.unsqueeze(1), memory.values).squeeze(1)  # (B, H)
            return context, override, None, None, None
        scores = self.attention.scores(query, memory.keys_proj)  # (B, S)
        name = self.cfg.attention
        if not name.startswith("local"):
            # a dense memory (one unpadded sentence, as when decoding for the app) masks nothing
            weights = (
                torch.softmax(scores, -1) if memory.dense else masked_softmax(scores, memory.mask)
            )
            context = weighted_sum(weights.unsqueeze(1), memory.values).squeeze(1)  # (B, H)
            return context, weights, None, None, None
        last = (memory.lengths - 1).to(scores.dtype)  # (B,) index of the last source token
        if name == "local-m":
            p_t = torch.full_like(last, float(step)).minimum(last)
        else:  # local-p, Luong eq. 9 with S - 1 so p_t is a valid 0-based position
            p_t = last * torch.sigmoid(self.v_p(torch.tanh(self.W_p(query)))).squeeze(-1)
        D = window or self.cfg.window
        final, raw, gaussian = local_attention(scores, p_t, D, memory.mask)
        weights = final / final.sum(-1, keepdim=True).clamp_min(
            1e-12
        )  # renormalised, rows sum to 1
        context = weighted_sum(weights.unsqueeze(1), memory.values).squeeze(1)  # (B, H)
        return context, weights, raw, gaussian, p_t

    def _rnn_step(self, x: torch.Tensor, state: DecoderState) -> tuple[torch.Tensor, object]:
        """x (B, in) -> top layer output (B, H) and the new RNN state."""
        if self.training:
            out, rnn = self.decoder_rnn(x.unsqueeze(1), state.rnn)  # (B, 1, H)
            return out.squeeze(1), rnn
        return self._cell_step(x, state.rnn)

    def _cell_step(self, x: torch.Tensor, rnn_state: object) -> tuple[torch.Tensor, object]:
        """The same step through the layers' cell functions (inference: no inter-layer dropout).

        Equal (to float rounding) to calling ``self.decoder_rnn`` on a length-1 sequence, with less
        overhead per call, which matters in a decoding loop of single steps.
        """
        rnn = self.decoder_rnn
        weights = [
            getattr(rnn, f"{n}_l{k}")
            for k in range(rnn.num_layers)
            for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        ]
        if isinstance(rnn_state, tuple):  # LSTM: (h (L, B, H), c (L, B, H))
            hs, cs = [], []
            for k in range(rnn.num_layers):
                h, c = torch.lstm_cell(
                    x, (rnn_state[0][k], rnn_state[1][k]), *weights[4 * k : 4 * k + 4]
                )
                hs.append(h), cs.append(c)
                x = h
            return x, (torch.stack(hs), torch.stack(cs))
        hs, cell = [], torch.gru_cell if isinstance(rnn, nn.GRU) else torch.rnn_tanh_cell
        for k in range(rnn.num_layers):
            x = cell(x, rnn_state[k], *weights[4 * k : 4 * k + 4])  # (B, H)
            hs.append(x)
        return x, torch.stack(hs)  # (B, H), (L, B, H)

    def decode_step(
        self,
        y_prev: torch.Tensor,
        state: DecoderState,
        memory: Memory,
        window: int | None = None,
        override: torch.Tensor | None = None,
    ) -> tuple[StepOutput, DecoderState]:
        """y_prev (B,) previous target ids -> (step output with logits (B, V), next state).
        ``override`` (B, S): attention weights for this step instead of the model's own (the
        counterfactual attention of Jain & Wallace 2019); ignored by ``none``."""
        emb = self._drop(self.tgt_embedding(y_prev))  # (B, E)
        if self.is_luong:
            h_t, rnn = self._rnn_step(torch.cat([emb, state.feed], -1), state)  # (B, H)
            context, w, raw, gauss, p_t = self._attend(h_t, memory, state.step, window, override)
            h_tilde = torch.tanh(self.readout(torch.cat([context, h_t], -1)))  # (B, E), eq. 5
            logits = self._generate(h_tilde)  # (B, V), eq. 6
            return StepOutput(logits, w, raw, gauss, p_t, h_t), DecoderState(
                rnn, h_tilde, state.step + 1
            )
        if self.attention is not None:  # Bahdanau: attend with s_{i-1}, the top layer's state
            s_prev = state.rnn[0][-1] if isinstance(state.rnn, tuple) else state.rnn[-1]  # (B, H)
            context, w, raw, gauss, p_t = self._attend(s_prev, memory, state.step, window, override)
            query = s_prev
        else:  # none: the fixed context c for every step
            context = query = memory.summary  # (B, H)
            w = raw = gauss = p_t = None
        s_i, rnn = self._rnn_step(torch.cat([emb, context], -1), state)  # (B, H)
        readout = torch.tanh(self.readout(torch.cat([s_i, context, emb], -1)))  # (B, E)
        logits = self._generate(readout)  # (B, V)
        return StepOutput(logits, w, raw, gauss, p_t, query), DecoderState(
            rnn, state.feed, state.step + 1
        )

    # -- teacher forcing --------------------------------------------------------------------------
    def forward(
        self, src: torch.Tensor, lengths: torch.Tensor, tgt_in: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Teacher-forced logits (B, T, V) and weights (B, T, S) (None for ``none``)."""
        memory, state = self.encode(src, lengths)
        logits, weights = [], []
        for t in range(tgt_in.shape[1]):
            out, state = self.decode_step(tgt_in[:, t], state, memory)
            logits.append(out.logits)
            weights.append(out.weights)
        w = None if weights[0] is None else torch.stack(weights, 1)
        return torch.stack(logits, 1), w
