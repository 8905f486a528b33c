"""The live view of a lesson step: the real page's chart for the step's sentence (or scene), made
legible as ``ui.charts.plotly_chart`` makes every chart. ``show_view`` draws a step's whole view; a
question's hidden part is drawn by ``predict`` only after the reveal.

A step's view is made once for every session that shows it (``ui.once``: per step, language,
screen mode and device) as :class:`Part` values, and each session only draws them: a hall of
students who open the same step share one model run and one legible chart per part."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from app_pages.lessons import compute
from app_pages.lessons.answers import REGIONS, region_masses
from app_pages.lessons.schema import Step
from i18n import _
from models.transformer.positional import sinusoidal_encoding
from ui import captions
from ui.charts import Prepared, prepare_chart, show_prepared
from ui.fit import Fit
from ui.once import once
from ui.text import escape_markdown
from viz.alignment import alignment_heatmap
from viz.lessons import guess_bars, region_figure
from viz.multi_head import head_grid, head_heatmap
from viz.positional import permutation_maps
from viz.scaling import lines_over_dims
from viz.view_column import fit_view_column
from viz.views import local_window_view, positional_encoding_view

PE_POSITIONS, PE_DIMS = 24, 32
# classroom mode: a chart fits under the step's row on a 720 px projector
STEP_FIT = Fit(height=520)


@dataclass(frozen=True)
class Part:
    """One piece of a step's view, made once for every student (``ui.once``): a markdown
    ``line``, a ``table`` of rows, or ``charts`` side by side (each with the suffix of its key)."""

    line: str = ""
    table: tuple[dict, ...] = ()
    charts: tuple[tuple[str, Prepared], ...] = ()


def prepared(fig: go.Figure) -> Prepared:
    """A step's chart for its view column (``viz.view_column``), in classroom mode scaled to fit
    under the step's row, never below the legibility minimums."""
    return prepare_chart(fit_view_column(fig), fit=STEP_FIT)


def chart_once(memo: tuple, build: Callable[[], go.Figure], key: str) -> None:
    """Show the step chart that ``build`` makes, made once per ``memo`` (hashable: what the
    figure depends on besides the language and the screen, which are added) for every session."""
    show_prepared(_once_chart(memo, _build=build), key=key)


@once
def _once_chart(memo: tuple, *, _build: Callable[[], go.Figure]) -> Prepared:
    return prepared(_build())


def _draw(parts: tuple[Part, ...], key: str) -> None:
    for part in parts:
        if part.line:
            st.markdown(part.line)
        if part.table:
            st.table(list(part.table))
        if len(part.charts) == 1:
            suffix, one = part.charts[0]
            show_prepared(one, key=key + suffix)
        elif part.charts:
            for col, (suffix, one) in zip(st.columns(len(part.charts)), part.charts, strict=True):
                with col:
                    show_prepared(one, key=key + suffix)


def region_names() -> tuple[str, ...]:
    """The nine parts of an image, row by row from the top left (answers.region_masses)."""
    return captions.region_names()


def quoted(tokens: list[str], index: int) -> str:
    """The tokens as one markdown line with token ``index`` in bold (escaped: user text)."""
    words = [escape_markdown(t.replace("▁", "") or "▁") for t in tokens]
    words[index] = f"**[{words[index]}]**"
    return " ".join(words)


