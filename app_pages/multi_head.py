"""Multi-head attention: every layer and head of a small trained Transformer (encoder self, masked
decoder self, cross attention) or of a real pretrained encoder (all-MiniLM-L6-v2), on the user's own
sentence: the overview, one head large, the head view as lines, mean/max/rollout, the weight on
special tokens, and the Transformer's cross attention next to the RNN's Bahdanau alignment."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from models.analysis.aggregate import GROUPS, group_share, head_max, head_mean, rollout
from models.transformer.translator import TransformerAttention
from ui.charts import plotly_chart
from ui.guard import guarded_ui
from ui.loaders import load_translator
from ui.multi_head import (
    KINDS,
    MAX_CHARS,
    POSITIONALS,
    HeadsView,
    download_matrix_csv,
    download_view_json,
    encode_ui,
    hide_groups,
    pretrained_view,
    transformer_view,
    translate_ui,
)
from ui.text import sanitize_text, user_text
from ui.translation_compute import decode
from viz.heatmaps import attention_panels
from viz.multi_head import head_grid, head_heatmap, head_lines, share_heatmaps

SOURCES = {"transformer": "Our Transformer (EN → FR)", "pretrained": "Pretrained encoder (MiniLM)"}
DEFAULT_TEXT = "A black dog is running on the green grass."
AGGREGATES = ["mean over heads", "max over heads", "rollout up to this layer"]
ABOUT = """
A Transformer has no recurrence: every token looks at every other token at once, through several
**heads** per layer, each with its own query, key and value projections (Vaswani et al. 2017). Pick
a model, type a sentence and press **Enter**. The overview shows every layer (rows) and head
(columns); choose one to see it large, as lines between tokens, or summed up over heads and layers.
Our Transformer translates English to French, so it has three kinds of attention: the encoder's
self-attention over the English pieces, the decoder's *masked* self-attention over the French it has
written so far (nothing above the diagonal: it cannot look ahead), and cross attention from each
French piece to the English ones. The pretrained encoder is all-MiniLM-L6-v2, a 6-layer, 12-head
BERT-style model; it reads up to 512 word pieces.
"""
HIDE_NOTE = (
    "Hiding removes those tokens' columns (and rows) and **re-normalises every row** over the "
    "tokens left, so the weights you see are no longer the ones the model used: they answer "
    '"where does the rest of the attention go?".'
)


@dataclass(frozen=True)
class ModelSettings:
    """Which model runs: ``source`` is a SOURCES key; for "transformer", the positional encoding
    (POSITIONALS), the attention kind (KINDS) and the beam width; for "pretrained", the encoder's
    name (``hf_name``)."""

    source: str
    positional: str = POSITIONALS[0]
    kind: str = "encoder"
    beam: int = 1
    hf_name: str = ""


def model_ui() -> ModelSettings:
    """Model family, and for it the checkpoint and attention kind or the encoder's name."""
    source = st.segmented_control("Model", list(SOURCES),
                                  default="transformer", key="mh_model", bind="query-params",
                                  required=True,
                                  help=" · ".join(f"{k}: {v}" for k, v in SOURCES.items()),
                                  ) or "transformer"  # fmt: skip
    if source == "transformer":
        c1, c2, c3 = st.columns([2, 4, 2])
        positional = c1.selectbox("Positional encoding", POSITIONALS, key="mh_pos",
                                  bind="query-params")  # fmt: skip
        kind = c2.segmented_control("Attention", list(KINDS), default="encoder", key="mh_kind",
                                    bind="query-params", required=True,
                                    help=" · ".join(f"{k}: {v}" for k, v in KINDS.items()),
                                    ) or "encoder"  # fmt: skip
        beam = c3.slider("Beam (1 = greedy)", 1, 5, 1, key="mh_beam", bind="query-params")
        return ModelSettings(source, positional, kind, int(beam))
    hf_name = st.text_input(
            "Hugging Face encoder (local folder or cached name)", value="all-MiniLM-L6-v2",
            key="mh_hf", bind="query-params",
            help="all-MiniLM-L6-v2 ships in a pip package; any other encoder must already be on "
                 "this machine (a folder path or a name in the local Hugging Face cache).",
        )  # fmt: skip
    return ModelSettings(source, hf_name=hf_name)


def sentence_ui() -> str:
    """The sentence box (Enter runs it; kept in the URL); returns the cleaned text."""
    raw = st.text_input("Sentence", value=DEFAULT_TEXT, key="mh_text", bind="query-params",
                        placeholder="Type a sentence and press Enter",
                        help=f"Any text; cut at {MAX_CHARS:,} characters.")  # fmt: skip
    text, notice = sanitize_text(raw, MAX_CHARS)
    if notice:
        st.info(notice, icon=":material/content_cut:")
    return text


