"""Does attention explain? For one target position t of an RNN translator: the attention row
``alpha_t`` beside two other measures of which source words mattered, their rank correlations with
it, and what the decoder outputs at t when its attention there is replaced.

- Jain & Wallace 2019, "Attention is not Explanation" (NAACL): attention against gradient-based and
  leave-one-out feature importance, compared by rank correlation (they use Kendall's tau; we use
  Spearman's rho), and counterfactual attention: the weights randomly permuted, the change of the
  output distribution measured by the total variation distance
  ``TVD(y_1, y_2) = 1/2 sum_i |y_1i - y_2i|``; permutations are drawn again and again and the median
  TVD is reported.
- Wiegreffe & Pinter 2019, "Attention is not not Explanation" (EMNLP): uniform attention as the
  baseline that says whether the learned weights matter at all for the model's output.

The measures for source word w (its SentencePiece pieces grouped as in :mod:`models.subword_merge`):

- attention: ``sum_{j in w} alpha_tj`` (pieces summed, as the word view does);
- leave-one-out: ``log p(y_t | y_<t, x) - log p(y_t | y_<t, x without w)`` with the same forced
  prefix ``y_<t``, the word's pieces removed from the source (positive: the word raised y_t);
- gradient x input: ``sum_{j in w} (d log p(y_t | y_<t, x) / d e_j) . e_j``, e_j the embedding of
  piece j (the full gradient, through the attention weights too).

The correlations rank magnitudes (|leave-one-out|, |gradient x input|) against the attention, as
Jain & Wallace's importance measures do: a word that lowers the probability also matters.

All variants of the source go through the encoder and the forced decoder in ONE batched pass without
autograd (row 0 the whole sentence, row w + 1 without word w); the gradient comes from one more pass
of the whole sentence alone (so the backward pass runs over one row, not 1 + W). The counterfactuals
are one more batched decoder step at t, from the state row 0 reached. Local attention (local-m,
local-p) is supported: its uniform and permuted weights stay inside the window ``[p_t - D, p_t + D]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from i18n import _
from models.rnn.seq2seq import DecoderState, Memory, Seq2Seq, StepOutput
from models.rnn.translator import Translator
from models.sentence import Sentence
from models.subword_merge import group_pieces, word_text
from models.tokenizer import BOS_ID

COUNTERFACTUALS = ("model", "uniform", "permuted")


@dataclass(frozen=True)
class Counterfactual:
    """The decoder's output at step t with a given attention row.

    name: "model" (its own weights), "uniform" or "permuted" (the first seeded permutation).
    weights: (S,) the row used, over the source pieces (sums to 1).
    top_k: the k most likely pieces at step t with their probabilities.
    log_prob: log p(y_t | y_<t, x) of the forced piece y_t with these weights.
    argmax_changed: the most likely piece differs from the one under the model's own weights.
    tvd: total variation distance to the output distribution under the model's own weights.
    """

    name: str
    weights: np.ndarray
    top_k: list[tuple[str, float]]
    log_prob: float
    argmax_changed: bool
    tvd: float


@dataclass(frozen=True)
class Explanation:
    """Attention, leave-one-out and gradient x input for one target position, and counterfactuals.

    model: the translator's attention (``bahdanau``, ``luong-dot``, ...).
    source_pieces: the S pieces the encoder read (ending with ``</s>``); source_words: the W words
        they make; word_pieces[w]: the piece indices of word w.
    target_tokens: the T forced target pieces; step: the position t explained; token: y_t.
    log_prob: log p(y_t | y_<t, x).
    attention, grad_input: (S,) alpha_t and gradient x input per piece.
    word_attention, leave_one_out, word_grad_input: (W,) the three measures per word.
    rho_loo, rho_grad: Spearman's rho of |leave-one-out| and of |gradient x input| with the
        attention, over the W words; rho_loo_grad: of the two with each other. NaN when a measure
        is constant (or W < 2).
    counterfactuals: one :class:`Counterfactual` per name of :data:`COUNTERFACTUALS`, in order.
    n_permutations: the permutations tried; permuted_changed: the share of them that changed the
        argmax; permuted_median_tvd: the median of their TVDs.
    candidates: the C pieces in the top-k of any of the three counterfactuals (the model's first);
        candidate_probs: (3, C) their probabilities under each, rows in :data:`COUNTERFACTUALS` order.
    support: (S,) bool, the pieces uniform and permuted weights may use (the local window, or all).
    """

    model: str
    source_pieces: list[str]
    source_words: list[str]
    word_pieces: list[list[int]]
    target_tokens: list[str]
    step: int
    token: str
    log_prob: float
    attention: np.ndarray
    grad_input: np.ndarray
    word_attention: np.ndarray
    leave_one_out: np.ndarray
    word_grad_input: np.ndarray
    rho_loo: float
    rho_grad: float
    rho_loo_grad: float
    counterfactuals: tuple[Counterfactual, ...]
    n_permutations: int
    permuted_changed: float
    permuted_median_tvd: float
    candidates: list[str]
    candidate_probs: np.ndarray
    support: np.ndarray


def ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of ``x`` (n,), ties given the average of the ranks they span."""
    x = np.asarray(x, dtype=float).ravel()
    order = np.argsort(x, kind="stable")
    sorted_x = x[order]
    starts = np.r_[True, sorted_x[1:] != sorted_x[:-1]]  # first element of each run of ties
    run = np.cumsum(starts) - 1  # (n,) run index of each sorted element
    first = np.flatnonzero(starts)
    last = np.r_[first[1:], x.size] - 1
    out = np.empty(x.size)
    out[order] = (first[run] + last[run]) / 2 + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's r of the (tie-averaged) ranks; NaN when either
    vector is constant or shorter than 2."""
    ra, rb = ranks(np.asarray(a)), ranks(np.asarray(b))
    if ra.size != rb.size:
        raise ValueError(f"spearman needs equal lengths, got {ra.size} and {rb.size}")
    if ra.size < 2 or np.ptp(ra) == 0 or np.ptp(rb) == 0:
        return float("nan")
    da, db = ra - ra.mean(), rb - rb.mean()
    return float((da * db).sum() / np.sqrt((da * da).sum() * (db * db).sum()))


def leave_one_out_batch(
    ids: Sequence[int], groups: Sequence[Sequence[int]]
) -> tuple[torch.Tensor, torch.Tensor]:
    """The source and, for each word, the source without it: src (1 + W, S) padded with 0 and
    lengths (1 + W,); row 0 is ``ids`` itself, row w + 1 lacks the pieces ``groups[w]``."""
    drops = [set(g) for g in groups]
    rows = [list(ids)] + [[i for j, i in enumerate(ids) if j not in drop] for drop in drops]
    src = torch.zeros(len(rows), len(ids), dtype=torch.long)  # (B, S)
    for r, row in enumerate(rows):
        src[r, : len(row)] = torch.tensor(row, dtype=torch.long)
    return src, torch.tensor([len(row) for row in rows])


@dataclass(frozen=True)
class ForcedPass:
    """A forced pass up to step t. log_probs (B,) log p(y_t) per row of the batch; embedded (S, E)
    the embeddings of row 0 (the whole sentence) and grad (S, E) the gradient of its log p(y_t) with
    respect to them; before (the decoder state before step t) and memory, both for row 0 only;
    weights, gaussian (S,) the model's step-t row (gaussian None for global attention)."""

    log_probs: torch.Tensor
    embedded: torch.Tensor
    grad: torch.Tensor
    before: DecoderState
    memory: Memory
    weights: torch.Tensor
    gaussian: torch.Tensor | None

    @property
    def support(self) -> torch.Tensor:
        """(S,) bool: the pieces attention may use at t: the local window, or every piece."""
        if self.gaussian is None:
            return torch.ones_like(self.weights, dtype=torch.bool)
        return self.gaussian > 0  # the Gaussian is exactly 0 outside [p_t - D, p_t + D]


def _decode_to(
    model: Seq2Seq,
    embedded: torch.Tensor,
    lengths: torch.Tensor,
    inputs: Sequence[int],
    window: int | None,
) -> tuple[Memory, DecoderState, StepOutput]:
    """Encode ``embedded`` (B, S, E) and feed the decoder ``inputs`` (the same ids in every row):
    (memory, the decoder state before the last input, the output of the last step)."""
    memory, state = model.encode_embedded(embedded, lengths)
    for y_prev in inputs:
        before = state
        y = torch.full((embedded.shape[0],), y_prev, dtype=torch.long, device=embedded.device)
        out, state = model.decode_step(y, state, memory, window)  # logits (B, V)
    return memory, before, out


def forced_pass(
    model: Seq2Seq,
    src: torch.Tensor,
    lengths: torch.Tensor,
    target: Sequence[int],
    step: int,
    window: int | None = None,
) -> ForcedPass:
    """Every row of ``src`` (B, S) in one batched pass without autograd: encode, force the decoder
    through ``target[:step]``, score ``target[step]``. Then row 0 alone with autograd: the gradient
    of its log-probability with respect to its embeddings (the model's parameters get none: the
    model may be shared)."""
    device = next(model.parameters()).device
    inputs = [BOS_ID, *target[:step]]  # y_<t, after <s>
    with torch.inference_mode(False):  # also when called in inference mode
        src, lengths = src.to(device).clone(), lengths.to(device).clone()  # normal tensors
        with torch.no_grad():
            embedded = model.encoder.embedding(src)  # (B, S, E)
            memory, before, out = _decode_to(model, embedded, lengths, inputs, window)
            log_probs = torch.log_softmax(out.logits.float(), -1)[:, target[step]]  # (B,)
            row0 = torch.zeros(1, dtype=torch.long, device=device)
            before, memory = before.select(row0), memory.select(row0)
        with torch.enable_grad():
            x = embedded[:1].clone().requires_grad_(True)  # (1, S, E): the whole sentence
            __, __, out0 = _decode_to(model, x, lengths[:1], inputs, window)
            log_p = torch.log_softmax(out0.logits.float(), -1)[0, target[step]]
            (grad,) = torch.autograd.grad(log_p, x)  # (1, S, E)
    gaussian = None if out.gaussian is None else out.gaussian[0]
    return ForcedPass(log_probs, x[0].detach(), grad[0], before, memory, out.weights[0], gaussian)


def counterfactual_rows(
    weights: torch.Tensor, support: torch.Tensor, n_permutations: int, seed: int
) -> torch.Tensor:
    """(2 + n_permutations, S): the model's row ``weights`` (S,), the uniform row over ``support``
    (S,) bool, and ``n_permutations`` seeded permutations of the weights inside ``support``."""
    idx = torch.nonzero(support).squeeze(-1)  # (k,)
    uniform = torch.zeros_like(weights)
    uniform[idx] = 1.0 / idx.numel()
    rng = np.random.default_rng(seed)
    orders = rng.permuted(np.tile(np.arange(idx.numel()), (n_permutations, 1)), axis=1)  # (n, k)
    permuted = weights.repeat(n_permutations, 1)  # (n, S)
    inside = weights[idx]  # (k,)
    permuted[:, idx] = inside[torch.as_tensor(orders, device=weights.device)]
    return torch.cat([weights[None], uniform[None], permuted])  # (2 + n, S)


@torch.no_grad()
def override_step(
    model: Seq2Seq, run: ForcedPass, y_prev: int, rows: torch.Tensor, window: int | None = None
) -> torch.Tensor:
    """Log-probabilities (K, V) of decoder step t from the state ``run`` reached, once per attention
    row of ``rows`` (K, S) (the seam ``Seq2Seq.decode_step(..., override=...)``)."""
    index = torch.zeros(rows.shape[0], dtype=torch.long, device=rows.device)
    y = torch.full((rows.shape[0],), y_prev, dtype=torch.long, device=rows.device)  # (K,)
    out, __ = model.decode_step(y, run.before.select(index), run.memory.select(index), window, rows)
    return torch.log_softmax(out.logits.float(), -1)  # (K, V)


def _counterfactuals(
    log_probs: torch.Tensor, rows: torch.Tensor, token: int, top_k: int, translator: Translator
) -> tuple[tuple[Counterfactual, ...], torch.Tensor, torch.Tensor]:
    """The three :class:`Counterfactual` (model, uniform, first permutation) from ``log_probs``
    (K, V) and ``rows`` (K, S); and for every row whether its argmax changed (K,) and its TVD (K,)."""
    probs = log_probs.exp()  # (K, V)
    tvd = 0.5 * (probs - probs[0]).abs().sum(-1)  # (K,)
    argmax = probs.argmax(-1)  # (K,)
    changed = argmax != argmax[0]
    top = probs.topk(min(top_k, probs.shape[-1]), dim=-1)
    found = []
    for k, name in enumerate(COUNTERFACTUALS):
        ids, values = top.indices[k].tolist(), top.values[k].tolist()
        found.append(
            Counterfactual(
                name=name,
                weights=rows[k].float().cpu().numpy(),
                top_k=list(zip(translator.tgt_tok.pieces(ids), values, strict=True)),
                log_prob=float(log_probs[k, token]),
                argmax_changed=bool(changed[k]),
                tvd=float(tvd[k]),
            )
        )
    return tuple(found), changed, tvd


def _candidates(log_probs: torch.Tensor, top_k: int) -> list[int]:
    """The ids in the top-k of any of the first three rows of ``log_probs`` (K, V), in order."""
    top = log_probs[: len(COUNTERFACTUALS)].topk(min(top_k, log_probs.shape[-1]), dim=-1).indices
    return list(dict.fromkeys(top.flatten().tolist()))


def _target_ids(
    translator: Translator, target_tokens: Sequence[str], step: int, n_permutations: int
) -> list[int]:
    """The forced target's piece ids; ValueError for a model without attention, an empty target,
    a step outside it, or no permutation."""
    if translator.model.attention is None:
        raise ValueError(_("the model without attention has no attention to explain"))
    if n_permutations < 1:
        raise ValueError(f"n_permutations must be at least 1, got {n_permutations}")
    if not target_tokens:
        raise ValueError(_("there is no translation to explain"))
    if not 0 <= step < len(target_tokens):
        raise ValueError(
            _("step {step} is outside the translation (0 to {last})").format(
                step=step, last=len(target_tokens) - 1
            )
        )
    return [int(translator.tgt_tok.sp.piece_to_id(p)) for p in target_tokens]


def _piece_measures(run: ForcedPass) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From the forced pass: alpha_t (S,), gradient x input (S,) of row 0, and the leave-one-out
    differences log p(y_t | x) - log p(y_t | x without word w) (W,)."""
    grad_input = (run.grad * run.embedded).sum(-1)  # (S,)
    log_probs = run.log_probs.float().cpu().numpy()  # (1 + W,)
    attention = run.weights.float().cpu().numpy()
    return attention, grad_input.float().cpu().numpy(), log_probs[0] - log_probs[1:]


def explain(
    translator: Translator,
    text: Sentence | str,
    target_tokens: Sequence[str],
    step: int,
    *,
    top_k: int = 5,
    n_permutations: int = 100,
    seed: int = 0,
    window: int | None = None,
) -> Explanation:
    """Explain target position ``step`` of the translation ``target_tokens`` (pieces, as
    :class:`models.rnn.translator.Translation` gives them) of the English ``text``; ``window``:
    the local models' half-width D (None: as trained).

    ValueError for a model without attention, an empty sentence or a step outside the target."""
    model = translator.model
    target = _target_ids(translator, target_tokens, step, n_permutations)
    source = translator._source(text)
    pieces = translator.src_tok.pieces(source.ids)
    groups = group_pieces(pieces)
    run = forced_pass(model, *leave_one_out_batch(source.ids, groups), target, step, window)
    rows = counterfactual_rows(run.weights, run.support, n_permutations, seed)  # (2 + n, S)
    y_prev = BOS_ID if step == 0 else target[step - 1]
    log_probs = override_step(model, run, y_prev, rows, window)  # (2 + n, V)
    found, changed, tvd = _counterfactuals(log_probs, rows, target[step], top_k, translator)
    attention, grad_input, loo = _piece_measures(run)
    candidates = _candidates(log_probs, top_k)
    word_att = np.array([attention[g].sum() for g in groups])  # (W,)
    word_grad = np.array([grad_input[g].sum() for g in groups])  # (W,)
    return Explanation(
        model=model.cfg.attention,
        source_pieces=pieces,
        source_words=[word_text(pieces, g) for g in groups],
        word_pieces=[list(g) for g in groups],
        target_tokens=list(target_tokens),
        step=step,
        token=target_tokens[step],
        log_prob=float(run.log_probs[0]),
        attention=attention,
        grad_input=grad_input,
        word_attention=word_att,
        leave_one_out=loo,
        word_grad_input=word_grad,
        rho_loo=spearman(np.abs(loo), word_att),
        rho_grad=spearman(np.abs(word_grad), word_att),
        rho_loo_grad=spearman(np.abs(loo), np.abs(word_grad)),
        counterfactuals=found,
        n_permutations=n_permutations,
        permuted_changed=float(changed[2:].float().mean()),
        permuted_median_tvd=float(np.median(tvd[2:].cpu().numpy())),
        candidates=translator.tgt_tok.pieces(candidates),
        candidate_probs=log_probs[: len(COUNTERFACTUALS), candidates].exp().float().cpu().numpy(),
        support=run.support.cpu().numpy(),
    )
