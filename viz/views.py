"""A view is one call: each view of the atlas as one public function from a model's result to a
:class:`viz.behaviours.Chart`, usable outside Streamlit, as BertViz's ``head_view(attention,
tokens)`` is. In a notebook::

    from viz.views import head_view
    head_view(result, layer=2).figure.show()            # result: models' EncoderAttention
    from viz.standalone import standalone_html          # or one file that opens offline
    Path("head.html").write_text(standalone_html(head_view(result)), encoding="utf-8")

The views compose the figure builders the pages use (nothing is drawn twice); the app's pages add
their legibility pass, layout and controls around the same charts. A view takes the result as the
model returns it; viz/ may not import models/ (it must not need torch), so each result is typed
here by the fields the view reads (a Protocol that the models' frozen dataclasses satisfy:
``models.rnn.translator.Translation``, ``models.transformer.pretrained.EncoderAttention``,
``models.captioning.inference.CaptionResult``, ``models.analysis.scaling``'s ``DotSample`` and
``Saturation``). Titles are in the current language (``i18n.use_language``). docs/views.md lists
every view with its signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from i18n import N_, _
from viz.behaviours import Behaviours, Chart
from viz.captions import alpha_sum_figure, attention_player_chart, beta_figure
from viz.linked import AlignmentCharts, HeadCharts
from viz.local_heatmap import local_heatmap
from viz.local_steps import local_play, local_steps_figure
from viz.multi_head import head_grid
from viz.positional import pe_heatmap
from viz.scaling import dot_histograms, lines_over_dims

__all__ = [
    "AlignmentResult",
    "CaptionAttention",
    "DotSampleResult",
    "LocalAlignmentResult",
    "SaturationResult",
    "SelfAttentionResult",
    "alignment_lines_view",
    "alignment_view",
    "alpha_sum_view",
    "gate_view",
    "head_map_view",
    "head_view",
    "local_steps_view",
    "local_window_view",
    "model_view",
    "positional_encoding_view",
    "saturation_view",
    "caption_view",
    "variance_view",
]

ALIGNMENT_TITLE = N_("Attention weights")
LINES_TITLE = N_("Attention weights as lines")
ALPHA_SUM_TITLE = N_("Σ_t α: where the attention went in total")
LINK_GROUP = "view"  # the hover link's group, where a page shows a view's heatmap and lines


@runtime_checkable
class AlignmentResult(Protocol):
    """A translation's alignment (``models.rnn.translator.Translation``): weights (T_out, T_src),
    row t the distribution over source pieces used to emit target_tokens[t]."""

    @property
    def source_tokens(self) -> list[str]: ...
    @property
    def target_tokens(self) -> list[str]: ...
    @property
    def weights(self) -> np.ndarray | None: ...


@runtime_checkable
class LocalAlignmentResult(AlignmentResult, Protocol):
    """A local-attention translation: p_t (T_out,), window (T_out, 2), gaussian and raw_weights
    (T_out, T_src), the half-width D (``Translation`` decoded with local attention)."""

    @property
    def p_t(self) -> np.ndarray | None: ...
    @property
    def window(self) -> np.ndarray | None: ...
    @property
    def gaussian(self) -> np.ndarray | None: ...
    @property
    def raw_weights(self) -> np.ndarray | None: ...
    @property
    def D(self) -> int | None: ...


@runtime_checkable
class SelfAttentionResult(Protocol):
    """A sentence through an encoder (``models.transformer.pretrained.EncoderAttention``):
    attentions (L, H, T, T) over its tokens, in the BertViz layout."""

    @property
    def tokens(self) -> list[str]: ...
    @property
    def attentions(self) -> np.ndarray: ...


@runtime_checkable
class CaptionAttention(Protocol):
    """An image's caption (``models.captioning.inference.CaptionResult``): alphas (T, grid,
    grid) per word, betas (T,), sampled locations (N, T), attention "soft" or "hard"."""

    @property
    def words(self) -> list[str]: ...
    @property
    def alphas(self) -> np.ndarray: ...
    @property
    def betas(self) -> np.ndarray: ...
    @property
    def locations(self) -> np.ndarray: ...
    @property
    def attention(self) -> str: ...


@runtime_checkable
class DotSampleResult(Protocol):
    """Dot products at width d_k, unscaled and scaled (``models.analysis.scaling.DotSample``)."""

    @property
    def d_k(self) -> int: ...
    @property
    def raw(self) -> np.ndarray: ...
    @property
    def scaled(self) -> np.ndarray: ...


@runtime_checkable
class SaturationResult(Protocol):
    """The softmax's saturation per d_k (``models.analysis.scaling.Saturation``)."""

    @property
    def dims(self) -> tuple[int, ...]: ...
    @property
    def raw_max_weight(self) -> np.ndarray: ...
    @property
    def scaled_max_weight(self) -> np.ndarray: ...
    @property
    def raw_entropy(self) -> np.ndarray: ...
    @property
    def scaled_entropy(self) -> np.ndarray: ...
    @property
    def raw_grad_norm(self) -> np.ndarray: ...
    @property
    def scaled_grad_norm(self) -> np.ndarray: ...