def _translations(step: Step) -> tuple[Part, ...] | None:
    pair = step.question.pair if step.question else ()
    if not pair:
        pair = ((step.sentence, ""),)
    outputs = compute.bleu_pair(pair) if all(fr for _en, fr in pair) else None
    # a sentence without a reference (no pair): both models' translations, without BLEU
    alone = compute.both_translations(pair[0][0]) if len(pair) == 1 and not pair[0][1] else None
    rows = []
    for i, (en, fr) in enumerate(pair):
        rows.append({_("English"): en})
        for name, label in (("none", _("without attention")), ("bahdanau", _("with attention"))):
            if outputs is not None:
                tr = outputs[0][name][i]
            else:
                tr = alone[name] if alone is not None else None
            rows[-1][label] = tr.text if tr is not None else "—"
        if fr:
            rows[-1][_("reference")] = fr
    parts = [Part(table=tuple(rows))]
    if outputs is not None:
        bleu = outputs[1]
        lines = [
            _("Sentence {n}: BLEU {none:.1f} without attention, {att:.1f} with it.").format(
                n=i + 1, none=bleu[0, i], att=bleu[1, i]
            )
            for i in range(len(pair))
        ]
        parts.append(Part(line="  \n".join(lines)))
    return tuple(parts)


def _alignment(step: Step) -> tuple[Part, ...] | None:
    data = compute.translation(step.model, step.sentence, None)
    if data is None:
        return None
    title = _("{model}: where each French word looked").format(model=step.model)
    fig = alignment_heatmap(data.view.weights, data.view.source, data.view.target, title=title)
    return (Part(charts=(("", prepared(fig)),)),)


def _stages(step: Step) -> tuple[Part, ...] | None:
    """Scores e, then softmax weights, for the question's target word (subword pieces)."""
    target = step.question.target if step.question else None
    data = compute.translation(step.model, step.sentence, target, level="subword")
    if data is None or data.translation.scores is None:
        return None
    tr, row = data.translation, data.row
    line = _("Target word: {line}").format(line=quoted(tr.target_tokens, row))
    scores, weights = tr.scores[row], tr.weights[row]  # (T_src,) each
    best = int(np.argmax(weights))
    shifted = guess_bars(
        tr.source_tokens,
        scores - scores.min(),
        None,
        best,
        title=_("1 · scores e (shifted)"),
        value_name=_("score"),
    )
    softmax = guess_bars(
        tr.source_tokens,
        weights,
        None,
        best,
        title=_("2 · softmax(e)"),
        value_name=_("weight"),
    )
    charts = (("_scores", prepared(shifted)), ("_weights", prepared(softmax)))
    return (Part(line=line, charts=charts),)


def _local(step: Step) -> tuple[Part, ...] | None:
    data = compute.translation("local-p", step.sentence, None, level="subword")
    if data is None:
        return None
    tr = data.translation
    title = _("local-p: p_t and its window (D = {D})").format(D=tr.D)
    return (Part(charts=(("", prepared(local_window_view(tr, title=title).figure)),)),)


def _caption(step: Step) -> tuple[Part, ...] | None:
    found = compute.caption(step.scene)
    if found is None:
        return None
    image, result = found
    t = compute.caption_word(result, step.question.target if step.question else None)
    line = _("Caption: {line}").format(line=quoted(list(result.words), t))
    masses = region_masses(result.alphas[t])
    best = int(np.argmax(masses))
    title = _("Soft attention while it says “{word}”").format(word=result.words[t])
    fig = region_figure(
        image,
        region_names(),
        REGIONS,
        title=title,
        light=result.alphas[t],
        masses=masses,
        best=best,
    )
    return (Part(line=line, charts=(("", prepared(fig)),)),)


def _heads(step: Step) -> tuple[Part, ...] | None:
    found = compute.encoder(step.sentence)
    if found is None:
        return None
    layer = step.question.layer if step.question else step.layer
    weights = found.attentions[layer - 1 : layer]  # (1, H, T, T)
    # the title in the page: over the grid it would meet the heads' labels
    line = _("all-MiniLM-L6-v2, layer {layer}: its 12 heads").format(layer=layer)
    return (Part(line=line, charts=(("", prepared(head_grid(weights))),)),)