def load_view(settings: ModelSettings, text: str) -> tuple[HeadsView | None, object]:
    """Run the chosen model on ``text``; (view, raw result) or (None, None) after a message."""
    if settings.source == "transformer":
        result = translate_ui(settings.positional, text, settings.beam)
        if result is None:
            return None, None
        user_text(result.text, label="Translation:")
        view = transformer_view(result, settings.kind)
        st.caption(f"Showing the {view.kind}.")
        return view, result
    result = encode_ui(settings.hf_name, text)
    return (None, None) if result is None else (pretrained_view(result), result)


def clamp_choice(key: str, n: int) -> None:
    """Keep a stored 1-based layer/head number inside 1..n (the model may have changed)."""
    value = st.session_state.get(key, st.query_params.get(key))
    try:
        ok = 1 <= int(value) <= n
    except (TypeError, ValueError):
        ok = False
    if not ok and key in st.session_state:
        st.session_state[key] = 1


def layer_head_ui(view: HeadsView) -> tuple[int, int]:
    """Layer and head pickers (1-based on screen); returns 0-based (layer, head)."""
    n_layers, n_heads = view.weights.shape[:2]
    clamp_choice("mh_layer", n_layers)
    clamp_choice("mh_head", n_heads)
    c1, c2 = st.columns(2)
    layer = c1.selectbox("Layer", range(1, n_layers + 1), key="mh_layer", bind="query-params")
    head = c2.selectbox("Head", range(1, n_heads + 1), key="mh_head", bind="query-params")
    return int(layer or 1) - 1, int(head or 1) - 1


def _picked_in_overview() -> None:
    """Callback: a click on an overview panel chooses that layer and head (the pickers follow)."""
    event = st.session_state.get("mh_grid") or {}
    points = (event.get("selection") or {}).get("points") or []
    data = points[0].get("customdata") if points else None
    if isinstance(data, list | tuple) and len(data) == 2:
        st.session_state["mh_layer"], st.session_state["mh_head"] = (
            int(data[0]) + 1,
            int(data[1]) + 1,
        )


def overview_ui(view: HeadsView, layer: int, head: int) -> None:
    """Every layer x head at once; the chosen one framed; a click on a panel chooses it."""
    st.subheader("Overview: every layer and head")
    T = len(view.key_tokens)
    fig = head_grid(view.weights, title=f"{view.kind}: rows are layers, columns heads · {T} tokens",
                    selected=(layer, head))  # fmt: skip
    n_layers = view.weights.shape[0]
    plotly_chart(fig, key="mh_grid", height=max(320, 95 * n_layers + 110),
                 on_select=_picked_in_overview)  # fmt: skip
    st.caption("Click a panel's centre to show that head large below (or use the pickers above).")


def one_head_ui(view: HeadsView, layer: int, head: int) -> None:
    """The chosen head, large, with the tokens in the hover; CSV and JSON downloads."""
    st.subheader(f"Layer {layer + 1}, head {head + 1}")
    w = view.weights[layer, head]  # (T_q, T_k)
    fig = head_heatmap(w, view.key_tokens, view.query_tokens,
                       title=f"{view.kind}, layer {layer + 1}, head {head + 1}"
                             f" · {len(view.query_tokens)} x {len(view.key_tokens)}")  # fmt: skip
    plotly_chart(
        fig, key="mh_head_map", height=min(900, max(420, 14 * len(view.query_tokens) + 160))
    )
    c1, c2 = st.columns(2)
    with c1:
        download_matrix_csv(w, view.query_tokens, view.key_tokens,
                            f"attention-L{layer + 1}-H{head + 1}.csv", "mh_csv")  # fmt: skip
    with c2:
        download_view_json(view, layer, f"attention-L{layer + 1}.json", "mh_json")


def head_view_ui(view: HeadsView, layer: int) -> None:
    """Token-to-token lines of one layer, a colour per head; heads and one token selectable."""
    st.subheader(f"Head view: layer {layer + 1} as lines")
    n_heads = view.weights.shape[1]
    heads = st.pills("Heads shown", list(range(1, n_heads + 1)), selection_mode="multi",
                     default=list(range(1, n_heads + 1)), key="mh_heads", bind="query-params",
                     format_func=lambda h: f"head {h}")  # fmt: skip
    labels = [f"{i}: {t}" for i, t in enumerate(view.query_tokens)]
    c1, c2 = st.columns([3, 2])
    picked = c1.selectbox("Only the lines of this token", labels, index=None, key="mh_token",
                          placeholder="all tokens")  # fmt: skip
    threshold = c2.slider(
        "Hide weights below", 0.0, 0.9, 0.1, 0.05, key="mh_threshold", bind="query-params"
    )
    token = None if picked is None else labels.index(picked)
    if token is None and len(view.query_tokens) > 128:
        st.info("Over 128 tokens: choose a token above to see its lines.", icon=":material/info:")
        return
    fig = head_lines(view.weights[layer], view.key_tokens, view.query_tokens,
                     heads=[h - 1 for h in heads or []], token=token, threshold=threshold,
                     title="left: queries, right: keys; opacity and width follow the weight")  # fmt: skip
    plotly_chart(fig, key="mh_lines", height=fig.layout.height)


