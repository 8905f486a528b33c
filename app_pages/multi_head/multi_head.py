"""Multi-head attention: every layer and head of a small trained Transformer (encoder self, masked
decoder self, cross attention) or of a real pretrained encoder (all-MiniLM-L6-v2), on the user's own
sentence: the overview, one head large, the equations with the model's numbers and that head's
computation step by step (head_steps.py), the head view as lines, mean/max/rollout, the weight on
special tokens, and the Transformer's cross attention next to the RNN's Bahdanau alignment."""

from __future__ import annotations

import functools

import streamlit as st

from app_pages.multi_head.controls import controls_ui
from app_pages.multi_head.head_steps import head_steps_ui
from app_pages.multi_head.settings import (
    ModelSettings,
    clamp_choice,
    load_view,
    overview_hint,
    picked_in_overview,
    translation_ui,
)
from i18n import N_, _, ngettext
from models.analysis.aggregate import GROUPS, group_share, head_max, head_mean, rollout
from models.transformer.translator import TransformerAttention
from ui.charts import plotly_chart
from ui.choices import segmented_ui
from ui.downloads import download_csv
from ui.errors import fragment
from ui.fit import PAGE, Column, Fit, first_screen
from ui.guard import guarded_ui
from ui.loaders import cached_translator
from ui.multi_head import (
    AGGREGATES,
    HeadsView,
    download_view_json,
    group_label,
    hide_groups,
    multi_choice_ui,
)
from ui.sidebar import classroom_mode
from ui.tables import table_ui
from ui.text import page_intro
from ui.translation_results import decode
from ui.url_state import check_number_param
from viz.behaviours import Chart
from viz.head_steps import Panel, step_panels
from viz.linked import HeadCharts
from viz.multi_head import (
    grid_tiles,
    head_grid,
    head_heatmap,
    head_heatmap_width,
    share_heatmaps,
)
from viz.multi_head_lines import head_lines_width

LINK_GROUP = "mh-layer-head"  # the chosen head's map and its lines, linked on hover
HALF = Column((1, 1), 0)  # classroom mode: the head's map and its head view side by side
ABOUT = N_(
    "A Transformer has no recurrence: every token looks at every other token at once, through "
    "several **heads** per layer, each with its own query, key and value projections (Vaswani et "
    "al. 2017). Pick a model, type a sentence and press **Enter**. The overview shows every layer "
    "(rows) and head (columns); choose one to see it large, as lines between tokens, or summed up "
    "over heads and layers. Our Transformer translates English to French, so it has three kinds "
    "of attention: the encoder's self-attention over the English pieces, the decoder's *masked* "
    "self-attention over the French it has written so far (nothing above the diagonal: it cannot "
    "look ahead), and cross attention from each French piece to the English ones. The pretrained "
    "encoder is all-MiniLM-L6-v2, a 6-layer, 12-head BERT-style model; it reads up to 512 word "
    "pieces, in any script: type Chinese too (each Chinese character is a piece, and those its "
    "vocabulary lacks all become the one token [UNK])."
)
HIDE_NOTE = N_(
    "Hiding removes those tokens' columns (and rows) and **re-normalises every row** over the "
    "tokens left, so the weights you see are no longer the ones the model used: they answer "
    '"where does the rest of the attention go?".'
)


def layer_head_ui(view: HeadsView) -> tuple[int, int]:
    """Layer and head pickers (1-based on screen); returns 0-based (layer, head)."""
    n_layers, n_heads = view.weights.shape[:2]
    clamp_choice("mh_layer", n_layers)
    clamp_choice("mh_head", n_heads)
    c1, c2 = st.columns(2)
    layer = c1.selectbox(_("Layer"), range(1, n_layers + 1), key="mh_layer", bind="query-params")
    head = c2.selectbox(_("Head"), range(1, n_heads + 1), key="mh_head", bind="query-params")
    return int(layer or 1) - 1, int(head or 1) - 1


def overview_ui(view: HeadsView, layer: int, head: int) -> None:
    """Every layer x head at once; the chosen one framed; a click on a panel chooses it."""
    st.subheader(_("Overview: every layer and head"))
    T = len(view.key_tokens)
    lines = ngettext(
        "rows: layers · columns: heads · {n} token",
        "rows: layers · columns: heads · {n} tokens",
        T,
    ).format(n=T)
    title = f"{view.title}<br>{lines}"
    fig = head_grid(view.weights, title=title, selected=(layer, head))
    picked = functools.partial(picked_in_overview, grid_tiles(view.weights.shape))
    fit = first_screen(view.weights.shape[0], above=70)  # under the section's heading
    plotly_chart(fig, key="mh_grid", fit=fit, on_select=picked)
    st.caption(overview_hint())


def linked_charts(view: HeadsView, layer: int, head: int) -> HeadCharts:
    """The chosen head's map and its layer's head view, linked on hover."""
    return HeadCharts(view.weights[layer], view.key_tokens, view.query_tokens, head, LINK_GROUP)


