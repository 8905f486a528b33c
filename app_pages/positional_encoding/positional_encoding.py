"""Positional encoding: the sinusoidal matrix, its curves, position similarity, and why
self-attention needs positions at all (the permutation demo)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from i18n import N_, _
from models.analysis.toy import PermutationResult, permutation_demo, position_similarity
from models.limits import PERMUTATION_TOKENS, POSITIONAL_CHARS
from models.transformer.positional import position_cosine, position_table, sinusoidal_encoding
from ui.charts import plotly_chart
from ui.downloads import download_csv
from ui.errors import fragment
from ui.fit import PAGE
from ui.guard import guarded_ui
from ui.layout import regions
from ui.loaders import cached_transformer, card_of
from ui.multi_head import POSITIONAL_LABELS, POSITIONALS
from ui.text import TextBox, escape_markdown, page_intro, read_text, show_text_notices, tokenize
from ui.url_state import check_number_param, seed_number, write_params
from viz import pe_curves, pe_heatmap, position_norms_figure
from viz.positional import permutation_maps, position_heatmap
from viz.views import positional_encoding_view

# The shuffled sentence's box; one word is as good as none (nothing to shuffle): its message too
SENTENCE_BOX = TextBox(POSITIONAL_CHARS, N_("Type a sentence of at least two words to shuffle."))
ABOUT = N_(
    "Self-attention looks at a set of vectors, not a sequence: nothing in `softmax(QKᵀ/√d)V` "
    "knows which word came first. The Transformer fixes this by adding a **positional encoding** "
    "to each word's embedding: a vector of sines and cosines whose frequencies fall geometrically "
    "from one dimension pair to the next, so that every position gets its own pattern and nearby "
    "positions get similar patterns."
)


def parse_dims(text: str, d_model: int) -> tuple[list[int], str | None]:
    """'0, 1, 4' -> [0, 1, 4] within 0..d_model-1; returns (dims, notice about dropped entries)."""
    dims, dropped = [], []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if part.isascii() and part.isdigit() and len(part) < 6 and int(part) < d_model:  # not '²'
            dims.append(int(part))
        elif part:
            dropped.append(part)
    notice = (
        _("Ignored {entries}: use numbers 0 to {last}.").format(
            entries=escape_markdown(", ".join(p[:12] for p in dropped[:5])), last=d_model - 1
        )
        if dropped
        else None
    )
    return list(dict.fromkeys(dims))[:12], notice


def matrix_section() -> tuple[int, int]:
    """The PE heatmap and the curves; returns (n_positions, d_model)."""
    check_number_param("pe_n", 1, 512)
    check_number_param("pe_d", 2, 512)
    c1, c2 = st.columns(2)
    n = c1.slider(_("Positions"), 1, 512, 64, key="pe_n", bind="query-params")
    d = c2.slider("d_model", 2, 512, 64, key="pe_d", bind="query-params")
    pe = sinusoidal_encoding(n, d).numpy()  # (n, d)
    charts, notes = regions()  # in classroom mode the formula follows the map
    notes.latex(
        r"PE_{(pos,\,2i)} = \sin\!\left(pos / 10000^{2i/d}\right),\quad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(pos / 10000^{2i/d}\right)"
    )
    with charts:
        plotly_chart(positional_encoding_view(pe), key="pe_map")
    download_csv(
        pe,
        [str(i) for i in range(n)],
        [str(j) for j in range(d)],
        "pe.csv",
        label=_("Download CSV"),
        key="pe_csv",
    )
    text = st.text_input(
        _("Dimensions to plot (comma-separated)"), "0, 1, 4, 5", key="pe_dims", bind="query-params"
    )
    dims, notice = parse_dims(text, d)
    if notice:
        st.warning(notice)
    if dims:
        plotly_chart(
            pe_curves(pe, dims, title=_("Chosen dimensions over position")), key="pe_curves"
        )
        st.caption(
            _(
                "Low dimensions turn fast, high ones slowly: together they act like the hands of a "
                "clock."
            )
        )
    return n, d


def similarity_section(n: int, d: int) -> None:
    """PE · PE^T and what it shows."""
    st.subheader(_("How similar are two positions?"))
    sim = position_similarity(n, d)  # (n, n)
    fig = position_heatmap(sim, title="PE · PEᵀ", value_name="PE·PE", colorscale="Viridis")
    plotly_chart(fig, key="pe_sim")
    st.markdown(
        _(
            "Each product is a sum of cosines of *(i − j)* times each frequency, so it depends only "
            "on the distance between the positions: the bands run parallel to the diagonal, and the "
            "diagonal (distance 0) is the largest value, d/2."
        )
    )


def demo_maps(plain: PermutationResult, with_pe: PermutationResult) -> None:
    """The four attention maps in one figure: columns without / with PE, rows original / shuffled;
    each shuffled map's title carries the check (max |difference| after un-shuffling)."""
    panels = [
        (plain.weights, plain.tokens, plain.tokens, _("without PE · original order")),
        (with_pe.weights, with_pe.tokens, with_pe.tokens, _("with PE · original order")),
        (
            plain.shuffled_weights,
            plain.shuffled_tokens,
            plain.shuffled_tokens,
            _(
                "without PE · shuffled order\nmax |difference|\nafter un-shuffling: {diff:.2e}"
            ).format(diff=plain.max_diff),
        ),
        (
            with_pe.shuffled_weights,
            with_pe.shuffled_tokens,
            with_pe.shuffled_tokens,
            _("with PE · shuffled order\nmax |difference|\nafter un-shuffling: {diff:.2e}").format(
                diff=with_pe.max_diff
            ),
        ),
    ]
    fig = permutation_maps(panels)
    if PAGE.holds(fig):
        plotly_chart(fig, key="pe_perm_maps")
    else:  # one map a chart, each wrapped to the column where it is wider
        for k, panel in enumerate(panels):
            plotly_chart(permutation_maps([panel], per_row=1), key=f"pe_perm_maps_{k}")
    # the CSV's row names are data: English in every language
    labels = [f"without PE · {t}" for t in plain.tokens] + [f"with PE · {t}" for t in plain.tokens]
    download_csv(
        np.vstack([plain.weights, with_pe.weights]),
        labels,
        plain.tokens,
        "permutation_weights.csv",
        label=_("Download both maps (CSV)"),
        key="pe_perm_csv",
    )