def _weights(result: AlignmentResult) -> np.ndarray:
    if result.weights is None:
        raise ValueError("this translation has no attention weights (a model without attention)")
    return np.asarray(result.weights)


def alignment_view(translation: AlignmentResult, *, title: str = "") -> Chart:
    """The alignment heatmap (target pieces down, source pieces across), linked on hover with
    :func:`alignment_lines_view`'s lines of the same translation."""
    charts = AlignmentCharts(
        _weights(translation), translation.source_tokens, translation.target_tokens, LINK_GROUP
    )
    return charts.heatmap(title=title or _(ALIGNMENT_TITLE))


def alignment_lines_view(
    translation: AlignmentResult, *, threshold: float = 0.1, title: str = ""
) -> Chart:
    """The alignment as lines from source to target pieces (weights under ``threshold`` not
    drawn), linked on hover with :func:`alignment_view`'s heatmap."""
    charts = AlignmentCharts(
        _weights(translation), translation.source_tokens, translation.target_tokens, LINK_GROUP
    )
    return charts.lines(threshold=threshold, title=title or _(LINES_TITLE))


def _heads(
    attention: SelfAttentionResult | ArrayLike,
    tokens: Sequence[str] | None,
    key_tokens: Sequence[str] | None,
) -> tuple[np.ndarray, list[str], list[str]]:
    """(weights (L, H, T_q, T_k), query tokens, key tokens) of a result or of an array with its
    tokens (BertViz's way: ``head_view(attention, tokens)``)."""
    if isinstance(attention, SelfAttentionResult):
        weights, queries = np.asarray(attention.attentions), list(tokens or attention.tokens)
    else:
        if tokens is None:
            raise ValueError("an attention array needs its tokens")
        weights, queries = np.asarray(attention), list(tokens)
    if weights.ndim != 4:
        raise ValueError(f"attention must be (layers, heads, T_q, T_k), got shape {weights.shape}")
    return weights, queries, list(queries if key_tokens is None else key_tokens)


def _layer(weights: np.ndarray, layer: int) -> np.ndarray:
    if not 0 <= layer < weights.shape[0]:
        raise ValueError(f"layer {layer} is not one of the {weights.shape[0]} layers (0-based)")
    return weights[layer]


def head_view(
    attention: SelfAttentionResult | ArrayLike,
    tokens: Sequence[str] | None = None,
    *,
    key_tokens: Sequence[str] | None = None,
    layer: int = 0,
    heads: Sequence[int] | None = None,
    token: int | None = None,
    threshold: float = 0.1,
) -> Chart:
    """One layer's heads as lines between the tokens, a colour per head (BertViz's head view).

    ``attention``: an encoder's result, or an array (L, H, T_q, T_k) with its ``tokens`` (the
    queries; ``key_tokens`` where the keys differ, e.g. a Transformer's cross attention:
    ``head_view(r.cross, r.target_tokens, key_tokens=r.source_tokens)``). ``layer``, ``heads``
    and ``token`` are 0-based; ``token``: only that query's lines."""
    weights, queries, keys = _heads(attention, tokens, key_tokens)
    w = _layer(weights, layer)
    chosen = list(range(w.shape[0]) if heads is None else heads)
    charts = HeadCharts(w, keys, queries, chosen[0] if chosen else 0, LINK_GROUP)
    title = _("Head view: layer {layer} as lines").format(layer=layer + 1)
    return charts.lines(heads=chosen, token=token, threshold=threshold, title=title)


def head_map_view(
    attention: SelfAttentionResult | ArrayLike,
    tokens: Sequence[str] | None = None,
    *,
    key_tokens: Sequence[str] | None = None,
    layer: int = 0,
    head: int = 0,
) -> Chart:
    """One head's (T_q, T_k) map, large, tokens on both axes (0-based ``layer`` and ``head``),
    linked on hover with :func:`head_view`'s lines; the arguments as :func:`head_view`'s."""
    weights, queries, keys = _heads(attention, tokens, key_tokens)
    w = _layer(weights, layer)
    if not 0 <= head < w.shape[0]:
        raise ValueError(f"head {head} is not one of the {w.shape[0]} heads (0-based)")
    title = _("Layer {layer}, head {head}").format(layer=layer + 1, head=head + 1)
    return HeadCharts(w, keys, queries, head, LINK_GROUP).heatmap(title=title)


