"""Why sqrt(d_k): scaled dot-product attention (Vaswani et al. 2017, section 3.2.1), computed live.

Random q, k with unit-variance components: the variance of q . k grows with d_k, and dividing by
sqrt(d_k) brings it back to 1; the softmax of unscaled scores saturates to one-hot and its
gradient vanishes. Then the trained Transformer's own encoder self-attention on the typed
sentence, with the scale as trained and with it removed."""

from __future__ import annotations

import numpy as np
import streamlit as st

from i18n import N_, _
from models.analysis.scaling import (
    DIMS,
    N_KEYS,
    N_SAMPLES,
    N_SEEDS,
    dot_sample,
    encoder_scores,
    row_entropy,
    saturation,
)
from ui.charts import plotly_chart
from ui.errors import fragment
from ui.fit import first_screen
from ui.guard import guarded_ui
from ui.layout import regions
from ui.loaders import cached_transformer
from ui.multi_head import multi_choice_ui
from ui.tables import table_ui
from ui.text import page_intro, show_text_notices
from ui.translation import sentence_ui
from viz.scaling import entropy_heatmap, grouped_bars
from viz.views import saturation_view, variance_view

FORMULA = (
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
)
VARIANCE = (
    r"q \cdot k = \sum_{i=1}^{d_k} q_i k_i, \qquad \mathrm{Var}(q \cdot k) = d_k, \qquad"
    r" \mathrm{Var}\!\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = 1"
)
JACOBIAN = r"\frac{\partial p}{\partial s} = \mathrm{diag}(p) - p\,p^\top"
DEFAULT_DIMS = ("4", "64", "512")
ABOUT = N_(
    "Scaled dot-product attention divides every score by √d_k before the softmax (Vaswani et al. "
    "2017). Why? If the components of a query q and a key k are independent with mean 0 and "
    "variance 1, their dot product is a sum of d_k such products, so its variance is d_k: the "
    "wider the heads, the larger the scores. Large scores push the softmax to one-hot, where its "
    "gradient is almost zero and learning stalls. Everything below is computed while you look."
)
HIST_NOTE = N_(
    "{n:,} random pairs q, k for each chosen d_k (components drawn from N(0, 1), seed 0). "
    "Without the scale the spread grows with d_k; with it every histogram has variance about 1."
)
SAT_NOTE = N_(
    "One random query against {t} random keys, for each d_k, averaged over {seeds} draws. "
    "Without the scale the largest weight goes to 1 (one-hot), the entropy to 0 bits and the "
    "gradient that reaches the scores to 0; with the scale nothing changes with d_k."
)
MODEL_NOTE = N_(
    "Our Transformer (sinusoidal positions) was trained with the scale; its heads have d_k = {d_k}. "
    "From its own queries and keys on your sentence, the mean entropy of each row of its encoder "
    "self-attention, with the scale as trained and with the scale removed (softmax(QKᵀ)). "
    "Lower entropy means sharper, more one-hot rows."
)


def dims_ui() -> list[int]:
    """The widths d_k shown as histograms (kept in the URL as ``sdk_dims``)."""
    chosen = multi_choice_ui(
        st.pills,
        _("d_k shown"),
        [str(d) for d in DIMS],
        key="sdk_dims",
        default=list(DEFAULT_DIMS),
        format_func=str,
        selection_mode="multi",
        wrap=True,
    )
    return sorted(int(d) for d in chosen)