def head_map_title(view: HeadsView, layer: int, head: int, half: bool = False) -> str:
    """The chosen head's map's title; ``half``: for half the row (without the model's name,
    which the overview above carries, its two parts on two lines)."""
    where = _("layer {layer}, head {head} · {rows} queries x {cols} keys").format(
        layer=layer + 1, head=head + 1, rows=len(view.query_tokens), cols=len(view.key_tokens)
    )
    return where.replace(" · ", "<br>", 1) if half else f"{view.title}<br>{where}"


def head_view_title() -> str:
    """The head view's title: what its two columns of tokens and its lines are."""
    return "<br>".join(
        (
            _("left: queries, the tokens that attend"),
            _("right: keys, the tokens attended to"),
            _("opacity and width follow the weight"),
        )
    )


def fit_half_row(view: HeadsView, layer: int, head: int) -> bool:
    """Whether the chosen head's map (without its cells' numbers) and the head view (its legend
    under the lines) both fit half a projector's row, measured without drawing either."""
    keys, queries = view.key_tokens, view.query_tokens
    title = head_map_title(view, layer, head, half=True)
    widths = (
        head_heatmap_width(keys, queries, title=title, numbers=False),
        head_lines_width(
            keys, queries, title=head_view_title(), legend_below=True, n_heads=view.weights.shape[1]
        ),
    )
    return all(HALF.holds_width(width) for width in widths)


def linked_views_ui(
    settings: ModelSettings, text: str, full: HeadsView, view: HeadsView, layer: int, head: int
) -> None:
    """The chosen head's map and its layer's head view, linked on hover. In classroom mode they
    sit side by side where both fit half the row (:func:`fit_half_row`: the map without its
    cells' numbers, the hover gives them; the head view's legend under its lines), so that a
    class sees the link; else the map, the head's steps, then the head view, one
    under the other."""
    charts = linked_charts(view, layer, head)
    if classroom_mode() and len(view.query_tokens) <= 128 and fit_half_row(view, layer, head):
        narrow = charts.heatmap(title=head_map_title(view, layer, head, half=True), numbers=False)
        left, right = st.columns(2)
        with left:
            one_head_ui(view, layer, head, narrow, column=HALF)
        with right:
            head_view_ui(view, layer, head, column=HALF)
        head_steps_ui(settings, text, full, layer, head)
        return
    one_head_ui(view, layer, head, charts.heatmap(title=head_map_title(view, layer, head)))
    head_steps_ui(settings, text, full, layer, head)
    head_view_ui(view, layer, head)


def one_head_ui(
    view: HeadsView, layer: int, head: int, chart: Chart, column: Column = PAGE
) -> None:
    """The chosen head, large, with the tokens in the hover; CSV and JSON downloads."""
    st.subheader(_("Layer {layer}, head {head}").format(layer=layer + 1, head=head + 1))
    w = view.weights[layer, head]  # (T_q, T_k)
    plotly_chart(chart, key="mh_head_map", fit=Fit(column))
    c1, c2 = st.columns(2)
    with c1:
        download_csv(
            w,
            view.query_tokens,
            view.key_tokens,
            f"attention-L{layer + 1}-H{head + 1}.csv",
            key="mh_csv",
        )
    with c2:
        download_view_json(view, layer, f"attention-L{layer + 1}.json", "mh_json")


def head_view_ui(view: HeadsView, layer: int, head: int, column: Column = PAGE) -> None:
    """Token-to-token lines of one layer, a colour per head; heads and one token selectable;
    linked on hover with the chosen ``head``'s map (in the browser: viz.hover_link).
    ``column``: in half of the row (:data:`HALF`), the heads are picked from a list, whose
    chosen heads wrap, and the legend is under the lines."""
    half = column == HALF
    st.subheader(_("Head view: layer {layer} as lines").format(layer=layer + 1))
    every = [str(h) for h in range(1, view.weights.shape[1] + 1)]
    heads = multi_choice_ui(
        st.multiselect if half else st.pills,
        _("Heads shown"),
        every,
        key="mh_heads",
        default=every,
        format_func=lambda h: _("head {n}").format(n=h),
        **({} if half else {"selection_mode": "multi", "wrap": True}),
    )
    labels = [f"{i}: {t}" for i, t in enumerate(view.query_tokens)]
    c1, c2 = st.columns([3, 2])
    picked = c1.selectbox(
        _("Only the lines of this token"),
        labels,
        index=None,
        key="mh_token",
        placeholder=_("all tokens"),
    )
    check_number_param("mh_threshold", 0.0, 0.9, integer=False)
    threshold = c2.slider(
        _("Hide weights below"), 0.0, 0.9, 0.1, 0.05, key="mh_threshold", bind="query-params"
    )
    token = None if picked is None else labels.index(picked)
    if token is None and len(view.query_tokens) > 128:
        st.info(
            _("Over 128 tokens: choose a token above to see its lines."), icon=":material/info:"
        )
        return
    chart = linked_charts(view, layer, head).lines(
        heads=[int(h) - 1 for h in heads],
        token=token,
        threshold=threshold,
        title=head_view_title(),
        legend_below=half,
    )
    plotly_chart(chart, key="mh_lines", fit=Fit(column))


