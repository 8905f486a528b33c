"""The Alignment page's lesson: each score's formula in its paper's notation, and the step
inspector's three stages of soft addressing (scores e, weights alpha = softmax(e), context
c = sum alpha h) with the numbers of the chosen target word.

The formulas say what :mod:`models.rnn.seq2seq` computes: Bahdanau et al. 2015 (eqs. 5-6) score
with the decoder's *previous* state s_{i-1}, Luong et al. 2015 (eqs. 7-8) with its *current* state
h_t; the keys h_j / h̄_s are the encoder's outputs projected to the decoder's size.
"""

from __future__ import annotations

import html

import numpy as np
import streamlit as st

from i18n import N_, _
from models.rnn.translator import Translation
from models.subword_merge import group_pieces, word_text
from ui.charts import plotly_chart
from ui.errors import fragment
from ui.sidebar import classroom_mode
from ui.tables import table_ui
from ui.text import escape_markdown
from ui.translation import step_slider
from viz.scores import candidates_bars, soft_addressing_figure

LUONG_WEIGHTS = (
    r"\alpha_{t,s} = \operatorname{softmax}_s(e_{t,s}) = "
    r"\frac{\exp(e_{t,s})}{\sum_{s'} \exp(e_{t,s'})}"
)
LUONG_CONTEXT = r"c_t = \sum_s \alpha_{t,s}\, \bar h_s"
# model id -> (score, weights, context): Bahdanau et al. 2015 eqs. 5-6; Luong et al. 2015 eqs. 7-8
FORMULAS = {
    "bahdanau": (
        r"e_{ij} = v_a^{\top} \tanh\left(W_a s_{i-1} + U_a h_j\right)",
        r"\alpha_{ij} = \operatorname{softmax}_j(e_{ij}) = "
        r"\frac{\exp(e_{ij})}{\sum_{k=1}^{T_x} \exp(e_{ik})}",
        r"c_i = \sum_{j=1}^{T_x} \alpha_{ij}\, h_j",
    ),
    "luong-dot": (
        r"e_{t,s} = \operatorname{score}(h_t, \bar h_s) = h_t^{\top} \bar h_s",
        LUONG_WEIGHTS,
        LUONG_CONTEXT,
    ),
    "luong-general": (
        r"e_{t,s} = \operatorname{score}(h_t, \bar h_s) = h_t^{\top} W_a \bar h_s",
        LUONG_WEIGHTS,
        LUONG_CONTEXT,
    ),
    "luong-concat": (
        r"e_{t,s} = \operatorname{score}(h_t, \bar h_s) = "
        r"v_a^{\top} \tanh\left(W_a [h_t; \bar h_s]\right)",
        LUONG_WEIGHTS,
        LUONG_CONTEXT,
    ),
}
# (target index, source index, key) in each paper's notation
NOTATION = {"bahdanau": ("i", "j", "h")} | {
    model: ("t", "s", r"\bar h") for model in ("luong-dot", "luong-general", "luong-concat")
}
BAHDANAU_NOTE = N_(
    "$s_{i-1}$: the decoder's previous state (its top layer), so the weights are chosen before "
    "the new state; $h_j$: the encoder's output at source position $j$ (its forward and backward "
    "states, projected to the decoder's size). The code's $U_a$ adds a bias inside the tanh. The "
    "context then enters the next state: $s_i = f(s_{i-1}, y_{i-1}, c_i)$."
)
LUONG_NOTE = N_(
    "$h_t$: the decoder's current state (after this step's recurrent cell); $\\bar h_s$: the "
    "encoder's output at source position $s$. Luong writes the weights as $a_t(s)$. The context "
    "then predicts the word: $\\tilde h_t = \\tanh(W_c [c_t; h_t])$, "
    "$p(y_t) = \\operatorname{softmax}(W_s \\tilde h_t)$."
)
CONCAT_NOTE = N_(
    "The code computes $W_a [h_t; \\bar h_s]$ as $W_1 h_t + W_2 \\bar h_s$ (the same product, "
    "with $W_a$ split in two) plus a bias."
)
TOP_ROWS = 5  # source tokens shown with their numbers
CONTEXT_UNITS = 4  # units of the context vector written out


def formula_ui(model: str, *, score_only: bool = False) -> None:
    """The score, weights and context of ``model`` (a key of FORMULAS) as formulas, with what
    the symbols are; ``score_only``: the score line alone (under a heatmap that compares)."""
    score, weights, context = FORMULAS[model]
    st.latex(score)
    if score_only:
        return
    st.latex(weights)
    st.latex(context)
    st.caption(_(BAHDANAU_NOTE) if model == "bahdanau" else _(LUONG_NOTE))
    if model == "luong-concat":
        st.caption(_(CONCAT_NOTE))


def _number(x: float) -> str:
    """``x`` for LaTeX with three significant digits: 61.6, 0.0123, 4.70 \\times 10^{18}."""
    if x != 0 and not 1e-3 <= abs(x) < 1e5:
        mantissa, exponent = f"{x:.2e}".split("e")
        return rf"{mantissa} \times 10^{{{int(exponent)}}}"
    return f"{x:.3g}"


