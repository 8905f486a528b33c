"""The Alignment page's hover link in real Chromium (the chart component draws the charts):
hovering a cell of the heatmap draws that line over the lines chart (the others veiled) and
outlines the cell, and leaving restores both; hovering a line outlines its cell in the heatmap;
hovering a target token (right column) outlines its row, a source token (left) its column, with
all their drawn lines highlighted. Hovering sends nothing to the server (no websocket frame).
Pixel positions come from each chart's own axes (``gd._fullLayout``).

The server reads the shipped checkpoints where the four global models exist, else tiny
random-weight ones (test_browser_alignment's fixture; the link does not depend on training).
"""

from __future__ import annotations

import urllib.parse

import pytest

from tests.browser_helpers import CHART, scroll_to, served_fixtures, wait_settled
from tests.test_browser_alignment import checkpoints  # noqa: F401 (the server's checkpoints)
from tests.test_browser_multi_head import _chart
from tests.test_browser_multi_head_link import LINES_STATE, OUTLINES, _move_to, _plot

pytestmark = pytest.mark.browser
SENTENCE = "a black dog runs on the green grass ."
LINES = "The same weights as lines"
url, tab = served_fixtures("streamlit_alignment_link", 180_000)

# Where the lines chart draws its tokens: {source: heights (x = 0), target: heights (x = 1)}.
COLUMNS = """gd => Object.fromEntries(gd.data.filter(t => t.mode === 'markers+text')
  .map(t => [t.name, Array.from(t.y)]))"""
# The drawn lines as (target height, source height), each x [0, 1, null]: source at x = 0.
DRAWN = """gd => gd.data.filter(t => t.mode === 'lines').flatMap(t =>
  Array.from(t.y).flatMap((y, k) => k % 3 === 0 ? [[t.y[k + 1], y]] : []))"""
# Among the drawn lines and the points 15-85 % of the way along them, the point farthest from
# every other line: (target height, source height, client x, client y, clearance px).
CLEAR_LINE = """gd => {
  const fl = gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis;
  const box = gd.querySelector('.main-svg').getBoundingClientRect();
  const segs = [];
  for (const t of gd.data) if (t.mode === 'lines')
    for (let k = 0; k + 1 < t.y.length; k += 3) segs.push([t.y[k], t.y[k + 1]]);
  const px = ([a, b], s) => [xa.l2p(s), ya.l2p(a + s * (b - a))];
  const dist = (p, seg) => {
    const [ax, ay] = px(seg, 0), [bx, by] = px(seg, 1), dx = bx - ax, dy = by - ay;
    const t = Math.max(0, Math.min(1, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy);
  };
  let best = null;
  for (const s of segs) for (const f of [0.15, 0.3, 0.5, 0.7, 0.85]) {
    const p = px(s, f);
    const clear = Math.min(...segs.filter(o => o[0] !== s[0] || o[1] !== s[1])
      .map(o => dist(p, o)), 1e9);
    if (!best || clear > best[4]) best = [s[1], s[0], box.left + xa._offset + p[0],
      box.top + ya._offset + p[1], clear];
  }
  return best;
}"""


def _open(page, url: str, frames: list) -> None:
    """The Alignment page on SENTENCE (the lines at threshold 0.1), settled; every websocket
    frame the page sends from then on is appended to ``frames``."""
    params = {"aln_text": SENTENCE, "aln_model": "bahdanau"}
    page.goto(f"{url}/alignment?{urllib.parse.urlencode(params)}")
    wait_settled(page, 2)
    _chart(page, LINES).wait_for()
    wait_settled(page, 2)
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(payload)))


def _wait_outlines(page, gd, want: list) -> None:
    page.wait_for_function(
        f"([gd, want]) => JSON.stringify(({OUTLINES})(gd)) === JSON.stringify(want)",
        arg=[gd, want],
    )