@fragment
def permutation_section() -> None:
    """A typed sentence through one self-attention layer, in order and shuffled (the heading and
    the explanation sit outside, in ``main``: a fragment rerun resends only what can change)."""
    raw = st.text_input(
        _("Sentence"), "the cat sat on the mat", key="pe_sentence", bind="query-params"
    )
    seed_number("pe_shuffle", 1, 0, 10_000)  # not bound: Streamlit raises on ?pe_shuffle=inf
    seed = st.number_input(_("Shuffle seed"), 0, 10_000, key="pe_shuffle")
    write_params(pe_shuffle=seed)
    sentence = read_text(SENTENCE_BOX, raw)
    tokens, cut = tokenize(sentence.text, PERMUTATION_TOKENS)
    if len(tokens) < 2:
        sentence = replace(sentence, hint=_(SENTENCE_BOX.empty))
    if not show_text_notices(sentence):
        return
    if cut:
        st.info(cut, icon=":material/content_cut:")
    pair = guarded_ui(
        lambda: tuple(
            permutation_demo(tokens, with_pe=flag, shuffle_seed=int(seed)) for flag in (False, True)
        )
    )
    if pair is None:
        return
    plain, with_pe = pair
    st.markdown(
        _("**Tokens:** {tokens}  \n**Shuffled:** {shuffled}").format(
            tokens=escape_markdown(" ".join(tokens)),
            shuffled=escape_markdown(" ".join(plain.shuffled_tokens)),
        )
    )
    demo_maps(plain, with_pe)
    _verdict(plain, with_pe)


def _verdict(plain: PermutationResult, with_pe: PermutationResult) -> None:
    """State what the two numbers mean."""
    if np.array_equal(plain.perm, np.arange(len(plain.perm))):
        st.info(_("This seed leaves the words in place; try another seed."))
        return
    st.success(
        _(
            "Without PE the shuffled map is the original map with rows and columns moved: after "
            "moving them back, the largest difference is {plain:.1e} (rounding). With PE the same "
            "words at new places attend differently: the largest difference is {with_pe:.3f}."
        ).format(plain=plain.max_diff, with_pe=with_pe.max_diff)
    )


