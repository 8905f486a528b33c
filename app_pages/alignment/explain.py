"""The Alignment page's section "Does attention explain?" (Jain & Wallace 2019, "Attention is not
Explanation"; Wiegreffe & Pinter 2019, "Attention is not not Explanation").

For the page's sentence and translation and a French word chosen in a select (``?expl_word=`` in
the URL: the word's number): the attention row beside leave-one-out and gradient x input, their
rank correlations, and the decoder's output at that step with uniform and permuted attention. The
computation is :func:`models.analysis.explain.explain`, cached per weights, sentence and step.

The measures cost a backward pass and a decoder pass per source word and per permutation: about
as much server time as the rest of the page (``make load`` profile). So they run when the reader
turns them on (``?expl=true`` in the URL; a deep link with ``?expl_word=`` turns them on too), not on
every sentence a class types.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from i18n import N_, _
from models.analysis.explain import Explanation, explain
from models.rnn.translator import Translation, Translator
from models.sentence import Sentence
from models.subword_merge import group_pieces, word_text
from ui.charts import plotly_chart
from ui.guard import guarded, show_refusal
from ui.loaders import ModelKey, spinner, weights_id
from ui.tables import table_ui
from ui.text import escape_markdown
from ui.url_state import parse_int, read_param
from viz.explain import counterfactual_figure, measures_figure, rho_text

KEY = "expl_word"  # the chosen French word's index, in the URL
ON = "expl"  # the measures are on (a toggle, in the URL)
ABOUT = N_(
    "Attention weights are often read as an explanation: the English words the decoder looked at "
    "would be the ones that mattered. Jain & Wallace (2019, “Attention is not Explanation”) "
    "tested this reading and found attention often uncorrelated with other measures of which "
    "words mattered, and permuted or adversarially chosen weights that left the output "
    "unchanged. Wiegreffe & Pinter (2019, “Attention is not not Explanation”) answered that "
    "whether attention explains depends on the model and on the test: where uniform weights "
    "change the output, the learned weights carry information. Below, for one French word, its "
    "attention row stands beside two other measures, and the decoder writes that word again "
    "with uniform and with permuted weights."
)
MEASURES_HELP = N_(
    "**Leave-one-out**: remove the English word and measure how much log p of the French word "
    "falls (the same French words before it are fed to the decoder). **Gradient × input**: the "
    "gradient of that log p with respect to each word's embedding, dotted with the embedding. "
    "Each row of bars is divided by its largest value; ρ is Spearman's rank correlation over "
    "the source words between the attention and the size of the other measure."
)
MEANING = N_(
    "A high ρ means attention agrees with the other measures for this word: the words it weighs "
    "most are those whose removal or change moves the output most. A low ρ means the attention "
    "weights alone are not a faithful explanation of this output. When uniform or permuted "
    "weights leave the most likely piece unchanged, this step did not depend on where the "
    "decoder looked."
)
COUNTERFACTUAL_NAMES = {
    "model": N_("model's own"),
    "uniform": N_("uniform"),
    "permuted": N_("permuted"),
}


@st.cache_data(max_entries=64, show_spinner=False)  # 64 small results (a few arrays of S floats)
def _explain(
    _translator: Translator,
    weights: ModelKey,
    sentence: Sentence,
    target: tuple[str, ...],
    step: int,
) -> Explanation:
    """explain() needs autograd, so it runs outside inference mode; cached per weights and input."""
    return explain(_translator, sentence, list(target), step)


def compute_explanation(
    translator: Translator, sentence: Sentence, target_tokens: list[str], step: int
) -> tuple[Explanation | None, str | None]:
    """(the explanation, None), or (None, the message) when the model refused the input."""
    with spinner(_("Measuring which words mattered…")):
        return guarded(
            lambda: _explain(
                translator, weights_id(translator), sentence, tuple(target_tokens), step
            )
        )


def target_word_ui(target_tokens: list[str]) -> tuple[list[int], str]:
    """The select of the French word, numbered from 1 (kept in the URL as ``?expl_word=<number>``,
    clamped when the translation gets shorter): the word's pieces' positions and its text."""
    groups = group_pieces(target_tokens)
    words = [word_text(target_tokens, g) for g in groups]
    current = st.session_state.get(KEY, read_param(KEY, parse_int, 1, 1, 10**6))
    st.session_state[KEY] = int(np.clip(current, 1, len(groups)))
    number = st.selectbox(
        _("French word to explain"),
        list(range(1, len(groups) + 1)),
        key=KEY,
        format_func=lambda n: f"{n}. {words[n - 1]}",
    )
    if number == 1 and KEY in st.query_params:
        del st.query_params[KEY]
    elif number != 1 and st.query_params.get(KEY) != str(number):
        st.query_params[KEY] = str(number)
    return groups[number - 1], words[number - 1]


def correlations_ui(ex: Explanation) -> None:
    """The three rank correlations as numbers, and what they mean."""
    cols = st.columns(3)
    cols[0].metric(_("ρ attention vs leave-one-out"), rho_text(ex.rho_loo))
    cols[1].metric(_("ρ attention vs gradient × input"), rho_text(ex.rho_grad))
    cols[2].metric(_("ρ leave-one-out vs gradient × input"), rho_text(ex.rho_loo_grad))
    if any(np.isnan(r) for r in (ex.rho_loo, ex.rho_grad)):
        st.caption(_("— : a measure is the same for every word, so it has no ranking."))
    st.markdown(_(MEANING))


def counterfactual_ui(ex: Explanation) -> None:
    """The decoder's output at the step with its own, uniform and permuted attention."""
    names = [_(COUNTERFACTUAL_NAMES[c.name]) for c in ex.counterfactuals]
    title = _("Step {step}: the next piece").format(step=ex.step)
    fig = counterfactual_figure(
        ex.candidates,
        dict(zip(names, ex.candidate_probs, strict=True)),
        token=ex.token,
        title=title,
    )
    plotly_chart(fig, key="expl_counterfactual")
    yes, no = _("yes"), _("no")
    table_ui(
        [
            {
                _("attention weights"): name,
                _("most likely piece"): c.top_k[0][0],
                _("its probability"): f"{c.top_k[0][1]:.3f}",
                _("p({token})").format(token=ex.token): f"{np.exp(c.log_prob):.3f}",
                _("most likely piece changed"): yes if c.argmax_changed else no,
                _("TVD to the model's own"): f"{c.tvd:.3f}",
            }
            for name, c in zip(names, ex.counterfactuals, strict=True)
        ]
    )
    st.caption(
        _(
            "Over {n} random permutations (seeded) the most likely piece changed in {share:.0%} "
            "of them; median TVD {tvd:.3f}. TVD, the total variation distance ½ Σ |p − q| between "
            "two output distributions, is Jain & Wallace's measure of how much the output moved "
            "(0: unchanged, 1: disjoint)."
        ).format(n=ex.n_permutations, share=ex.permuted_changed, tvd=ex.permuted_median_tvd)
    )


