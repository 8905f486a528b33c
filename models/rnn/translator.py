"""The user-facing inference API of the RNN translators: typed results, never bare tuples.

``Translator.translate`` (greedy or beam search), ``Translator.force`` (the alignment of a given
sentence pair), ``Translator.encoder_gradients`` (how much the encoder's last state depends on each
input position: the vanishing-gradient picture). See :mod:`models.rnn.seq2seq` for the papers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from models.rnn.checkpoint import load_seq2seq
from models.rnn.decoding import Decoded, beam_decode, forced_decode, greedy_decode
from models.rnn.seq2seq import Seq2Seq
from models.sentence import Sentence
from models.tokenizer import SubwordTokenizer
from models.translator_base import Source, TranslatorBase


@dataclass(frozen=True)
class Hypothesis:
    """One beam-search hypothesis: its pieces, text, length-normalised log-probability, and
    weights (T_out, T_src) (None for the model without attention)."""

    target_tokens: list[str]
    text: str
    score: float
    weights: np.ndarray | None


@dataclass(frozen=True)
class Translation:
    """One translated (or force-decoded) sentence and the attention that produced it.

    source_tokens: the T_src subword pieces the encoder read (ending with ``</s>``).
    target_tokens: the T_out pieces emitted (ending with ``</s>`` unless cut at the length limit).
    weights: (T_out, T_src); row t is the distribution over source pieces used to emit
        target_tokens[t], so each row sums to 1. None for ``attention == "none"``.
    token_probs: (T_out,) probability the model gave each emitted (or forced) piece.
    top_k: per step, the k most likely next pieces with their probabilities.
    queries: (T_out, H) the decoder vector the scores came from (s_{i-1} for Bahdanau, h_t for Luong;
        the fixed context c for ``none``); keys: (T_src, H) the encoder outputs h_s.
    scores: (T_out, T_src) the scores e before the softmax (Bahdanau's e_ij, Luong's
        score(h_t, h_s)), so softmax(scores[t]) == weights[t] for global attention (for local
        attention, the general score before the window and the Gaussian). None for ``none``.
    For local attention (else None): p_t (T_out,) the window centre, window (T_out, 2) its
    [p_t - D, p_t + D] bounds clipped to the sentence, gaussian (T_out, T_src) the factor
    exp(-(s - p_t)^2 / (2 sigma^2)) (0 outside the window), raw_weights (T_out, T_src) the softmax
    inside the window before the Gaussian, and D the half-width used.
    hypotheses: beam search's finished hypotheses, best first ([] for greedy and forced decoding).
    truncated: the source was longer than the model's limit and was cut; n_source_pieces counts
    the pieces before the cut.
    """

    attention: str
    source_tokens: list[str]
    target_tokens: list[str]
    text: str
    weights: np.ndarray | None
    token_probs: np.ndarray
    top_k: list[list[tuple[str, float]]]
    queries: np.ndarray
    keys: np.ndarray
    scores: np.ndarray | None = None
    p_t: np.ndarray | None = None
    window: np.ndarray | None = None
    gaussian: np.ndarray | None = None
    raw_weights: np.ndarray | None = None
    D: int | None = None
    hypotheses: list[Hypothesis] = field(default_factory=list)
    truncated: bool = False
    n_source_pieces: int = 0
    forced: bool = False

    @property
    def contexts(self) -> np.ndarray | None:
        """(T_out, H) the context vectors c_t = sum_s weights[t, s] keys[s] the decoder read
        (None for ``none``)."""
        return None if self.weights is None else self.weights @ self.keys


@dataclass(frozen=True)
class EncoderGradients:
    """norms (T_src,): Frobenius norm of d h_T / d x_j, the Jacobian of the forward encoder's last
    state with respect to the embedding of source position j (Pascanu et al. 2013)."""

    source_tokens: list[str]
    norms: np.ndarray


def _stack(rows: list[torch.Tensor | None]) -> np.ndarray | None:
    if not rows or rows[0] is None:
        return None
    return torch.stack(rows).numpy()


class Translator(TranslatorBase):
    """A loaded RNN translator (model in eval mode plus its tokenizers) and its inference API."""

    model: Seq2Seq

    def __init__(
        self, model: Seq2Seq, src_tok: SubwordTokenizer, tgt_tok: SubwordTokenizer, name: str = ""
    ):
        super().__init__(model, src_tok, tgt_tok, name or f"seq2seq-{model.cfg.attention}")

    @classmethod
    def load(cls, name_or_folder: str | Path, device: str | torch.device = "cpu") -> Translator:
        model, src_tok, tgt_tok = load_seq2seq(name_or_folder, device)
        return cls(model, src_tok, tgt_tok, Path(name_or_folder).name)

    def _result(
        self, dec: Decoded, source: Source, keys: np.ndarray, window: int | None, **extra
    ) -> Translation:
        steps = dec.steps
        cfg = self.model.cfg
        local = cfg.attention.startswith("local")
        D = (window or cfg.window) if local else None
        p_t = np.array([s.p_t for s in steps], dtype=np.float32) if local else None
        bounds = None
        if local:
            last = len(source.ids) - 1
            bounds = np.stack([np.clip(p_t - D, 0, last), np.clip(p_t + D, 0, last)], 1)
        queries = _stack([s.query for s in steps])  # (T_out, H)
        return Translation(
            attention=cfg.attention,
            source_tokens=self.src_tok.pieces(source.ids),
            target_tokens=self.tgt_tok.pieces(dec.tokens),
            text=self.tgt_tok.decode(dec.tokens),
            weights=_stack([s.weights for s in steps]),
            token_probs=np.exp(np.array([s.log_prob for s in steps], dtype=np.float32)),
            top_k=[
                [
                    (self.tgt_tok.pieces([i])[0], p)
                    for i, p in zip(s.top_ids, s.top_probs, strict=True)
                ]
                for s in steps
            ],
            queries=queries,
            keys=keys,
            scores=self._scores(queries, keys),
            p_t=p_t,
            window=bounds,
            gaussian=_stack([s.gaussian for s in steps]),
            raw_weights=_stack([s.raw_weights for s in steps]),
            D=D,
            truncated=source.truncated,
            n_source_pieces=source.n_pieces,
            **extra,
        )

    @torch.inference_mode()
    def _scores(self, queries: np.ndarray | None, keys: np.ndarray) -> np.ndarray | None:
        """The attention's scores e (T_out, T_src) of the recorded queries (T_out, H) against the
        keys h_s (T_src, H): the decoding steps' own scores, in one batched call."""
        attention = self.model.attention
        if attention is None or queries is None or not len(queries):
            return None
        param = next(self.model.parameters())
        query = torch.from_numpy(queries).to(param.device, param.dtype)  # (T_out, H)
        key = torch.from_numpy(keys).to(param.device, param.dtype)[None]  # (1, T_src, H)
        keys_proj = attention.project_keys(key).expand(len(queries), -1, -1)  # (T_out, T_src, A)
        return attention.scores(query, keys_proj).float().cpu().numpy()  # (T_out, T_src)

    @torch.inference_mode()
    def _encode(self, source: Source) -> tuple[tuple, np.ndarray]:
        """-> ((memory, initial state) for the decoders, keys h_s (T_src, H) as numpy)."""
        memory, state = self.model.encode(source.src, source.lengths)
        return (memory, state), memory.values[0].float().cpu().numpy()

    def translate(
        self, text: Sentence | str, *, beam: int = 1, top_k: int = 5, window: int | None = None
    ) -> Translation:
        """Translate one sentence greedily (beam=1) or with beam search (beam 2-10). A
        :class:`models.sentence.Sentence` is read as its text box cleaned it."""
        source = self._source(text)
        encoded, keys = self._encode(source)
        src, lengths = source.src, source.lengths
        if beam <= 1:
            dec = greedy_decode(
                self.model, src, lengths, top_k=top_k, window=window, encoded=encoded
            )[0]
            return self._result(dec, source, keys, window)
        found = beam_decode(
            self.model, src, lengths, beam=beam, top_k=top_k, window=window, encoded=encoded
        )
        hyps = [
            Hypothesis(
                self.tgt_tok.pieces(h.tokens),
                self.tgt_tok.decode(h.tokens),
                h.score,
                _stack([s.weights for s in h.steps]),
            )
            for h in found
        ]
        return self._result(found[0], source, keys, window, hypotheses=hyps)

    def force(
        self,
        text: Sentence | str,
        target: Sentence | str,
        *,
        top_k: int = 5,
        window: int | None = None,
    ) -> Translation:
        """Force the decoder through the given French ``target``: that pair's alignment and each
        target piece's probability."""
        source = self._source(text)
        target_ids = self._target(target)
        encoded, keys = self._encode(source)
        dec = forced_decode(
            self.model,
            source.src,
            source.lengths,
            target_ids,
            top_k=top_k,
            window=window,
            encoded=encoded,
        )
        return self._result(dec, source, keys, window, forced=True)

    def encoder_gradients(self, text: Sentence | str) -> EncoderGradients:
        """Jacobian norms ||d h_T / d x_j||_F of the forward encoder's last state, per position j.

        One backward pass: the sentence is copied H times and copy i back-propagates h_T[i] only.
        """
        source = self._source(text)
        enc = self.model.encoder
        rnn = _forward_direction(enc.rnn)
        H = rnn.hidden_size
        with torch.enable_grad():
            x = enc.embedding(source.src).detach().repeat(H, 1, 1).requires_grad_(True)  # (H, S, E)
            _, h_n = rnn(x)
            h_n = h_n[0] if isinstance(h_n, tuple) else h_n  # (layers * n_dir, H, H_e)
            h_T = h_n[-enc.n_dir] if rnn is enc.rnn else h_n[-1]  # forward direction, last layer
            h_T.diagonal().sum().backward()  # copy i carries d h_T[i] / d x
        norms = x.grad.pow(2).sum(dim=(0, 2)).sqrt()  # (S,)
        return EncoderGradients(self.src_tok.pieces(source.ids), norms.cpu().numpy())


def _forward_direction(rnn: torch.nn.RNNBase) -> torch.nn.RNNBase:
    """For a one-layer bidirectional RNN, a unidirectional copy with the forward weights (half the
    work; the backward direction does not reach the forward last state). Otherwise the RNN itself."""
    if not rnn.bidirectional or rnn.num_layers != 1:
        return rnn
    forward = type(rnn)(rnn.input_size, rnn.hidden_size, batch_first=True, bias=rnn.bias)
    forward.load_state_dict(
        {k: v for k, v in rnn.state_dict().items() if not k.endswith("_reverse")}
    )
    return forward.to(next(rnn.parameters()).device).eval()