def _head(step: Step) -> tuple[Part, ...] | None:
    found = compute.encoder(step.sentence)
    if found is None:
        return None
    q = step.question
    layer, head = (q.layer, q.head) if q else (step.layer, step.head)
    weights = found.attentions[layer - 1, head - 1]  # (T, T)
    title = _("Layer {layer}, head {head}").format(layer=layer, head=head)
    fig = head_heatmap(weights, found.tokens, found.tokens, title=title)
    return (Part(charts=(("", prepared(fig)),)),)


def _scaling(step: Step) -> tuple[Part, ...] | None:
    curves = compute.scaling_curves()
    series = {_("with ÷√d_k"): curves["scaled"], _("without"): curves["unscaled"]}
    fig = lines_over_dims(
        list(compute.SCALING_DIMS),
        series,
        title=_("How flat is the softmax? Mean entropy over {k} keys").format(
            k=compute.SCALING_KEYS
        ),
        x_title="d_k",
        y_title=_("entropy (bits)"),
    )
    return (Part(charts=(("", prepared(fig)),)),)


def _positional(step: Step) -> tuple[Part, ...] | None:
    pe = sinusoidal_encoding(PE_POSITIONS, PE_DIMS).numpy()  # (n, d)
    title = _("Sinusoidal PE: {n} positions × {d} dims").format(n=PE_POSITIONS, d=PE_DIMS)
    return (Part(charts=(("", prepared(positional_encoding_view(pe, title=title).figure)),)),)


def _shuffle(step: Step) -> tuple[Part, ...] | None:
    with_pe = step.question.with_pe if step.question else False
    result = compute.shuffled(step.sentence, with_pe)
    if result is None:
        return None
    which = _("with PE") if with_pe else _("without PE")
    panels = [
        (
            result.weights,
            result.tokens,
            result.tokens,
            _("{which} · original order").format(which=which),
        ),
        (
            result.shuffled_weights,
            result.shuffled_tokens,
            result.shuffled_tokens,
            _("{which} · shuffled\nmax |difference| after\nun-shuffling: {diff:.2e}").format(
                which=which, diff=result.max_diff
            ),
        ),
    ]
    return (Part(charts=(("", prepared(permutation_maps(panels))),)),)


VIEW_PARTS: dict[str, Callable[[Step], tuple[Part, ...] | None]] = {
    "translations": _translations,
    "alignment": _alignment,
    "stages": _stages,
    "local": _local,
    "caption": _caption,
    "heads": _heads,
    "head": _head,
    "scaling": _scaling,
    "positional": _positional,
    "shuffle": _shuffle,
}

# view -> (page url_path, its query parameters for the step's state)
FULL_PAGES = {
    "translations": ("why_attention", lambda s: {"why_text": s.sentence}),
    "alignment": (
        "alignment",
        lambda s: {"aln_text": s.sentence, "aln_model": s.model, "aln_view": "word"},
    ),
    "stages": ("alignment", lambda s: {"aln_text": s.sentence, "aln_model": s.model}),
    "local": ("local_attention", lambda s: {"loc_text": s.sentence, "loc_model": "local-p"}),
    "caption": ("captions", lambda s: {"cap_src": "example", "cap_ex": s.scene}),
    "heads": ("multi_head", lambda s: {"mh_model": "pretrained", "mh_text": s.sentence}),
    "head": ("multi_head", lambda s: {"mh_model": "pretrained", "mh_text": s.sentence}),
    "scaling": ("scaling", lambda s: {}),
    "positional": ("positional_encoding", lambda s: {}),
    "shuffle": ("positional_encoding", lambda s: {"pe_sentence": s.sentence}),
}


def show_view(step: Step, key: str) -> None:
    """Draw ``step``'s whole view (its question already answered, or none asked), made once for
    every student who sees the step (:func:`view_parts`)."""
    parts = view_parts(step)
    if parts is not None:
        _draw(parts, key)


@once
def view_parts(step: Step) -> tuple[Part, ...] | None:
    """``step``'s view as parts to draw; None after a message (a missing model, a refused
    input)."""
    return VIEW_PARTS[step.view](step)