def variance_ui() -> None:
    """Histograms of q . k without and with the scale, and the measured variances."""
    st.subheader(_("The variance of q·k grows with d_k"))
    charts, notes = regions()  # in classroom mode the formula follows the histograms
    notes.latex(VARIANCE)
    with charts:
        dims = dims_ui()
    if not dims:
        charts.info(_("Choose at least one d_k above."), icon=":material/info:")
        return
    samples = [dot_sample(d) for d in dims]
    for column, scaled in zip(charts.columns(2), (False, True), strict=True):
        fig = variance_view(samples, scaled=scaled).figure
        key = "sdk_hist_scaled" if scaled else "sdk_hist_raw"
        with column:  # under the section's heading and the d_k pills (about 170 px)
            fig.update_layout(height=420)
            plotly_chart(fig, key=key, fit=first_screen(0, above=70))
    rows = [
        {
            "d_k": s.d_k,
            _("variance of q·k"): round(s.raw_var, 2),
            _("variance of q·k / √d_k"): round(s.scaled_var, 3),
        }
        for s in samples
    ]
    table_ui(rows)
    st.caption(_(HIST_NOTE).format(n=N_SAMPLES))


def saturation_ui() -> None:
    """Max weight, entropy and gradient norm of the softmax over d_k, without and with the scale."""
    st.subheader(_("Unscaled scores saturate the softmax"))
    st.latex(JACOBIAN)
    sat = saturation()
    measures = (("max_weight", "sdk_max"), ("entropy", "sdk_entropy"), ("grad_norm", "sdk_grad"))
    for column, (measure, key) in zip(st.columns(3), measures, strict=True):
        with column:
            fig = saturation_view(sat, measure=measure).figure
            plotly_chart(fig.update_layout(height=400), key=key)
    st.caption(_(SAT_NOTE).format(t=N_KEYS, seeds=N_SEEDS))


def layer_bars_ui(layers: list[str], with_scale: np.ndarray, without: np.ndarray, n: int) -> None:
    """Mean row entropy per layer (over heads), with and without the scale; the uniform bound."""
    bars = grouped_bars(
        layers,
        {_("with the scale"): with_scale.mean(1), _("without the scale"): without.mean(1)},
        title=_("mean row entropy per layer (over heads)"),
        y_title=_("entropy (bits)"),
    )
    plotly_chart(bars.update_layout(height=380), key="sdk_model_bars")
    st.caption(
        _("Uniform attention over these {n} pieces would have {bits:.2f} bits.").format(
            n=n, bits=float(np.log2(n))
        )
    )


def model_ui(text: str) -> None:
    """The trained Transformer's encoder self-attention entropy, with and without the scale."""
    translator = cached_transformer("sinusoidal")
    if translator is None:
        return
    found = guarded_ui(lambda: encoder_scores(translator.model, translator._source(text).src))
    if found is None:
        return
    st.caption(_(MODEL_NOTE).format(d_k=found.d_k))
    n_layers = found.scores.shape[0]
    layers = [_("layer {n}").format(n=i + 1) for i in range(n_layers)]
    with_scale = row_entropy(found.scores, found.d_k, scaled=True)  # (L, H)
    without = row_entropy(found.scores, found.d_k, scaled=False)  # (L, H)
    top = float(max(with_scale.max(), without.max()))
    names = (_("head"), _("layer"))
    c1, c2 = st.columns(2)
    for column, matrix, title, key in (
        (c1, with_scale, _("with the scale (as trained)"), "sdk_model_scaled"),
        (c2, without, _("scale removed: softmax(QKᵀ)"), "sdk_model_raw"),
    ):
        fig = entropy_heatmap(
            matrix, title=title, zmax=top, axis_names=names, value_name=_("entropy (bits)")
        )
        with column:
            plotly_chart(fig, key=key)
    layer_bars_ui(layers, with_scale, without, found.scores.shape[-1])


@fragment
def body() -> None:
    """Formula, the random demo, then the trained model on the typed sentence (in classroom
    mode the demo's histograms first)."""
    charts, notes = regions()
    notes.latex(FORMULA)
    with charts:
        variance_ui()
    saturation_ui()
    st.subheader(_("The same on our trained Transformer"))
    sentence = sentence_ui("sdk_")
    if not show_text_notices(sentence):
        return
    model_ui(sentence.text)


page_intro(_("Why √d_k"), _(ABOUT))
body()
