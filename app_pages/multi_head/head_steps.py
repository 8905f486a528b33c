"""The Multi-head attention page's equations and one head's computation, step by step.

:func:`equations_ui` renders eq. 1 and the multi-head equations of Vaswani et al. (2017) with the
numbers of the model shown (h, d_model, d_k); :func:`head_steps_ui` shows, for the chosen layer and
head, Q·Kᵀ, the division by √d_k, the decoder's causal mask, the softmax and the product with V,
recomputed from the model's own weights (:mod:`models.transformer.head_steps`) and checked against
the weights the model returned. Rows are queries (the tokens that attend), columns keys (the
tokens attended to); long sentences show a window of WINDOW queries, every key kept.
"""

from __future__ import annotations

import streamlit as st
import torch

from app_pages.multi_head.settings import ModelSettings
from i18n import N_, _
from models.transformer.head_steps import (
    HeadSteps,
    ModelShape,
    pretrained_head_steps,
    pretrained_shape,
    transformer_head_steps,
    transformer_shape,
)
from models.transformer.pretrained import DEFAULT_MODEL
from serve.cache import MB, bounded_cache
from ui.charts import plotly_chart
from ui.guard import guarded_ui
from ui.loaders import cached_model, cached_transformer, load_pretrained, model_key
from ui.multi_head import HeadsView, run_transformer
from ui.sidebar import current_device
from ui.url_state import check_number_param
from viz.head_steps import Panel, step_panels

WINDOW = 12  # queries shown at once; every key is always shown
ATTENTION = (
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
)
MASKED = (
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V"
)
MASK = r"M_{ts} = \begin{cases} 0 & s \le t \\ -\infty & s > t \end{cases}"
MULTI_HEAD = (
    r"\mathrm{MultiHead}(Q, K, V) = \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\,W^O"
)
HEAD_I = r"\mathrm{head}_i = \mathrm{Attention}(Q W_i^Q, K W_i^K, V W_i^V)"
SYMBOLS = {  # attention -> what Q, K and V are made of, in words
    "encoder": N_(
        "Here $Q$, $K$ and $V$ are all $X$, the vectors this encoder layer reads (one row per "
        "English piece): self-attention. Each head projects them to $d_k$ dimensions with its "
        "own $W_i^Q, W_i^K, W_i^V$; $W^O$ mixes the $h$ heads' outputs back into "
        "$d_{model}$ dimensions."
    ),
    "decoder": N_(
        "Here $Q$, $K$ and $V$ are all $X$, the vectors this decoder layer reads (one row per "
        "French piece written so far), and $M$ hides every later piece: masked self-attention, "
        "so a piece cannot look ahead. Each head has its own $W_i^Q, W_i^K, W_i^V$; $W^O$ "
        "mixes the heads."
    ),
    "cross": N_(
        "Here $Q$ comes from the decoder (one row per French piece) and $K$ and $V$ from the "
        "encoder's output (one row per English piece): cross attention. Each head has its own "
        "$W_i^Q, W_i^K, W_i^V$; $W^O$ mixes the heads."
    ),
    "pretrained": N_(
        "Here $Q$, $K$ and $V$ are all $X$, the vectors this layer reads (one row per word "
        "piece): self-attention, with no mask. Each head projects them to $d_k$ dimensions with "
        "its own $W_i^Q, W_i^K, W_i^V$; $W^O$ mixes the $h$ heads' outputs back into "
        "$d_{model}$ dimensions."
    ),
}


def numbers_latex(shape: ModelShape) -> list[str]:
    """The model's h, d_model, d_k, and the shapes of its projections, as LaTeX lines."""
    h, d, d_k = shape.n_heads, shape.d_model, shape.d_k
    return [
        rf"h = {h},\quad d_{{\mathrm{{model}}}} = {d},\quad d_k = d_v = "
        rf"\frac{{d_{{\mathrm{{model}}}}}}{{h}} = {d_k},\quad \sqrt{{d_k}} \approx {d_k**0.5:.2f}",
        rf"W_i^Q, W_i^K, W_i^V \in \mathbb{{R}}^{{{d} \times {d_k}}},\quad "
        rf"W^O \in \mathbb{{R}}^{{{h * d_k} \times {d}}}",
    ]


def head_latex(attention: str, head: int, shape: ModelShape) -> str:
    """The chosen head's own equation, with its number and √d_k."""
    i, d_k = head + 1, shape.d_k
    q, kv = ("Y", "H") if attention == "cross" else ("X", "X")
    mask = " + M" if attention == "decoder" else ""
    return (
        rf"\mathrm{{head}}_{{{i}}} = \mathrm{{softmax}}\!\left(\frac{{({q} W_{{{i}}}^Q)"
        rf"({kv} W_{{{i}}}^K)^\top}}{{\sqrt{{{d_k}}}}}{mask}\right) {kv} W_{{{i}}}^V"
    )


