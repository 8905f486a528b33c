"""The figure builders' margins fit their labels, so plotly draws each figure once.

Plotly grows a margin that is too small (automargin) by drawing the whole figure again, about
twice the time of one drawing. Here each builder's figure is drawn in Chromium with the
plotly.js that ships in the plotly package, and the margins plotly ended up with must be the
margins the figure asked for.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from atlas_plotly import ensure_plotly_js

from models.transformer.positional import sinusoidal_encoding
from viz import (
    attention_panels,
    diff_heatmap,
    matrix_heatmap,
    pe_curves,
    pe_heatmap,
    position_norms_figure,
)
from viz.alignment import alignment_heatmap
from viz.anatomy import vector_diagram, weights_bar
from viz.local_heatmap import local_heatmap
from viz.measure import text_px
from viz.multi_head import head_grid, head_heatmap, share_heatmaps
from viz.multi_head_lines import head_lines
from viz.scores import candidates_bars, soft_addressing_figure

pytestmark = pytest.mark.browser

# how much wider than drawn an estimate may be (test_text_estimates_hold_chromiums_own_measure)
LOOSEST, LOOSE_PX = 1.5, 4
PLOTLY_JS = ensure_plotly_js()  # the bundle the chart component draws with
LABELS = {
    "4 words": "w1 the cat sat".split(),
    "17 pieces": "▁A ▁man ▁in ▁a ▁blue ▁shirt ▁is ▁playing ▁with ▁3 ▁dogs ▁on ▁the ▁green "
    "▁grass . </s>".split(),
    "60 long pieces": [f"▁extraordinarily{i}" for i in range(60)],
    "8 CJK characters": list("注意力机制可视化"),
    "2 very long words": ["supercalifragilistic", "antidisestablishment", "a", "b"],
    # wide letters (m, w, capitals) and ▁: a flat 0.55 em per character missed these by 5 px
    "18 French pieces": "▁Un ▁homme ▁en ▁T - shirt ▁bleu ▁joue ▁avec ▁trois ▁chiens ▁sur ▁l ' "
    "herbe ▁verte . </s>".split(),
    "capitals": ["MMMMWW", "WOMAN", "▁MÉMÉ", "QQ"],
}
GROWN = """async (spec) => {
  const f = JSON.parse(spec); Plotly.purge('g');
  await Plotly.newPlot('g', f.data, f.layout);
  const s = document.getElementById('g')._fullLayout._size, m = f.layout.margin;
  return ['l', 'r', 't', 'b'].filter(k => Math.round(s[k]) > m[k])
    .map(k => `${k}: ${Math.round(s[k])} > ${m[k]}`);
}"""


PE = sinusoidal_encoding(512, 64).numpy()  # (512, 64)


def _figures(tokens: list[str]) -> dict:
    n = len(tokens)
    z = np.random.default_rng(0).dirichlet(np.ones(n), size=n)  # (n, n), rows sum to 1
    heads = np.random.default_rng(1).dirichlet(np.ones(n), size=(2, 3, n))  # (L, H, n, n)
    return {
        "head_heatmap": head_heatmap(z, tokens, tokens, title="layer 1, head 1"),
        "head_grid": head_grid(heads, title="all heads"),
        "head_lines": head_lines(heads[0], tokens, tokens, heads=[0, 1]),
        "share_heatmaps": share_heatmaps(
            {"special": heads[:, :, 0, 0], "first": heads[:, :, 1, 0]}
        ),
        "pe_heatmap": pe_heatmap(PE[:n]),
        "pe_curves": pe_curves(PE, [0, 1, 10, 11]),
        "position_norms_figure": position_norms_figure(
            {"sinusoidal": np.linalg.norm(PE, axis=1), "learned (BERT)": np.ones(512)}
        ),
        "alignment_heatmap": alignment_heatmap(z, tokens[::-1], tokens, title="Bahdanau"),
        "diff_heatmap": diff_heatmap(z - z.T, tokens, tokens),
        "attention_panels": attention_panels([(z, tokens, tokens, "map")] * 4),
        "soft_addressing_figure": soft_addressing_figure(np.log(z[0]), z[0], tokens),
        "candidates_bars": candidates_bars([("le", 0.5), ("un", 0.25)]),
        "matrix_heatmap (positions)": matrix_heatmap(z, None, None, value_name="PE·PE"),
        "local_heatmap": local_heatmap(
            z,
            tokens,
            tokens,
            np.arange(n) * 0.5,
            np.stack([np.arange(n) - 2.0, np.arange(n) + 2.0], 1),
        ),
        "weights_bar": weights_bar(z[0], tokens, title="weights"),
        "weights_bar (two series, large scores)": weights_bar(
            {"raw": z[0] * 1e4, "final": -z[1]}, tokens, y_title="score"
        ),
        "vector_diagram (no extra)": vector_diagram(
            [2.0, 1.0], z[:, :2], z[:, -2:], [0.5, 0.5], tokens
        ),
        "vector_diagram": vector_diagram(
            [2.0, 1.0], z[:, :2], z[:, -2:], [0.5, 0.5], tokens, extra={"hard pick (A)": [1, 1]}
        ),
    }


@functools.cache
def _specs(case: str) -> dict[str, str]:
    """Each builder's figure for the labels ``case``, as plotly JSON: built once, drawn at both
    widths (the builders' Python, not the drawing, is most of the time)."""
    return {name: fig.to_json() for name, fig in _figures(LABELS[case]).items()}


@pytest.mark.parametrize("width", [450, 900])
def test_margins_fit_the_labels(browser, width):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.set_content(f"<div id='g' style='width:{width}px'></div>")
        page.add_script_tag(path=str(PLOTLY_JS))
        grown = {}
        for case in LABELS:
            for name, spec in _specs(case).items():
                if margins := page.evaluate(GROWN, spec):
                    grown[f"{name}, {case}"] = margins
        assert not grown, grown
    finally:
        page.close()


MEASURED = """(labels) => {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  document.body.appendChild(svg);
  const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
  t.setAttribute('style', 'font-family: "Open Sans", verdana, arial, sans-serif; font-size: 12px');
  svg.appendChild(t);
  return labels.map(label => { t.textContent = label; return t.getComputedTextLength(); });
}"""


def test_text_estimates_hold_chromiums_own_measure(browser):
    """``viz.measure.text_px``, the one estimate of text width, against the width Chromium draws
    each label at in plotly's font (an SVG text, as plotly draws ticks): never narrower, since a
    margin fitted to it would be grown by a second drawing, and not much wider (a loose estimate
    wastes the first screen's room)."""
    labels = sorted({label for case in LABELS.values() for label in case})
    page = browser.new_page()
    try:
        drawn = page.evaluate(MEASURED, labels)
    finally:
        page.close()
    pairs = {
        label: (round(text_px(label), 1), round(px, 1))
        for label, px in zip(labels, drawn, strict=True)
    }
    assert all(px > 0 for _est, px in pairs.values()), pairs
    narrow = {label: p for label, p in pairs.items() if p[0] < p[1]}
    assert not narrow, narrow
    loose = {label: p for label, p in pairs.items() if p[0] > LOOSEST * p[1] + LOOSE_PX}
    assert not loose, loose