def measures_on_ui() -> bool:
    """The toggle that turns the measures on (in the URL as ``?expl=true``); a link that names a
    word to explain (``?expl_word=``) opens with it on."""
    if ON not in st.session_state and KEY in st.query_params and ON not in st.query_params:
        st.session_state[ON] = True
    return st.toggle(
        _("Measure which words mattered"),
        key=ON,
        bind="query-params",
        help=_(
            "Runs leave-one-out, gradient × input and the decoder with uniform and permuted "
            "weights for one French word of every translation. It adds work to each sentence, "
            "so it stays off until you turn it on."
        ),
    )


def explain_ui(translator: Translator, sentence: Sentence, translation: Translation) -> None:
    """The section: select a French word, see the three measures, the correlations and the
    counterfactual outputs for it (once the reader turns the measures on)."""
    st.subheader(_("Does attention explain?"))
    st.markdown(_(ABOUT))
    if translation.weights is None or not translation.target_tokens:
        st.info(_("This model has no attention to explain."))
        return
    if not measures_on_ui():
        return
    pieces, word = target_word_ui(list(translation.target_tokens))
    ex, message = compute_explanation(
        translator, sentence, list(translation.target_tokens), pieces[0]
    )
    if ex is None:
        show_refusal(message or "")
        return
    if len(pieces) > 1:
        st.caption(
            _(
                "“{word}” is made of {n} pieces; the measures are for its first, “{piece}”, "
                "where the model chooses the word."
            ).format(word=escape_markdown(word), n=len(pieces), piece=escape_markdown(ex.token))
        )
    title = _("Which words mattered for “{word}”?").format(word=word)
    fig = measures_figure(
        ex.source_words,
        ex.word_attention,
        ex.leave_one_out,
        ex.word_grad_input,
        rho_loo=ex.rho_loo,
        rho_grad=ex.rho_grad,
        title=title,
    )
    plotly_chart(fig, key="expl_measures")
    st.caption(_(MEASURES_HELP))
    correlations_ui(ex)
    counterfactual_ui(ex)