def aggregate_ui(view: HeadsView, layer: int) -> None:
    """Mean or max over the heads of one layer, or attention rollout up to it."""
    st.subheader("Over heads and layers")
    options = AGGREGATES if view.self_attention else AGGREGATES[:2]
    how = st.segmented_control("Summary", options, default=options[0], key="mh_agg", bind="query-params",
                               required=True) or options[0]  # fmt: skip
    if how == AGGREGATES[0]:
        matrix = head_mean(view.weights)[layer]
    elif how == AGGREGATES[1]:
        matrix = head_max(view.weights)[layer]
    else:
        matrix = rollout(view.weights)[layer]
        st.caption(
            "Rollout (Abnar & Zuidema 2020): each layer's head average plus the identity for the "
            "residual connection, rows re-normalised, multiplied from layer 1 up to this one."
        )
    fig = head_heatmap(matrix, view.key_tokens, view.query_tokens,
                       title=f"{how}, layer {layer + 1}")  # fmt: skip
    plotly_chart(
        fig, key="mh_agg_map", height=min(900, max(420, 14 * len(view.query_tokens) + 160))
    )


def special_ui(view: HeadsView) -> None:
    """The share of each head's weight on special tokens, punctuation and the first token."""
    st.subheader("How much attention goes to special tokens")
    shares = {name: group_share(view.weights, mask) for name, mask in view.key_groups.items()}
    plotly_chart(share_heatmaps(shares, title="share of each head's weight (mean over queries)"),
                 key="mh_shares", height=max(300, 40 * view.weights.shape[0] + 160))  # fmt: skip
    rows = [{"layer": layer + 1} | {name: round(float(s[layer].mean()), 3) for name, s in shares.items()}
            for layer in range(view.weights.shape[0])]  # fmt: skip
    st.dataframe(rows, hide_index=True)
    st.caption(
        "[CLS] / <s>: the start marker; [SEP] / </s>: the separator or end marker (with any other "
        "special token of the tokenizer); punctuation: pieces made only of punctuation; first "
        "token: position 0. Groups can overlap ([CLS] is also the first token)."
    )


def compare_ui(text: str, result: TransformerAttention) -> None:
    """The Transformer's cross attention (mean of the last layer's heads) next to the RNN's
    Bahdanau alignment, forced through the same French translation."""
    st.subheader("Cross attention next to the RNN's Bahdanau alignment")
    translator = load_translator("bahdanau", quiet=True)
    if translator is None or not result.text.strip():
        st.info("The Bahdanau RNN model is not available, so there is nothing to compare with "
                "(python -m training.train_seq2seq --attention bahdanau).", icon=":material/info:")  # fmt: skip
        return
    rnn = guarded_ui(lambda: decode(translator, text, reference=result.text))
    if rnn is None:
        return
    panels = [
        (result.cross[-1].mean(0), result.source_tokens, result.target_tokens,
         "Transformer: last layer, mean over heads"),
        (rnn.weights, rnn.source_tokens, rnn.target_tokens, "RNN + Bahdanau attention"),
    ]  # fmt: skip
    plotly_chart(attention_panels(panels, cols=2), key="mh_compare", height=520)
    st.caption("Both are forced through the Transformer's French translation, so the rows match.")


@st.fragment
def body() -> None:
    """Inputs and every view; a fragment, so pressing Enter reruns only this part of the page."""
    settings = model_ui()
    text = sentence_ui()
    if not text:
        st.warning("The sentence is empty: type something and press Enter.", icon=":material/edit:")
        return
    view, result = load_view(settings, text)
    if view is None:
        return
    for notice in view.notices:
        st.info(notice, icon=":material/content_cut:")
    full = view
    hidden = st.multiselect("Hide these tokens and re-normalise", GROUPS, key="mh_hide", bind="query-params",
                            help=HIDE_NOTE)  # fmt: skip
    if hidden:
        st.warning(HIDE_NOTE, icon=":material/warning:")
        view = guarded_ui(lambda: hide_groups(full, hidden)) or full
    layer, head = layer_head_ui(view)
    overview_ui(view, layer, head)
    one_head_ui(view, layer, head)
    head_view_ui(view, layer)
    aggregate_ui(view, layer)
    special_ui(full)
    if settings.source == "transformer" and settings.kind == "cross":
        compare_ui(text, result)


st.title("Multi-head attention")
st.markdown(ABOUT)
body()