@fragment
def encoding_sections() -> None:
    """The PE matrix, its curves and the similarity matrix (one fragment: they share n and d)."""
    n, d = matrix_section()
    similarity_section(n, d)


TRAINED_ABOUT = N_(
    "Our two Transformers (Multi-head attention page) are the same model trained the same way on "
    "the same English -> French data, except for the position vectors: one adds the fixed "
    "sinusoids above, the other **learns** one vector per position (Vaswani et al. 2017, table 3 "
    "row (E), found the two nearly equal in BLEU). Below, the source side's position vectors of "
    "each, as trained."
)


def _card_metrics(positional: str) -> None:
    """Test BLEU from the model card: the test set, and three test sentences joined into one."""
    card = card_of(f"transformer-{positional}")
    bleu = card.metrics.get("bleu_greedy") if card else None
    long = card.long_sets.get("concat3", {}).get("bleu") if card else None
    c1, c2 = st.columns(2)
    c1.metric(_("Test BLEU (greedy)"), "–" if bleu is None else f"{bleu:.2f}")
    c2.metric(
        _("BLEU, 3 sentences joined"),
        "–" if long is None else f"{long:.2f}",
        help=_(
            "The test sentences three at a time, so most inputs are longer than any "
            "training sentence."
        ),
    )


@fragment
def trained_section() -> None:
    """The trained models' position vectors: matrices, cosine similarity, lengths, and BLEU."""
    st.subheader(_("In our trained Transformers: sinusoidal or learned?"))
    st.markdown(_(TRAINED_ABOUT))
    models = {p: cached_transformer(p) for p in POSITIONALS}
    tables = {p: position_table(m.model.src_positions) for p, m in models.items() if m is not None}
    if not tables:
        return
    longest = min(t.shape[0] for t in tables.values())
    check_number_param("pe_tn", 2, longest)
    n = st.slider(
        _("Positions shown"), 2, longest, min(64, longest), key="pe_tn", bind="query-params"
    )
    cols = st.columns(len(tables))
    for col, (name, table) in zip(cols, tables.items(), strict=True):
        label = _(POSITIONAL_LABELS[name])
        with col:
            st.markdown(f"**{label}**")
            _card_metrics(name)
            shown = table[:n].numpy()  # (n, d)
            zmax = max(1e-6, float(np.abs(shown).max()))
            title = _("{name}: {n} positions × {d} dims").format(name=label, n=n, d=shown.shape[1])
            plotly_chart(pe_heatmap(shown, title=title, zmax=zmax), key=f"pe_tr_map_{name}")
            sim = position_cosine(table[:n]).numpy()  # (n, n)
            fig = position_heatmap(
                sim,
                title=_("{name}: cosine similarity of positions").format(name=label),
                value_name=_("cosine"),
                colorscale="RdBu_r",
                zmin=-1.0,
                zmax=1.0,
                zmid=0.0,
            )
            plotly_chart(fig, key=f"pe_tr_sim_{name}")
    norms = {
        _(POSITIONAL_LABELS[name]): table.norm(dim=-1).numpy() for name, table in tables.items()
    }
    plotly_chart(
        position_norms_figure(norms, title=_("Length of each position's vector")), key="pe_tr_norms"
    )
    st.markdown(_(LOOK_FOR))


LOOK_FOR = N_(
    "What to look for: the sinusoids' similarity depends only on the distance between two "
    "positions, a smooth band along the diagonal, by construction. The learned vectors show "
    "whatever structure training found useful, which need not be a band. And a learned vector "
    "only changes when training sentences reach its position: half of Multi30k's English "
    "training sentences have at most 14 pieces, 99% at most 29, the longest 48. Past that, the "
    "vectors keep their small random start (the flat tail of the lengths, the speckle in the "
    "similarity), while the sinusoids are defined for every position."
)


def main() -> None:
    """The page; each section is a fragment, so its inputs rerun only that section."""
    page_intro(_("Positional encoding"), _(ABOUT))
    encoding_sections()
    st.subheader(_("Shuffle the words"))
    st.markdown(
        _(
            "Each word gets a random but fixed embedding; one self-attention layer with "
            "fixed random projections reads the sentence in its order and in a shuffled "
            "order."
        )
    )
    permutation_section()
    trained_section()


main()
