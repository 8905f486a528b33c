"""Recurrent networks: the first chapter of the story, in the source article's order (RNN, deep
RNN, bidirectional RNN, the vanishing gradient, LSTM, GRU), each with its equations and a diagram;
then live on a typed sentence the shipped translator's bidirectional GRU encoder (hidden states,
update and reset gates, both directions) and the gradient ‖∂h_T/∂x_t‖ of three small trained
encoders (plain RNN, LSTM, GRU: training/train_encoders.py)."""

from __future__ import annotations

import streamlit as st

from app_pages.recurrent.live_encoders import live_gru_ui, vanishing_gradient_ui
from i18n import N_, _
from ui.charts import plotly_chart
from ui.errors import fragment
from ui.sidebar import classroom_mode
from ui.text import page_intro, show_text_notices
from ui.translation import sentence_ui
from viz.diagram_words import described
from viz.recurrent_diagrams import DIAGRAMS

RNN = r"h_t = \tanh\left(W h_{t-1} + U x_t + b\right), \qquad h_0 = 0"
DEEP = (
    r"h_t^{(l)} = \tanh\left(W^{(l)} h_{t-1}^{(l)} + U^{(l)} h_t^{(l-1)} + b^{(l)}\right),"
    r" \qquad h_t^{(0)} = x_t"
)
BIRNN = r"""\begin{aligned}
\overrightarrow{h}_t &= \tanh\left(\overrightarrow{W}\,\overrightarrow{h}_{t-1}
  + \overrightarrow{U} x_t + \overrightarrow{b}\right) \\
\overleftarrow{h}_t &= \tanh\left(\overleftarrow{W}\,\overleftarrow{h}_{t+1}
  + \overleftarrow{U} x_t + \overleftarrow{b}\right) \\
h_t &= \left[\overrightarrow{h}_t; \overleftarrow{h}_t\right]
\end{aligned}"""
CHAIN = (
    r"\frac{\partial h_T}{\partial x_t} = \left(\prod_{k=t+1}^{T}"
    r" \frac{\partial h_k}{\partial h_{k-1}}\right) \frac{\partial h_t}{\partial x_t},"
    r" \qquad \frac{\partial h_k}{\partial h_{k-1}} = \mathrm{diag}\left(1 - h_k^2\right) W"
)
LSTM = r"""\begin{aligned}
f_t &= \sigma\left(W_f h_{t-1} + U_f x_t + b_f\right) \\
i_t &= \sigma\left(W_i h_{t-1} + U_i x_t + b_i\right) \\
o_t &= \sigma\left(W_o h_{t-1} + U_o x_t + b_o\right) \\
\tilde{c}_t &= \tanh\left(W_c h_{t-1} + U_c x_t + b_c\right) \\
c_t &= f_t \odot c_{t-1} + i_t \odot \tilde{c}_t \\
h_t &= o_t \odot \tanh\left(c_t\right)
\end{aligned}"""
GRU = r"""\begin{aligned}
z_t &= \sigma\left(W_z h_{t-1} + U_z x_t + b_z\right) \\
r_t &= \sigma\left(W_r h_{t-1} + U_r x_t + b_r\right) \\
\tilde{h}_t &= \tanh\left(U_h x_t + b_h + r_t \odot \left(W_h h_{t-1} + b'_h\right)\right) \\
h_t &= z_t \odot h_{t-1} + \left(1 - z_t\right) \odot \tilde{h}_t
\end{aligned}"""
ABOUT = N_(
    "Before attention there was recurrence. A sentence is a sequence: each word depends on the "
    "ones around it, so a network that reads it should carry something from one word to the next. "
    "A recurrent neural network (RNN) unrolls along the time axis: the same cell, with the same "
    "weights, reads the inputs $x_1, x_2, \\dots$ one at a time and passes its hidden state $h_t$ on "
    "to the next step. This page follows the first chapter of the source article in its order: the plain "
    "RNN, the deep RNN, the bidirectional RNN, why gradients vanish, and the LSTM and GRU that "
    "answer it; then the trained encoders on a sentence you type."
)
SECTIONS = (  # (diagram id, title, formula, explanation, caption of the diagram)
    (
        "rnn",
        N_("RNN"),
        RNN,
        N_(
            "The simplest RNN is a small fully connected layer applied at every step: the new "
            "state $h_t$ mixes the previous state $h_{t-1}$ (through $W$) with the current input "
            "$x_t$ (through $U$). The parameters are shared by every step, and training is ordinary "
            "back-propagation through the unrolled network (back-propagation through time)."
        ),
        N_("Three steps of the unrolled RNN: the same $W$ and $U$ at every step."),
    ),
    (
        "deep",
        N_("Deep RNN"),
        DEEP,
        N_(
            "A deep (stacked) RNN puts several recurrent layers on top of each other: layer $l$ reads "
            "the hidden states of layer $l-1$ instead of the raw input, so there are several "
            "nonlinear layers between an input and its output and the network can extract more "
            "abstract features. Within a layer the parameters are shared over time; different "
            "layers have their own."
        ),
        N_("Two stacked layers: layer 2 reads the states of layer 1."),
    ),
    (
        "birnn",
        N_("Bidirectional RNN"),
        BIRNN,
        N_(
            "A one-way RNN's $h_t$ has seen only $x_1 \\dots x_t$. A bidirectional RNN runs a second RNN "
            "from the end of the sentence to its start and concatenates the two states, so every "
            "$h_t$ sees the whole sentence: the left context in $\\overrightarrow{h}_t$ and the "
            "right context in $\\overleftarrow{h}_t$. "
            "The encoder of this atlas's translators is a bidirectional GRU (Bahdanau et al. 2015)."
        ),
        N_("Forward states (below) read left to right, backward states (above) right to left."),
    ),
)
GATED = (
    (
        "lstm",
        N_("LSTM"),
        LSTM,
        N_(
            "The long short-term memory (LSTM; Hochreiter & Schmidhuber 1997, with the forget gate "
            "of Gers et al. 2000) keeps a separate cell state $c_t$ and three gates, each a sigmoid "
            "between 0 and 1: the forget gate $f_t$ decides how much of $c_{t-1}$ is kept, the "
            "input gate $i_t$ how much of the candidate $\\tilde{c}_t$ is written, the output gate "
            "$o_t$ how much of the cell is shown as $h_t$. Along the cell line, one step back multiplies the gradient "
            "by $f_t$ rather than by a weight matrix squashed by tanh: while $f_t$ stays near 1, "
            "information and gradient survive many steps."
        ),
        N_("One LSTM step: σ gates (green), element-wise products ⊙ and the sum +."),
    ),
    (
        "gru",
        N_("GRU"),
        GRU,
        N_(
            "The gated recurrent unit (GRU; Cho et al. 2014) simplifies the LSTM: no separate cell, "
            "and one update gate $z_t$ plays the forget and input gates together, interpolating "
            "between the old state and the candidate $\\tilde{h}_t$. The reset gate $r_t$ decides how much of "
            "the old state enters the candidate. With $z_t$ near 1 the state is copied "
            "forward almost unchanged. (As PyTorch computes it, $r_t$ multiplies $W_h h_{t-1}$; "
            "Cho et al. write $W_h (r_t \\odot h_{t-1})$.)"
        ),
        N_("One GRU step: $h_t = z_t \\odot h_{t-1} + (1 - z_t) \\odot \\tilde{h}_t$."),
    ),
)
VANISHING = N_(
    "Why a plain RNN forgets: by the chain rule, the gradient of the last state $h_T$ with "
    "respect to an early input $x_t$ is a product of one Jacobian per step between them. Each factor "
    "$\\mathrm{diag}(1 - h_k^2)\\,W$ shrinks vectors when tanh saturates or $W$ is small, so the product decays "
    "exponentially with the distance $T - t$: the earlier the input, the more factors, the weaker "
    "its influence on $h_T$ (the vanishing gradient; when the factors are large it explodes "
    "instead, which gradient clipping tames). Long-range dependencies are then hard to learn. "
    "The LSTM and GRU below were designed for this; the chart at the end of the page measures it."
)
LIVE_GRU = N_(
    "Your sentence through the encoder of the shipped `seq2seq-bahdanau` translator: an embedding "
    "and a bidirectional GRU with 256 units per direction, trained on Multi30k English → French. "
    "Every value below is computed by writing out the GRU's equations above with its trained "
    "weights (they agree with PyTorch's own GRU to float rounding)."
)
GRADIENT_TEXT = N_(
    "The chain rule above, measured. Three small encoder-decoders without attention were trained "
    "for this page with the project's own code (`python -m training.train_encoders`), identical "
    "except for the recurrent cell: a one-layer, one-way plain RNN, LSTM or GRU of 128 units, on "
    "Multi30k English → French with the tokenizers of `seq2seq-bahdanau`. Without attention the "
    "decoder sees the sentence only through the last state $h_T$, so $h_T$ must remember the first "
    "word. For each input position $t$ the chart shows $\\lVert \\partial h_T / \\partial x_t \\rVert$, "
    "the size of the Jacobian of $h_T$ with respect to that word's embedding (computed exactly with automatic differentiation). "
    "A line that falls steeply to the left is a vanishing gradient; the table gives each model's "
    "measured test BLEU."
)


