"""What plotly.js alone costs per chart: the floor under every chart page's interaction latency.

Streamlit 1.67's frontend gives a plotly chart a new React key (its element id, a hash of the
figure) whenever the figure changes, and keeps a chart's figure in state set once per id, so every
changed chart is unmounted and drawn anew with ``Plotly.newPlot`` (``Plotly.react`` on a live
chart, its cheaper in-place update, is never used). This times both in Chromium, outside
Streamlit, with the plotly.js of the ``plotly`` package (Streamlit bundles its own, of the same
major version), for the figures the anatomy and alignment pages redraw on each change and the
Multi-head page's largest one.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np

from bench.browser import CHROMIUM, launch_chromium
from bench.register import Row, timing

DRAWS = 15  # timed draws per figure, after two warm-ups
SENTENCES = (
    "A man in a blue shirt is playing with 3 dogs on the green grass.",
    "A man in a blue shirt is playing with 4 dogs on the green grass.",
)

TIME_DRAWS = """async ([a, b, draws]) => {
  const g = document.getElementById('g');
  const settle = () => g.getBoundingClientRect();  // style and layout included
  const fresh = [], update = [];
  for (let i = 0; i < draws + 2; i++) {
    Plotly.purge(g);
    let t = performance.now();
    await Plotly.newPlot(g, structuredClone(a.data), structuredClone(a.layout));
    settle();
    if (i >= 2) fresh.push(performance.now() - t);
    t = performance.now();
    await Plotly.react(g, structuredClone(b.data), structuredClone(b.layout));
    settle();
    if (i >= 2) update.push(performance.now() - t);
  }
  return [fresh, update];
}"""


def _anatomy_figures() -> dict[str, tuple]:
    """The anatomy's weights bars and vector diagram at two temperatures (its default preset)."""
    from models.analysis.toy import anatomy
    from viz import vector_diagram, weights_bar

    items = np.array(
        [
            [2.0, 1.0, 1.0, 0.0],
            [-1.0, 1.0, 0.0, 1.0],
            [0.0, -2.0, -1.0, 0.0],
            [1.0, -1.0, 0.0, -1.0],
        ]
    )
    query, names = np.array([2.0, 1.0]), list("ABCD")
    pairs: dict[str, list] = {"anatomy: weights bars": [], "anatomy: vector diagram": []}
    for temperature in (2.0, 2.01):
        r = anatomy(query, items[:, :2], items[:, 2:], score_name="dot", temperature=temperature)
        pairs["anatomy: weights bars"].append(
            weights_bar(r.weights, names, title=f"Weights a_s (T = {temperature:g})")
        )
        pairs["anatomy: vector diagram"].append(
            vector_diagram(query, items[:, :2], items[:, 2:], r.context, names, title="Vectors")
        )
    return {name: tuple(figs) for name, figs in pairs.items()}


def _alignment_figures() -> dict[str, tuple]:
    """The alignment page's heatmap, lines and step inspector for two 15-word sentences (the
    shipped Bahdanau model, or random weights of a similar shape when it is absent)."""
    from viz.alignment import alignment_heatmap, alignment_lines
    from viz.scores import candidates_bars, soft_addressing_figure

    rows = []
    try:
        from models.checkpoints import SHIPPED_ROOT
        from models.rnn.translator import Translator

        tr = Translator.load(SHIPPED_ROOT / "seq2seq-bahdanau")
        for text in SENTENCES:
            t = tr.translate(text)
            rows.append((t.weights, t.source_tokens, t.target_tokens, t.top_k[3]))
    except Exception:  # any missing piece: random weights instead
        rng = np.random.default_rng(0)
        for text in SENTENCES:
            src = text.split() + ["</s>"]
            rows.append(
                (
                    rng.dirichlet(np.ones(len(src)) * 0.3, 17),
                    src,
                    [f"t{i}" for i in range(17)],
                    [("▁un", 0.6), ("▁le", 0.2)],
                )
            )
    pairs: dict[str, list] = {
        "alignment: heatmap": [],
        "alignment: lines": [],
        "alignment: step inspector": [],
        "alignment: next-token candidates": [],
    }
    for weights, src, tgt, top in rows:
        pairs["alignment: heatmap"].append(alignment_heatmap(weights, src, tgt, title="Bahdanau"))
        pairs["alignment: lines"].append(alignment_lines(weights, src, tgt, threshold=0.1))
        scores = np.log(np.asarray(weights[3]) + 1e-9)  # softmax(scores) == weights[3]
        step = soft_addressing_figure(scores, weights[3], src, title="Step 3")
        pairs["alignment: step inspector"].append(step)
        pairs["alignment: next-token candidates"].append(candidates_bars(top))
    return {name: tuple(figs) for name, figs in pairs.items()}


def _multi_head_figures() -> dict[str, tuple]:
    """The Multi-head page's large head view at 512 x 512 (random rows: only the drawing counts)."""
    from viz.multi_head import head_heatmap

    rng = np.random.default_rng(0)
    tokens = [f"▁tok{i}" for i in range(512)]
    figs = tuple(
        head_heatmap(rng.dirichlet(np.ones(512), 512), tokens, tokens, title=f"head {h}")
        for h in (1, 2)
    )
    return {"multi-head: head view 512 x 512": figs}


@timing
def plotly_draws() -> list[Row]:
    """Median ``Plotly.newPlot`` (what Streamlit does on every change) and ``Plotly.react`` (an
    in-place update) per figure, in ms."""
    from atlas_plotly import ensure_plotly_js
    from playwright.sync_api import sync_playwright

    script = ensure_plotly_js()  # the bundle the chart component draws with
    if not Path(CHROMIUM).exists():
        return [Row("plotly.js draws", "skipped", "no Chromium")]
    figures = _anatomy_figures() | _alignment_figures() | _multi_head_figures()
    rows = []
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_content("<div id='g' style='width:700px;height:450px'></div>")
        page.add_script_tag(path=str(script))
        for name, (first, second) in figures.items():
            fresh, update = page.evaluate(
                TIME_DRAWS, [json.loads(first.to_json()), json.loads(second.to_json()), DRAWS]
            )
            rows.append(
                Row(
                    f"plotly.js: {name}",
                    f"newPlot {statistics.median(fresh):.1f} ms, "
                    f"react {statistics.median(update):.1f} ms",
                    "newPlot is what a changed chart costs in Streamlit",
                )
            )
        browser.close()
    return rows