def equations_ui(settings: ModelSettings, shape: ModelShape, head: int) -> None:
    """Eq. 1 (with the mask for the decoder), the multi-head equations, this model's numbers and
    the chosen head's equation, one short line each (a phone scrolls a line sideways)."""
    attention = settings.attention if settings.source == "transformer" else "pretrained"
    st.subheader(_("The equations, with this model's numbers"))
    st.latex(MASKED if attention == "decoder" else ATTENTION)
    if attention == "decoder":
        st.latex(MASK)
    st.latex(MULTI_HEAD)
    st.latex(HEAD_I)
    for line in numbers_latex(shape):
        st.latex(line)
    st.latex(head_latex(attention, head, shape))
    st.caption(_(SYMBOLS[attention]))
    if attention == "cross":
        st.caption(_("$Y$: the decoder's vectors (French); $H$: the encoder's output (English)."))


# ------------------------------------------------------------------ cached computations


# The small Transformers' heads: at most 64 x 64 tokens, d_k 32: under 0.2 MB a result, 6 MB in all.
@st.cache_data(max_entries=32, show_spinner=False)
def transformer_steps(
    folder: str, device: str, stamp: float, text: str, beam: int, where: tuple[str, int, int]
) -> HeadSteps:
    """One head ``where`` = (attention, layer, head) of the translation of ``text``, step by step."""
    result = run_transformer(folder, device, stamp, text, beam)
    with torch.inference_mode():
        translator = cached_model("transformer", folder, device, stamp)
        return transformer_head_steps(translator, result, *where)


# MiniLM's heads: up to 3.3 MB a result at 512 pieces (the scores, scaled scores, mask and
# weights, 512 x 512 each), so bounded in bytes as well, and shared read-only (serve.cache).
@bounded_cache(max_entries=32, max_bytes=32 * MB)
def pretrained_steps(name: str, device: str, text: str, layer: int, head: int) -> HeadSteps:
    """One head of the pretrained encoder ``name`` on ``text``, step by step."""
    with torch.inference_mode():
        encoder = cached_model("pretrained", name, device, 0.0)
        return pretrained_head_steps(encoder, text, layer, head)


def load_steps(
    settings: ModelSettings, text: str, layer: int, head: int
) -> tuple[ModelShape, HeadSteps] | None:
    """The model's numbers and the chosen head's steps; None after a message."""
    if settings.source == "transformer":
        translator = cached_transformer(settings.positional, quiet=True)
        if translator is None:
            return None
        shape = transformer_shape(translator, settings.attention)
        key = model_key(f"transformer-{settings.positional}")
        where = (settings.attention, layer, head)
        steps = guarded_ui(lambda: transformer_steps(*key, text, settings.beam, where))
    else:
        name = settings.hf_name.strip() or DEFAULT_MODEL
        encoder = load_pretrained(name)
        if encoder is None:
            return None
        shape = pretrained_shape(encoder)
        steps = guarded_ui(lambda: pretrained_steps(name, current_device(), text, layer, head))
    return None if steps is None else (shape, steps)


# ------------------------------------------------------------------ the page section


def window_ui(n_queries: int) -> slice:
    """The queries shown: all of them up to WINDOW, else WINDOW from a slider's start (1-based on
    screen, kept in the URL as ``mh_q0``)."""
    if n_queries <= WINDOW:
        return slice(0, n_queries)
    last = n_queries - WINDOW + 1
    check_number_param("mh_q0", 1, last)
    if int(st.session_state.get("mh_q0", 1)) > last:  # a shorter sentence than before
        st.session_state["mh_q0"] = last
    start = st.slider(
        _("First query shown ({n} at a time, of {total})").format(n=WINDOW, total=n_queries),
        1,
        last,
        1,
        key="mh_q0",
        bind="query-params",
    )
    return slice(int(start) - 1, int(start) - 1 + WINDOW)


def _axis_names(attention: str) -> tuple[str, str]:
    """(row title, column title) of the step panels: queries and keys, by language side in
    cross attention."""
    if attention == "cross":
        return _("query (French)"), _("key (English)")
    return _("query"), _("key")