def softmax_lines(model: str, step: int, j: int, e: np.ndarray) -> str:
    """LaTeX: the weight of source position ``j`` as exp(e_j) over the sum, then in numbers."""
    __, s, __ = NOTATION[model]
    shift = float(e.max())  # the same weights; the numbers stay finite (exp(e - max e))
    top, total = float(np.exp(e[j] - shift)), float(np.exp(e - shift).sum())
    exp_j, sum_exp = _number(top * np.exp(shift)), _number(total * np.exp(shift))
    return (
        rf"\begin{{aligned}} \alpha_{{{step},{j}}} &= \frac{{\exp(e_{{{step},{j}}})}}"
        rf"{{\sum_{{{s}'}} \exp(e_{{{step},{s}'}})}} = \frac{{\exp({e[j]:.2f})}}"
        rf"{{\sum_{{{s}'}} \exp(e_{{{step},{s}'}})}} \\ &= \frac{{{exp_j}}}{{{sum_exp}}} "
        rf"= {top / total:.3f} \end{{aligned}}"
    )


def context_lines(model: str, step: int, weights: np.ndarray, context: np.ndarray) -> str:
    """LaTeX: the context as the weighted sum of its largest terms, then its first units and
    its norm, one per line."""
    __, s, key = NOTATION[model]
    order = np.argsort(-weights)[:3]
    terms = " + ".join(rf"{weights[j]:.2f}\, {key}_{{{j}}}" for j in order)
    rest = r" + \dots" if weights.size > len(order) else ""
    units = r",\ ".join(f"{v:.2f}" for v in context[:CONTEXT_UNITS])
    more = r",\ \dots" if context.size > CONTEXT_UNITS else ""
    norm = float(np.linalg.norm(context))
    return (  # one short line each: the block must fit a phone's width
        rf"\begin{{aligned}} c_{{{step}}} &= \textstyle\sum_{{{s}}} \alpha_{{{step},{s}}}\, "
        rf"{key}_{{{s}}} \\ &= {terms}{rest} \\ &= ({units}{more}) \\ "
        rf"\lVert c_{{{step}}} \rVert &= {norm:.2f}, \quad c_{{{step}}} \in "
        rf"\mathbb{{R}}^{{{context.size}}} \end{{aligned}}"
    )


def word_of_step_ui(pieces: list[str], step: int) -> None:
    """The word view carried into the step inspector: the model takes one step per subword
    piece (its scores e exist per piece), so the inspector does too, and says which word of the
    word view's rows the step's piece belongs to."""
    group = next(g for g in group_pieces(pieces) if step in g)
    st.caption(
        _(
            "Word view: the model takes one step per subword piece, and so does the inspector. "
            "Step {step} is piece {k} of {n} of the word “{word}”, whose row in the word view "
            "averages its pieces' rows."
        ).format(
            step=step,
            k=group.index(step) + 1,
            n=len(group),
            word=escape_markdown(word_text(pieces, group)),
        )
    )


def stage_rows(tr: Translation, step: int) -> list[dict[str, object]]:
    """The source tokens with the largest weights at ``step``: position, token, score e and
    weight alpha (column names translated, numbers as text with three decimals)."""
    e, alpha = tr.scores[step], tr.weights[step]
    j, token, score, weight = _("position"), _("source token"), _("score e"), _("weight α")
    return [
        {j: int(k), token: tr.source_tokens[k], score: f"{e[k]:.3f}", weight: f"{alpha[k]:.3f}"}
        for k in np.argsort(-alpha)[:TOP_ROWS]
    ]


@fragment
def step_inspector_ui(tr: Translation, model: str, level: str = "piece") -> None:
    """One target step of ``model``: the scores e, the weights alpha = softmax(e) and the
    context c, with their numbers, and the candidates for the next token; in the word view
    (``level`` "word"), which word the step's piece belongs to.

    A fragment of its own inside the page's: moving the step reruns the inspector alone, not the
    controls, the translation and the charts above it (docs/performance.md)."""
    st.subheader(_("Step inspector"))
    step = step_slider(_("Target step (subword pieces)"), "aln_step", len(tr.target_tokens))
    if level == "word":
        word_of_step_ui(list(tr.target_tokens), step)
    token = html.escape(tr.target_tokens[step])
    title = _("Step {step}: how “{token}” addressed the source").format(step=step, token=token)
    if tr.scores is not None and model in FORMULAS:
        fig = soft_addressing_figure(
            tr.scores[step], tr.weights[step], tr.source_tokens, title=title
        )
        plotly_chart(fig, key="aln_step_fig")
    # in classroom mode the candidates' bars need half the row: in two fifths of it (412 px at
    # 1280x720) 78 px of them were hidden sideways
    numbers, candidates = st.columns([1, 1] if classroom_mode() else [3, 2], gap="medium")
    with numbers:
        if tr.scores is not None and model in FORMULAS:
            stage_numbers_ui(tr, model, step)
    with candidates:
        fig = candidates_bars(tr.top_k[step], title=_("What it wrote next"))
        plotly_chart(fig, key="aln_step_next")
        st.caption(_("The emitted token had probability {p:.3f}.").format(p=tr.token_probs[step]))


def stage_numbers_ui(tr: Translation, model: str, step: int) -> None:
    """The numbers of the three stages at ``step``: the top source tokens' scores and weights,
    one weight worked out from the scores, and the context vector as a weighted sum."""
    st.markdown(_("**① ② in numbers**: the source tokens with the largest weights."))
    table_ui(stage_rows(tr, step))
    e, alpha = tr.scores[step], tr.weights[step]
    st.latex(softmax_lines(model, step, int(np.argmax(alpha)), e))
    st.markdown(_("**③ the weighted sum**: the context vector."))
    st.latex(context_lines(model, step, alpha, tr.contexts[step]))
    st.caption(
        _(
            "The context is the weights' average of the encoder's outputs: the decoder reads "
            "this one vector, not the whole sentence."
        )
    )
