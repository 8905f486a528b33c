"""Attention anatomy: soft addressing in three stages on 2-D vectors the user edits."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from app_pages.anatomy.drag import STEP, DragMember, apply_drag, drag_chart, drag_options
from app_pages.anatomy.number_table import LIMIT, number_grid_ui, set_rows
from i18n import N_, _
from models.analysis.toy import (
    ADDITIVE_V,
    ADDITIVE_W_K,
    ADDITIVE_W_Q,
    AnatomyResult,
    anatomy,
    hard_pick,
)
from ui import plotly_component
from ui.charts import plotly_chart
from ui.choices import choice_ui
from ui.downloads import csv_and_json
from ui.errors import fragment
from ui.text import page_intro
from ui.url_state import (
    check_number_param,
    format_matrix,
    parse_int,
    parse_matrix,
    read_param,
    write_params,
)
from viz import vector_diagram, weights_bar

COLUMNS = ["key x", "key y", "value x", "value y"]  # the table's columns (ids), shown translated
COLUMN_LABELS = {
    "key x": N_("key x"),
    "key y": N_("key y"),
    "value x": N_("value x"),
    "value y": N_("value y"),
}
ALIGNED = [
    [2.0, 1.0, 1.0, 0.0],
    [-1.0, 1.0, 0.0, 1.0],
    [0.0, -2.0, -1.0, 0.0],
    [1.0, -1.0, 0.0, -1.0],
]
EQUAL = [[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 1.0], [1.0, 1.0, -1.0, 0.0], [1.0, 1.0, 0.0, -1.0]]
PRESETS = {  # name (its id in the URL, and its English label) -> (query, items, temperature)
    N_("One key aligned with the query"): ((2.0, 1.0), ALIGNED, 1.0),
    N_("All keys equal"): ((2.0, 1.0), EQUAL, 1.0),
    N_("A huge temperature"): ((2.0, 1.0), ALIGNED, 1e6),
    N_("A tiny temperature"): ((2.0, 1.0), ALIGNED, 1e-6),
}
SCORES = {  # id (its URL value) -> score function (models.attention.score)
    "dot": "dot",
    "scaled dot": "scaled_dot",
    "general": "general",
    "additive": "additive",
}
SCORE_LABELS = {
    "dot": N_("dot"),
    "scaled dot": N_("scaled dot"),
    "general": N_("general"),
    "additive": N_("additive"),
}
FORMULAS = {
    "dot": r"e_s = q^\top k_s",
    "scaled_dot": r"e_s = \frac{q^\top k_s}{\sqrt{d_k}},\quad d_k = 2",
    "general": r"e_s = q^\top W\, k_s",
    "additive": r"e_s = v^\top \tanh(W_q\, q + W_k\, k_s),\quad W_q = W_k = I,\ v = (1, 1)",
}
ABOUT = N_(
    "Think of attention as a lookup in a soft dictionary. Each item has a **key** (what it can be "
    "found by) and a **value** (what it hands back). A **query** asks a question. Instead of "
    "returning the one item whose key matches, attention returns a blend of *all* values, mixed by "
    "how well each key answers the query. Edit the vectors and watch the three stages respond."
)
TRY = N_(
    "**What to try:** *one key aligned with the query* (key A takes most of the weight); *all keys "
    "equal* (uniform weights, the context is the mean of the values); *a huge* or *a tiny "
    "temperature* (the softmax flattens, or sharpens into a hard maximum); *hard attention* (one "
    "item sampled)."
)

DRAG = N_(
    "**Drag** the ring at the tip of the query or of a key: the bars of the scores and the "
    "weights and the context's arrow follow as you drag (your browser computes them). When you "
    "let go, the page computes the three stages again from the new vectors, rounded to steps of "
    "{step:g}, and writes them into the inputs and the table. The vectors are 2-D, so the plane "
    "shows them exactly."
)


def _latex_number(x: float) -> str:
    """1e+06 -> '1 \\times 10^{6}'; ordinary numbers as %g."""
    text = f"{x:g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


def _letters(n: int) -> list[str]:
    """Item names A, B, C, ..."""
    return [chr(ord("A") + i) for i in range(n)]


@dataclass(frozen=True)
class AnatomySettings:
    """What the three stages are computed from.

    query: (2,); items: (n, 4) rows of key x, key y, value x, value y (3 <= n <= 8);
    score: a score function of ``models.attention.score``; W: (2, 2) for the general score, else
    None; temperature: divides the scores before the softmax; hard: sample one item as well.
    """

    query: np.ndarray
    items: np.ndarray
    score: str
    W: np.ndarray | None
    temperature: float
    hard: bool


def _apply_preset() -> None:
    """Callback: load the chosen preset into the query, the table and the temperature."""
    query, items, temperature = PRESETS[st.session_state["anat_preset"]]
    st.session_state["anat_qx"], st.session_state["anat_qy"] = query
    st.session_state["anat_temp"] = temperature
    set_rows("anat_items", items)


def _init_state() -> None:
    """First run of the session: the table, W and the seed come from the URL (``anat_items``,
    ``anat_W``, ``anat_seed``: the same names as their session-state keys) or the defaults."""
    if "anat_items" not in st.session_state:
        set_rows("anat_items", read_param("anat_items", parse_matrix, ALIGNED, None, 4))
        identity = [[1.0, 0.0], [0.0, 1.0]]
        set_rows("anat_W", read_param("anat_W", parse_matrix, identity, 2, 2))
        st.session_state["anat_seed"] = read_param("anat_seed", parse_int, 0, 0, 2**31 - 1)


def items_ui() -> np.ndarray | None:
    """The key/value table (3 to 8 rows); returns items (n, 4) or None with a message."""
    labels = [_(COLUMN_LABELS[name]) for name in COLUMNS]
    names = _letters(len(st.session_state["anat_items"]))
    items = number_grid_ui("anat_items", labels, names, rows=(3, 8))  # (n, 4)
    complete = items[np.isfinite(items).all(axis=1)]
    if len(complete) < len(items):
        st.caption(
            _(
                "Rows with an empty cell, or one that is not a number from {lo:g} to {hi:g}, are "
                "ignored until you fill them in."
            ).format(lo=-LIMIT, hi=LIMIT)
        )
    if not 3 <= len(complete) <= 8:
        st.warning(
            _("Use between 3 and 8 complete items; the table has {n}.").format(n=len(complete))
        )
        return None
    write_params(anat_items=format_matrix(complete))
    return complete


def w_ui() -> np.ndarray:
    """The editable 2x2 matrix W of the general score (an unreadable cell counts as 0)."""
    W = number_grid_ui("anat_W", ["k x", "k y"], ["q x", "q y"])  # (2, 2)
    W = np.where(np.isfinite(W), W, 0.0)
    write_params(anat_W=format_matrix(W))
    return W


def _resample() -> None:
    """Callback: draw a new seed for the hard pick."""
    st.session_state["anat_seed"] = (st.session_state["anat_seed"] + 1) % (2**31 - 1)


def controls_ui(items: np.ndarray | None) -> AnatomySettings | None:
    """The query and the scoring inputs; returns them with the items, or None when the table is
    unusable."""
    for name, lo, hi in (
        ("anat_qx", -LIMIT, LIMIT),
        ("anat_qy", -LIMIT, LIMIT),
        ("anat_temp", 1e-6, 1e6),
    ):
        check_number_param(name, lo, hi, integer=False)
    c1, c2 = st.columns(2)
    qx = c1.number_input(_("query x"), -LIMIT, LIMIT, 2.0, STEP, key="anat_qx", bind="query-params")
    qy = c2.number_input(_("query y"), -LIMIT, LIMIT, 1.0, STEP, key="anat_qy", bind="query-params")
    score_id = choice_ui(st.selectbox, _("Score function"), SCORE_LABELS, key="anat_score")
    score = SCORES[score_id]
    W = w_ui() if score == "general" else None
    temperature = st.number_input(
        _("Temperature T"),
        min_value=1e-6,
        max_value=1e6,
        value=1.0,
        step=0.1,
        format="%g",
        key="anat_temp",
        bind="query-params",
        help=_("Divides the scores before the softmax."),
    )
    hard = st.toggle(_("Hard attention (sample one item)"), key="anat_hard", bind="query-params")
    if items is None:
        return None
    return AnatomySettings(np.array([qx, qy]), items, score, W, float(temperature), bool(hard))


def stage_scores(result: AnatomyResult, names: list[str], score: str, W: np.ndarray | None) -> None:
    """Stage 1: how well each key matches the query."""
    st.subheader(_("Stage 1 · scores"))
    st.latex(FORMULAS[score])
    if score == "general" and W is not None:
        st.latex(r"W = \begin{pmatrix}%g & %g\\ %g & %g\end{pmatrix}" % tuple(W.ravel()))  # noqa: UP031
    if score == "additive":
        st.caption(
            _("v = {v}; the tanh squashes each match into (-2, 2) here.").format(v=ADDITIVE_V)
        )
    fig = weights_bar(result.scores, names, title=_("Scores e_s"), y_title=_("score"))
    plotly_chart(drag_chart(fig, DragMember("scores")), key="anat_scores")


def stage_weights(result: AnatomyResult, names: list[str], temperature: float) -> None:
    """Stage 2: the softmax turns scores into weights that sum to 1."""
    st.subheader(_("Stage 2 · softmax weights"))
    formula = r"a_s = \frac{\exp(e_s / T)}{\sum_{s'} \exp(e_{s'} / T)},\quad T = "
    st.latex(formula + _latex_number(temperature))
    if np.ptp(result.scores) == 0:
        st.info(
            _(
                "All scores are equal (identical keys, or a zero query), so every item gets the "
                "same weight."
            )
        )
    elif temperature >= 1e3:
        st.info(_("A huge temperature flattens the scores: the weights are almost uniform."))
    elif temperature <= 1e-3:
        st.info(
            _(
                "A tiny temperature sharpens the softmax into a hard maximum: the best key takes "
                "(almost) all."
            )
        )
    title = _("Weights a_s (T = {T:g})").format(T=temperature)
    fig = weights_bar(result.weights, names, title=title)
    plotly_chart(drag_chart(fig, DragMember("weights")), key="anat_weights")


def stage_context(result: AnatomyResult, settings: AnatomySettings, names: list[str]) -> None:
    """Stage 3: the context vector is the weighted average of the values."""
    st.subheader(_("Stage 3 · weighted sum"))
    st.latex(r"c = \sum_s a_s\, v_s = (%.3f,\ %.3f)" % tuple(result.context))  # noqa: UP031
    items = settings.items
    extra = {}
    if settings.hard:
        seed = st.session_state["anat_seed"]
        pick = hard_pick(result.weights, seed)
        extra = {_("hard pick ({item})").format(item=names[pick]): items[pick, 2:]}
        gap = float(np.linalg.norm(items[pick, 2:] - result.context))
        st.markdown(
            _(
                "Hard attention sampled item **{item}** (seed {seed}); it lies {gap:.3f} from "
                "the soft context. On average over many samples, the hard pick equals the soft "
                "context; any single pick is one value, not a blend."
            ).format(item=names[pick], seed=seed, gap=gap)
        )
        st.button(_("Re-sample"), key="anat_resample", on_click=_resample, icon=":material/casino:")
        write_params(anat_seed=st.session_state["anat_seed"])
    fig = vector_diagram(
        settings.query,
        items[:, :2],
        items[:, 2:],
        result.context,
        names,
        title=_("Query, keys, values and the context"),
        extra=extra,
    )
    options = drag_options(
        fig,
        settings.query,
        items,
        names,
        score=settings.score,
        W=settings.W,
        additive={"W_q": ADDITIVE_W_Q, "W_k": ADDITIVE_W_K, "v": ADDITIVE_V},
        temperature=settings.temperature,
    )
    if plotly_component.wanted():  # the diagram's handles exist only in the chart component
        st.caption(_(DRAG).format(step=STEP))
    plotly_chart(
        drag_chart(fig, options),
        key="anat_vectors",
        on_trigger={"drag": lambda: apply_drag("anat_vectors")},
    )


def downloads_ui(result: AnatomyResult, settings: AnatomySettings, names: list[str]) -> None:
    """CSV of the scores and weights; JSON of the whole view."""
    table = np.stack([result.scores, result.weights], axis=1)  # (n, 2)
    data = {
        "query": settings.query,
        "items": settings.items,
        "score": settings.score,
        "temperature": settings.temperature,
        "scores": result.scores,
        "weights": result.weights,
        "context": result.context,
    }
    csv_and_json(table, names, ["score", "weight"], data, "anatomy", "anat")


def items_section() -> np.ndarray | None:
    """The preset and the key/value table."""
    presets = {name: name for name in PRESETS}  # id -> label (the English name)
    choice_ui(st.selectbox, _("Preset"), presets, key="anat_preset", on_change=_apply_preset)
    st.markdown(_("**Keys and values** (one row per item; add or delete rows)"))
    return items_ui()


def stages_ui(settings: AnatomySettings) -> None:
    """The three stages computed from ``settings``, and the downloads."""
    result = anatomy(
        settings.query,
        settings.items[:, :2],
        settings.items[:, 2:],
        score_name=settings.score,
        temperature=settings.temperature,
        W=settings.W,
    )
    if not all(np.all(np.isfinite(a)) for a in (result.scores, result.weights, result.context)):
        st.error(_("These numbers overflow. Use smaller vectors or a larger temperature."))
        return
    names = _letters(len(settings.items))
    stage_scores(result, names, settings.score, settings.W)
    stage_weights(result, names, settings.temperature)
    stage_context(result, settings, names)
    downloads_ui(result, settings, names)


@fragment
def body() -> None:
    """Every input on the left (the table, the query, the scoring), the three stages on the
    right, where the first chart comes into a projector's first screen; a fragment, so an edit
    reruns only this part of the page."""
    left, right = st.columns([1, 1], gap="large")
    with left:
        settings = controls_ui(items_section())
        st.markdown(_(TRY))
    if settings is not None:
        with right:
            stages_ui(settings)


def main() -> None:
    """The page."""
    page_intro(_("Attention anatomy"), _(ABOUT))
    _init_state()
    body()


main()