def _title(view: HeadsView, steps: HeadSteps, values: bool = False) -> str:
    """Three lines (four for the values, whose two panels' rows differ): what the figure shows,
    then what its rows and its columns are."""
    where = _("{attention}, layer {layer}, head {head}").format(
        attention=view.title, layer=steps.layer + 1, head=steps.head + 1
    )
    if values:
        rows = (
            _("rows of V: keys, the tokens attended to") + "<br>" + _("rows of the output: queries")
        )
        columns = _("columns: the d_v = {d} dimensions of the value vectors").format(
            d=steps.values.shape[1]
        )
    elif steps.attention == "cross":
        rows = _("rows: queries, the French pieces that attend (decoder)")
        columns = _("columns: keys, the English pieces attended to (encoder)")
    else:
        rows = _("rows: queries, the tokens that attend")
        columns = _("columns: keys, the tokens attended to")
    return f"{where}<br>{rows}<br>{columns}"


def score_panels(steps: HeadSteps, view: HeadsView, rows: slice) -> list[Panel]:
    """Q·Kᵀ, ÷√d_k, the mask (decoder) and the softmax, for the queries ``rows``."""
    y_name, x_name = _axis_names(steps.attention)
    queries, keys = view.query_tokens[rows], view.key_tokens
    d_k = steps.shape.d_k
    kept = steps.keep[rows]

    def panel(title: str, z, value: str, **extra) -> Panel:
        return Panel(title, z, queries, keys, y_name, x_name, value, **extra)

    panels = [
        panel(
            _("1. Q·Kᵀ: each query's dot product with each key"),
            steps.scores[rows],
            "Q·Kᵀ",
            diverging=True,
            digits=1,
        ),
        panel(
            _("2. ÷ √d_k = ÷ {root:.2f}: the scaled scores").format(root=d_k**0.5),
            steps.scaled[rows],
            "Q·Kᵀ/√d_k",
            diverging=True,
            digits=1,
        ),
    ]
    if steps.causal:
        masked = steps.scaled[rows].copy()
        masked[~kept] = float("nan")
        panels.append(
            panel(
                _("3. + M: −∞ (grey) where the key comes after the query"),
                masked,
                "Q·Kᵀ/√d_k + M",
                diverging=True,
                digits=1,
            )
        )
    n = len(panels) + 1
    panels.append(
        panel(
            _("{n}. softmax of each row: the weights, each row sums to 1").format(n=n),
            steps.weights[rows],
            _("weight"),
        )
    )
    return panels


def value_panels(steps: HeadSteps, view: HeadsView, rows: slice) -> list[Panel]:
    """V (one row per key) and the head's output softmax·V (one row per query)."""
    y_name, x_name = _axis_names(steps.attention)
    dims = [str(i + 1) for i in range(steps.values.shape[1])]
    dim = _("dimension")
    n = 5 if steps.causal else 4
    return [
        Panel(
            _("{n}a. V: each key's value vector").format(n=n),
            steps.values,
            view.key_tokens,
            dims,
            x_name,
            dim,
            "V",
            diverging=True,
        ),
        Panel(
            _("{n}b. softmax · V = head {head}'s output: one row per query").format(
                n=n, head=steps.head + 1
            ),
            steps.context[rows],
            view.query_tokens[rows],
            dims,
            y_name,
            dim,
            _("output"),
            diverging=True,
        ),
    ]


def head_steps_ui(settings: ModelSettings, text: str, view: HeadsView, layer: int, head: int):
    """The equations, then the chosen head's computation as two figures (scores to weights;
    weights times V), for a window of queries; ``view`` has every token (nothing hidden)."""
    loaded = load_steps(settings, text, layer, head)
    if loaded is None:
        return
    shape, steps = loaded
    equations_ui(settings, shape, head)
    st.subheader(
        _("Layer {layer}, head {head}: its computation step by step").format(
            layer=layer + 1, head=head + 1
        )
    )
    if steps.weights.shape != (len(view.query_tokens), len(view.key_tokens)):
        st.info(_("The step-by-step view is not available for this input."), icon=":material/info:")
        return
    if view.hidden:
        st.caption(
            _("Every token is kept below, hidden ones too: this is what the model computed.")
        )
    rows = window_ui(len(view.query_tokens))
    fig = step_panels(score_panels(steps, view, rows), title=_title(view, steps))
    plotly_chart(fig, key="mh_steps")
    fig = step_panels(
        value_panels(steps, view, rows),
        title=_title(view, steps, values=True),
    )
    plotly_chart(fig, key="mh_steps_v")
    st.caption(
        _(
            "Recomputed from this head's own $W^Q$, $W^K$ and $W^V$ on the vectors the layer read; the "
            "softmax agrees with the weights the model returned to within {gap:.1e}. Hover over "
            "a cell for its query, key and value."
        ).format(gap=steps.gap)
    )