def model_view(
    attention: SelfAttentionResult | ArrayLike,
    tokens: Sequence[str] | None = None,
    *,
    key_tokens: Sequence[str] | None = None,
) -> Chart:
    """Every layer and head at once, small maps in a grid (BertViz's model view): rows are
    layers, columns heads. The arguments as :func:`head_view`'s."""
    weights, __, __ = _heads(attention, tokens, key_tokens)
    return Chart(head_grid(weights, title=_("Overview: every layer and head")))


def caption_view(image: np.ndarray, result: CaptionAttention, *, title: str = "") -> Chart:
    """The caption's attention over ``image`` (H, W, 3 uint8), one word at a time with a word
    slider and a play button; a hard-attention result also marks its sampled cells."""
    locations = result.locations if result.attention == "hard" else None
    return attention_player_chart(
        image,
        result.alphas,
        result.words,
        locations=locations,
        title=title or _("One word at a time"),
    )


def alpha_sum_view(result: CaptionAttention, *, title: str = "") -> Chart:
    """Σ_t α over the grid: where the caption's attention went in total."""
    total = np.asarray(result.alphas).sum(0)  # (grid, grid)
    return Chart(alpha_sum_figure(total, title=title or _(ALPHA_SUM_TITLE)))


def gate_view(result: CaptionAttention, *, name: str = "") -> Chart:
    """The gate β per word of the caption (``name``: the model's, in the legend)."""
    series = {name or result.attention: (list(result.words), np.asarray(result.betas))}
    return Chart(beta_figure(series, title=_("β per word")))


def positional_encoding_view(pe: ArrayLike, *, title: str = "") -> Chart:
    """The positional-encoding matrix (n_positions, d_model) (``models``'
    ``sinusoidal_encoding(n, d).numpy()`` or a model's learned embeddings), on a colour scale
    symmetric about 0 that reaches at least ±1."""
    n, d = np.shape(pe)
    title = title or _("PE matrix ({n} positions × {d} dimensions)").format(n=n, d=d)
    zmax = max(1.0, float(np.abs(np.asarray(pe)).max(initial=0.0)))
    return Chart(pe_heatmap(pe, title=title, zmax=zmax))


def _local(translation: LocalAlignmentResult) -> None:
    if translation.p_t is None or translation.window is None or translation.D is None:
        raise ValueError("not a local-attention translation (no p_t, window or D)")


def local_window_view(
    translation: LocalAlignmentResult, *, model: str = "local-p", title: str = ""
) -> Chart:
    """A local-attention translation's weights with the predicted centres p_t drawn over them
    and the window's bounds (the title names ``model`` unless ``title`` is given)."""
    _local(translation)
    title = title or _("{model}, D = {D}: weights and p_t").format(model=model, D=translation.D)
    fig = local_heatmap(
        _weights(translation),
        translation.source_tokens,
        translation.target_tokens,
        translation.p_t,
        translation.window,
        title=title,
    )
    return Chart(fig)


def local_steps_view(translation: LocalAlignmentResult, *, step: int = 0) -> Chart:
    """The local window step by step (the window, the Gaussian, raw and final weights), played
    in the browser, opening at ``step``."""
    _local(translation)
    fig = local_steps_figure(
        translation.raw_weights,
        _weights(translation),
        translation.gaussian,
        translation.p_t,
        translation.window,
        translation.D,
        translation.source_tokens,
        translation.target_tokens,
        step=step,
    )
    return Chart(fig, Behaviours(play=local_play(translation.D)))


def variance_view(samples: Sequence[DotSampleResult], *, scaled: bool = False) -> Chart:
    """Histograms of q·k for each sample's d_k, without (or, ``scaled``, with) the 1/√d_k."""
    title = _("with the scale: q·k / √d_k") if scaled else _("without the scale: q·k")
    values = {f"d_k = {s.d_k}": s.scaled if scaled else s.raw for s in samples}
    return Chart(dot_histograms(values, title=title, x_title=_("score"), y_title=_("density")))


def saturation_view(
    saturation: SaturationResult,
    *,
    measure: Literal["max_weight", "entropy", "grad_norm"] = "max_weight",
) -> Chart:
    """One measure of the softmax over d_k, without and with the scale: its largest weight,
    its entropy (bits) or its gradient's norm."""
    names = {
        "max_weight": N_("largest weight"),
        "entropy": N_("entropy (bits)"),
        "grad_norm": N_("gradient norm ‖∂p/∂s‖"),
    }
    if measure not in names:
        raise ValueError(f"unknown measure {measure!r}; expected one of {sorted(names)}")
    name = _(names[measure])
    series = {
        _("without the scale"): np.asarray(getattr(saturation, f"raw_{measure}")),
        _("with the scale"): np.asarray(getattr(saturation, f"scaled_{measure}")),
    }
    fig = lines_over_dims(saturation.dims, series, title=name, x_title="d_k", y_title=name)
    return Chart(fig)
