"""The legibility judge (``tests/legibility.py``) itself, in Chromium on figures drawn with
plotly.js in an empty page: a legible chart passes, and each rule finds what it is for (clipped,
overlapping, small and dropped labels, heatmap cells too small along token axes)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import plotly.graph_objects as go
import pytest
from atlas_plotly import ensure_plotly_js

from tests.legibility import check_page, overlap
from tests.test_browser_legibility import LONG

pytestmark = pytest.mark.browser


def test_overlap_of_rotated_boxes():
    square = (0, 0, 10, 0, 10, 10, 0, 10)
    assert overlap(square, (5, 5, 15, 5, 15, 15, 5, 15)) == pytest.approx(5)
    assert overlap(square, (11, 0, 21, 0, 21, 10, 11, 10)) == 0
    diamond = (15, 5, 20, 10, 15, 15, 10, 10)  # apart, though its hull meets the square's
    assert overlap((0, 0, 10, 0, 10, 10, 0, 10), diamond) == 0
    assert overlap(square, (9, 9, 14, 4, 19, 9, 14, 14)) > 0


PLOTLY_JS = ensure_plotly_js()  # the bundle the chart component draws with
WORDS = re.findall(r"\w+", LONG)


def _plot(page, *figures: go.Figure) -> None:
    """Draw ``figures`` with plotly.js in an empty page, one div each."""
    page.set_content("".join(f'<div id="c{i}"></div>' for i in range(len(figures))))
    page.add_script_tag(path=str(PLOTLY_JS))
    specs = [fig.to_plotly_json() for fig in figures]
    page.evaluate(
        "async (specs) => { for (const [i, f] of specs.entries())"
        " await Plotly.newPlot('c' + i, f.data, f.layout); }",
        [{"data": s["data"], "layout": s["layout"]} for s in specs],
    )


@pytest.fixture
def blank(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    try:
        yield context.new_page()
    finally:
        context.close()


def _bars(labels: list[str], **layout) -> go.Figure:
    fig = go.Figure(go.Bar(x=labels, y=list(range(1, len(labels) + 1))))
    return fig.update_layout(width=700, height=400, title="bars", **layout)


def test_judge_passes_a_legible_chart(blank):
    _plot(blank, _bars(["short", "medium", "long"], margin={"t": 60, "b": 60, "l": 60, "r": 20}))
    assert check_page(blank, classroom=False) == []
    problems = check_page(blank, classroom=True)  # plotly's 12 px: under classroom's 16
    assert problems and all("classroom minimum 16" in p or "under 16 px" in p for p in problems)


def test_judge_finds_clipped_overlapping_small_and_dropped_labels(blank):
    clipped = _bars(["a"], margin={"t": 0, "b": 60, "l": 60, "r": 20})
    crowded = _bars(WORDS, xaxis={"tickmode": "array", "tickvals": WORDS, "tickangle": 0})
    tiny = _bars(["a", "b"], xaxis={"tickfont": {"size": 8}})
    dropped = _bars([f"w{i}" for i in range(200)])
    _plot(blank, clipped, crowded, tiny, dropped)
    problems = "\n".join(check_page(blank, classroom=False))
    assert re.search(r"chart 1 'bars': title 'bars' clipped at top by \d+ px", problems), problems
    assert re.search(r"chart 2 'bars': xtick '\w+' overlaps xtick '\w+'", problems), problems
    assert "chart 3 'bars': xtick 'a' drawn at 8.0 px (minimum 11)" in problems, problems
    assert re.search(r"chart 4 'bars': x axis draws \d+ tick labels for 200 categor", problems)


def test_judge_measures_heatmap_cells_along_token_axes(blank):
    tokens = WORDS[:30]
    fig = go.Figure(go.Heatmap(z=[[0.5] * 30] * 30, x=list(range(30)), y=list(range(30))))
    fig.update_layout(width=400, height=400, margin={"t": 20, "b": 20, "l": 20, "r": 20})
    numeric = go.Figure(fig)  # positions: no label per cell, no minimum
    fig.update_xaxes(tickmode="array", tickvals=list(range(30)), ticktext=tokens)
    _plot(blank, numeric, fig)
    cells = [p for p in check_page(blank, classroom=False) if "cells" in p]
    assert len(cells) == 1 and cells[0].startswith("chart 2"), cells
    assert re.search(r"cells \d+\.\d px wide for 30 columns \(minimum 14\)", cells[0]), cells


def _option_group(wrap: bool) -> str:
    """An option group as Streamlit draws one (``st.pills``): label, then a row of buttons that
    either wraps or scrolls sideways, 300 px wide."""
    flow = "flex-wrap: wrap" if wrap else "flex-wrap: nowrap; overflow-x: auto"
    buttons = "".join(f"<button style='width: 80px; flex: none'>{w}</button>" for w in WORDS[:6])
    return (
        "<div data-testid='stElementContainer' style='width: 300px'>"
        "<div data-testid='stWidgetLabel'>Your guess</div>"
        f"<div data-testid='stButtonGroup'><div style='display: flex; {flow}'>{buttons}</div>"
        "</div></div>"
    )


def test_rule_7_finds_options_hidden_in_a_row_that_scrolls(blank):
    blank.set_content(_option_group(wrap=False))
    (problem,) = check_page(blank, classroom=False)
    assert "'Your guess'" in problem and WORDS[5] in problem and WORDS[0] not in problem
    blank.set_content(_option_group(wrap=True))
    assert check_page(blank, classroom=False) == []