def aggregate_ui(view: HeadsView, layer: int) -> None:
    """Mean or max over the heads of one layer, or attention rollout up to it."""
    st.subheader(_("Over heads and layers"))
    mean, most, roll = AGGREGATES  # ids
    options = {
        k: AGGREGATES[k] for k in ((mean, most, roll) if view.self_attention else (mean, most))
    }
    if st.session_state.get("mh_agg", mean) not in options:  # rollout, then cross attention
        del st.session_state["mh_agg"]
    how = segmented_ui(st, _("Summary"), options, key="mh_agg")
    if how == mean:
        matrix = head_mean(view.weights)[layer]
    elif how == most:
        matrix = head_max(view.weights)[layer]
    else:
        matrix = rollout(view.weights)[layer]
        st.caption(
            _(
                "Rollout (Abnar & Zuidema 2020): each layer's head average plus the identity for the "
                "residual connection, rows re-normalised, multiplied from layer 1 up to this one."
            )
        )
    fig = head_heatmap(
        matrix,
        view.key_tokens,
        view.query_tokens,
        title=_("{how}, layer {layer}").format(how=_(options[how]), layer=layer + 1),
    )
    plotly_chart(fig, key="mh_agg_map")


def special_ui(view: HeadsView) -> None:
    """The share of each head's weight on special tokens, punctuation and the first token."""
    st.subheader(_("How much attention goes to special tokens"))
    shares = {
        group_label(name): group_share(view.weights, mask) for name, mask in view.key_groups.items()
    }
    fig = share_heatmaps(shares, title=_("share of each head's weight (mean over queries)"))
    plotly_chart(fig, key="mh_shares")
    rows = [
        {_("layer"): layer + 1}
        | {name: round(float(s[layer].mean()), 3) for name, s in shares.items()}
        for layer in range(view.weights.shape[0])
    ]
    table_ui(rows)
    st.caption(
        _(
            "[CLS] / <s>: the start marker; [SEP] / </s>: the separator or end marker (with any other "
            "special token of the tokenizer); punctuation: pieces made only of punctuation; first "
            "token: position 0. Groups can overlap ([CLS] is also the first token)."
        )
    )


def compare_ui(text: str, result: TransformerAttention) -> None:
    """The Transformer's cross attention (mean of the last layer's heads) next to the RNN's
    Bahdanau alignment, forced through the same French translation."""
    st.subheader(_("Cross attention next to the RNN's Bahdanau alignment"))
    translator = cached_translator("bahdanau", quiet=True)
    if translator is None or not result.text.strip():
        st.info(
            _(
                "The Bahdanau RNN model is not available, so there is nothing to compare with "
                "(python -m training.train_seq2seq --attention bahdanau)."
            ),
            icon=":material/info:",
        )
        return
    rnn = guarded_ui(lambda: decode(translator, text, reference=result.text))
    if rnn is None:
        return
    query, key = _("query (French)"), _("key (English)")
    panels = [
        Panel(
            _("Transformer: last layer, mean over heads"),
            result.cross[-1].mean(0),
            result.target_tokens,
            result.source_tokens,
            query,
            key,
            _("weight"),
            zmax=1.0,
        ),
        Panel(
            _("RNN + Bahdanau attention"),
            rnn.weights,
            rnn.target_tokens,
            rnn.source_tokens,
            query,
            key,
            _("weight"),
            zmax=1.0,
        ),
    ]
    fig = step_panels(panels)
    plotly_chart(fig, key="mh_compare")
    st.caption(
        _("Both are forced through the Transformer's French translation, so the rows match.")
    )


def hide_ui() -> list[str]:
    """The token groups to hide (and re-normalise without), kept in the URL."""
    return multi_choice_ui(
        st.multiselect,
        _("Hide these tokens and re-normalise"),
        GROUPS,
        key="mh_hide",
        default=[],
        format_func=group_label,
        placeholder=_("none: every token shown"),
        help=_(HIDE_NOTE),
    )


@fragment
def body() -> None:
    """Inputs and every view; a fragment, so pressing Enter reruns only this part of the page."""
    settings, text = controls_ui()
    if not text:
        return
    view, result = load_view(settings, text)
    if view is None:
        return
    full = view
    chart = st.container()  # the overview first (the main chart, on the first screen), then
    for notice in view.notices:  # what was read of the input, and the controls, below it
        st.info(notice, icon=":material/content_cut:")
    if view.unknown_note:
        st.info(view.unknown_note, icon=":material/help:")
    hidden = hide_ui()
    if hidden:
        st.warning(_(HIDE_NOTE), icon=":material/warning:")
        view = guarded_ui(lambda: hide_groups(full, hidden)) or full
    layer, head = layer_head_ui(view)
    with chart:
        overview_ui(view, layer, head)
        translation_ui(result)
    linked_views_ui(settings, text, full, view, layer, head)
    aggregate_ui(view, layer)
    special_ui(full)
    if settings.source == "transformer" and settings.attention == "cross":
        compare_ui(text, result)


page_intro(_("Multi-head attention"), _(ABOUT))
body()