def test_hovering_the_heatmap_and_the_lines_links_them_without_the_server(tab, url):
    frames: list = []
    _open(tab, url, frames)
    heatmap, lines = tab.locator(CHART).first, _chart(tab, LINES)  # the heatmap comes first
    map_gd, lines_gd = _plot(heatmap).element_handle(), _plot(lines).element_handle()
    columns = lines_gd.evaluate(COLUMNS)
    source, target = columns["source"], columns["target"]
    n_src, n_tgt = len(source), len(target)
    assert n_src > 3 and n_tgt > 2
    nothing = {"veils": [], "lines": []}
    assert lines_gd.evaluate(LINES_STATE) == nothing
    assert tab.get_by_text("Hover a cell of the heatmap to see its line here").count() == 1

    # a cell of the heatmap: target 1 (row), source 2 (column)
    _move_to(tab, heatmap, 2, 1)
    _wait_outlines(tab, map_gd, [[1.5, 2.5, 0.5, 1.5]])
    state = lines_gd.evaluate(LINES_STATE)
    assert state["lines"] == [[target[1], source[2]]]  # from the target (x = 1) to the source
    assert state["veils"] == [[0, 1, 0.8, True]], state
    tab.mouse.move(2, 2)  # away: both restored
    _wait_outlines(tab, map_gd, [])
    assert lines_gd.evaluate(LINES_STATE) == nothing

    # a line of the lines chart: its cell is outlined, the line highlighted
    scroll_to(tab, lines)
    y_tgt, y_src, x, y, clear = lines_gd.evaluate(CLEAR_LINE)
    assert clear >= 4, clear  # the pointer is on this line, every other one 4 px or more away
    i, j = target.index(y_tgt), source.index(y_src)
    tab.mouse.move(x - 3, y)
    tab.mouse.move(x, y)
    _wait_outlines(tab, map_gd, [[j - 0.5, j + 0.5, i - 0.5, i + 0.5]])
    assert lines_gd.evaluate(LINES_STATE)["lines"] == [[y_tgt, y_src]]

    # a target token (right column, a row of the heatmap): its row, and all its drawn lines
    _move_to(tab, lines, 1.2, target[1])
    _wait_outlines(tab, map_gd, [[-0.5, n_src - 0.5, 0.5, 1.5]])
    from_1 = [pair for pair in lines_gd.evaluate(DRAWN) if pair[0] == target[1]]
    assert from_1 and sorted(lines_gd.evaluate(LINES_STATE)["lines"]) == sorted(from_1)

    # a source token (left column, a column of the heatmap): its column
    _move_to(tab, lines, -0.2, source[2])
    _wait_outlines(tab, map_gd, [[1.5, 2.5, -0.5, n_tgt - 0.5]])
    to_2 = [pair for pair in lines_gd.evaluate(DRAWN) if pair[1] == source[2]]
    assert sorted(lines_gd.evaluate(LINES_STATE)["lines"]) == sorted(to_2)

    tab.mouse.move(2, 2)
    _wait_outlines(tab, map_gd, [])
    assert lines_gd.evaluate(LINES_STATE) == nothing
    assert frames == [], frames  # nothing went to the server


# The client point of cell (row i, column j) on block axes (x, y) of a wrapped heatmap.
AT_BLOCK = """([gd, xname, yname, j, i]) => {
  const fl = gd._fullLayout, box = gd.querySelector('.main-svg').getBoundingClientRect();
  const xa = fl[xname], ya = fl[yname];
  return [box.left + xa._offset + xa.l2p(j), box.top + ya._offset + ya.l2p(i)];
}"""
# The second block's axes and first column: its x axis's range starts half a column before it.
SECOND_BLOCK = """gd => { const fl = gd._fullLayout;
  return fl.xaxis2 ? [Math.round(fl.xaxis2.range[0] + 0.5), fl.xaxis2._length > 0] : null; }"""


def test_a_wrapped_heatmaps_second_block_outlines_its_cell_in_every_block(tab, url):
    """A 46-word map at 1280x720 classroom is wrapped in blocks of columns (viz.wrap),
    each block's trace holding only its own columns; hovering a cell of the second block
    focuses that cell (its column counted from the whole map), outlined on every block's axes
    (plotly clips each outline to its block), and the lines chart draws that very line."""
    from tests.test_browser_alignment import LONG

    tab.set_viewport_size({"width": 1280, "height": 720})
    params = {"aln_text": LONG, "aln_model": "bahdanau", "classroom": "true"}
    tab.goto(f"{url}/alignment?{urllib.parse.urlencode(params)}")
    wait_settled(tab, 2)
    heatmap = _plot(tab.locator(CHART).first)
    first, drawn = heatmap.evaluate(SECOND_BLOCK)
    assert drawn and first > 10
    # the block's middle row, at the middle of the screen (clear of the page's header)
    i = heatmap.evaluate("gd => Math.floor(gd._fullLayout.yaxis2.tickvals.length / 2)")
    heatmap.locator(".cartesianlayer > .subplot.x2y2").evaluate(
        "g => g.scrollIntoView({block: 'center'})"
    )
    j = first + 1
    cx, cy = tab.evaluate(AT_BLOCK, [heatmap.element_handle(), "xaxis2", "yaxis2", j, i])
    tab.mouse.move(cx - 4, cy - 4)
    tab.mouse.move(cx, cy)
    want = [[j - 0.5, j + 0.5, i - 0.5, i + 0.5]] * 2  # the cell (i, j), on each block's axes
    tab.wait_for_function(
        f"([gd, want]) => JSON.stringify(({OUTLINES})(gd)) === JSON.stringify(want)",
        arg=[heatmap.element_handle(), want],
    )
    refs = heatmap.evaluate(
        "gd => gd.layout.shapes.filter(s => s.name === 'atlas-link').map(s => s.xref)"
    )
    assert refs[:2] == ["x", "x2"]
    lines = _plot(_chart(tab, LINES))
    state = lines.evaluate(LINES_STATE)
    assert len(state["lines"]) == 1  # the hovered cell's line, over the veil