def formula_section(diagram: str, title: str, formula: str, text: str, caption: str) -> None:
    """One architecture: its explanation and equations beside its diagram."""
    st.subheader(_(title))
    st.markdown(_(text))
    if classroom_mode():  # the larger type: the diagram under its equations, full width
        left = right = st.container()
    else:
        left, right = st.columns(2, vertical_alignment="center")
    with left:
        st.latex(formula)
    with right:
        diagram_fig = described(DIAGRAMS[diagram](), _(title), _(caption))
        plotly_chart(diagram_fig, key=f"rc_diagram_{diagram}")
        st.caption(_(caption))


@fragment
def live() -> None:
    """Everything that depends on the typed sentence (a fragment: Enter reruns only this part)."""
    st.header(_("Live: the trained encoders on your sentence"))
    sentence = sentence_ui("rc_")
    if not show_text_notices(sentence):
        return
    text = sentence.text
    st.subheader(_("The bidirectional GRU encoder, step by step"))
    st.markdown(_(LIVE_GRU))
    live_gru_ui(text)
    st.subheader(_("The vanishing gradient: plain RNN, LSTM and GRU"))
    st.markdown(_(GRADIENT_TEXT))
    vanishing_gradient_ui(text)


page_intro(_("Recurrent networks"), _(ABOUT))
for section in SECTIONS:
    formula_section(*section)
st.subheader(_("The vanishing gradient"))
st.markdown(_(VANISHING))
st.latex(CHAIN)
for section in GATED:
    formula_section(*section)
live()
