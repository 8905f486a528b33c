"""The Multi-head page's events from the hand, in real Chromium (the chart component draws the
charts): a click on a cell of an overview panel (not its centre) shows that layer and head large;
hovering a cell of the head map draws that line over the head view (the other lines veiled) and
outlines the cell, and leaving restores both; hovering one of the chosen head's lines, or a query
token, outlines its cell, or its row, in the head map. Hovering sends nothing to the server (no
websocket frame). Pixel positions come from each chart's own axes (``gd._fullLayout``).

The pretrained encoder is the real all-MiniLM-L6-v2; the server reads the shipped Transformer
checkpoints when both are there, else tiny random-weight ones (``ATLAS_CHECKPOINTS``).
"""

from __future__ import annotations

import pytest

from models.transformer.pretrained import PretrainedEncoder
from tests.browser_helpers import (
    checkpoints_fixture,
    scroll_to,
    served_fixtures,
    transformers_shipped,
    wait_settled,
)
from tests.test_browser_multi_head import _chart, _type, _wait_for_ticks
from tests.tiny_transformer import build_tiny_transformers
from viz.multi_head import grid_tiles

pytestmark = pytest.mark.browser
SENTENCE = "The black dog chased a ball across the park."
LINES = "left: queries"  # the head view's title

checkpoints = checkpoints_fixture(transformers_shipped, build_tiny_transformers, "tiny_mh_link")
url, tab = served_fixtures("streamlit_mh_link")

# The page position (client px) of data point (x, y) of a chart: category axes place category n
# at n, so a heatmap's cell (row, col) is at (col, row).
AT = """([gd, x, y]) => {
  const fl = gd._fullLayout, box = gd.querySelector('.main-svg').getBoundingClientRect();
  return [box.left + fl.xaxis._offset + fl.xaxis.l2p(x), box.top + fl.yaxis._offset + fl.yaxis.l2p(y)];
}"""
# What the hover link draws over the head view: its veil over the lines (the colour behind them,
# as the plot draws it) and the highlighted lines as (query, key) pairs.
LINES_STATE = """gd => {
  const shapes = (gd.layout.shapes || []).filter(s => s.name === 'atlas-link');
  const bg = [gd._fullLayout.plot_bgcolor, gd._fullLayout.paper_bgcolor];
  return {
    veils: shapes.filter(s => s.type === 'rect').map(s => [s.x0, s.x1, s.opacity, bg.includes(s.fillcolor)]),
    lines: shapes.filter(s => s.type === 'line').map(s => [s.y0, s.y1]),
  };
}"""
# The (query, key) pairs of the drawn lines of traces whose uid starts with ``prefix``.
DRAWN = """(gd, prefix) => gd.data.filter(t => (t.uid || '').startsWith(prefix)).flatMap(t =>
  t.y.flatMap((y, k) => k % 3 === 0 ? [[y, t.y[k + 1]]] : []))"""
OUTLINES = """gd => (gd.layout.shapes || []).filter(s => s.name === 'atlas-link')
  .map(s => [s.x0, s.x1, s.y0, s.y1])"""
# Among the lines of traces whose uid starts with ``prefix``, the one whose point 30 % of the way
# from its query is farthest from every other such line: (i, j, client x, client y, clearance px).
CLEAR_LINE = """(gd, prefix) => {
  const fl = gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis;
  const box = gd.querySelector('.main-svg').getBoundingClientRect();
  const segs = [];
  for (const t of gd.data) if ((t.uid || '').startsWith(prefix))
    for (let k = 0; k + 1 < t.y.length; k += 3) segs.push([t.y[k], t.y[k + 1]]);
  const px = ([i, j], s) => [xa.l2p(s), ya.l2p(i + s * (j - i))];
  const dist = (p, [i, j]) => {
    const [ax, ay] = px([i, j], 0), [bx, by] = px([i, j], 1), dx = bx - ax, dy = by - ay;
    const t = Math.max(0, Math.min(1, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy);
  };
  let best = null;
  for (const s of segs) {
    const p = px(s, 0.3);
    const clear = Math.min(...segs.filter(o => o !== s && (o[0] !== s[0] || o[1] !== s[1]))
      .map(o => dist(p, o)), 1e9);
    if (!best || clear > best[4]) best = [s[0], s[1], box.left + xa._offset + p[0],
      box.top + ya._offset + p[1], clear];
  }
  return best;
}"""


def _plot(chart):
    """The plotly div inside a chart element."""
    return chart.locator(".js-plotly-plot").first


def _move_to(page, chart, x: float, y: float) -> None:
    """Scroll ``chart`` into view and move the mouse onto its data point (x, y)."""
    scroll_to(page, chart)
    cx, cy = page.evaluate(AT, [_plot(chart).element_handle(), x, y])
    page.mouse.move(cx - 4, cy - 4)
    page.mouse.move(cx, cy)


def _open(page, url: str, frames: list) -> list[str]:
    """The Multi-head page with the pretrained encoder on SENTENCE, settled; every websocket frame
    the page sends is appended to ``frames``. Returns the tokens."""
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(payload)))
    page.goto(f"{url}/multi_head?mh_model=pretrained")
    wait_settled(page, 4)
    _type(page, SENTENCE)
    tokens = PretrainedEncoder.load().attend(SENTENCE).tokens
    _wait_for_ticks(page, tokens)
    wait_settled(page, 4)
    return tokens


def test_a_click_on_a_cell_of_an_overview_panel_shows_that_head(tab, url):
    """Layer 2, head 5: a click on its panel's corner cell (far from the centre) moves the large
    head, its heading and the pickers there."""
    tokens = _open(tab, url, [])
    tiles = grid_tiles((6, 12, len(tokens), len(tokens)))
    row = 1 * (tiles.side_q + tiles.gap) + tiles.side_q - 1  # layer 2's last query row
    col = 4 * (tiles.side_k + tiles.gap)  # head 5's first key column
    overview = _chart(tab, "rows: layers · columns: heads")
    _move_to(tab, overview, col, row)
    # plotly clicks the point it hovers: wait for the hover (as a hand does), then click
    label = overview.locator(".hoverlayer .hovertext").first
    label.wait_for()
    assert "layer 2, query" in label.text_content() and "head 5, key" in label.text_content()
    tab.mouse.click(*tab.evaluate(AT, [_plot(overview).element_handle(), col, row]))
    _chart(tab, "layer 2, head 5 · ").wait_for()
    assert tab.get_by_role("heading", name="Layer 2, head 5", exact=True).count() == 1
    wait_settled(tab, 4)
    assert tab.get_by_role("combobox", name="Layer", exact=True).input_value() == "2"
    assert tab.get_by_role("combobox", name="Head", exact=True).input_value() == "5"
    assert "mh_layer=2" in tab.url and "mh_head=5" in tab.url


def test_hovering_the_head_map_and_the_lines_links_them_without_the_server(tab, url):
    frames: list = []
    tokens = _open(tab, url, frames)
    n = len(tokens)
    head_map = _chart(tab, f"layer 1, head 1 · {n} queries x {n} keys")
    lines = _chart(tab, LINES)
    map_gd, lines_gd = _plot(head_map).element_handle(), _plot(lines).element_handle()
    nothing = {"veils": [], "lines": []}
    assert lines_gd.evaluate(LINES_STATE) == nothing
    sent = len(frames)
    assert sent > 0  # typing the sentence went to the server: the frames are counted

    # a cell of the head map (head 1): query 2, key 5
    _move_to(tab, head_map, 5, 2)
    tab.wait_for_function(f"gd => ({OUTLINES})(gd).length === 1", arg=map_gd)
    assert map_gd.evaluate(OUTLINES) == [[4.5, 5.5, 1.5, 2.5]]
    state = lines_gd.evaluate(LINES_STATE)
    assert state["lines"] == [[2, 5]]  # the line query 2 -> key 5, over a veil on the others
    assert state["veils"] == [[0, 1, 0.8, True]], state
    tab.mouse.move(2, 2)  # away: both restored
    tab.wait_for_function(f"gd => ({OUTLINES})(gd).length === 0", arg=map_gd)
    assert lines_gd.evaluate(LINES_STATE) == nothing

    # one of head 1's lines in the head view: its cell is outlined, the line highlighted
    scroll_to(tab, lines)
    i, j, x, y, clear = lines_gd.evaluate(CLEAR_LINE, "lines-h0-")
    assert clear >= 8, clear
    tab.mouse.move(x - 3, y)
    tab.mouse.move(x, y)
    tab.wait_for_function(f"gd => ({OUTLINES})(gd).length === 1", arg=map_gd)
    assert map_gd.evaluate(OUTLINES) == [[j - 0.5, j + 0.5, i - 0.5, i + 0.5]]
    assert lines_gd.evaluate(LINES_STATE)["lines"] == [[i, j]]

    # a query token (left column): its whole row is outlined, and all head 1's lines from it drawn
    _move_to(tab, lines, -0.2, 3)
    tab.wait_for_function(
        f"gd => JSON.stringify(({OUTLINES})(gd)) === JSON.stringify([[-0.5, {n - 0.5}, 2.5, 3.5]])",
        arg=map_gd,
    )
    from_3 = [pair for pair in lines_gd.evaluate(DRAWN, "lines-h0-") if pair[0] == 3]
    assert from_3 and sorted(lines_gd.evaluate(LINES_STATE)["lines"]) == sorted(from_3)
    tab.mouse.move(2, 2)
    tab.wait_for_function(f"gd => ({OUTLINES})(gd).length === 0", arg=map_gd)
    assert lines_gd.evaluate(LINES_STATE) == nothing
    assert len(frames) == sent, frames[sent:]  # nothing went to the server


def test_in_classroom_mode_the_head_map_and_its_lines_sit_side_by_side(tab, url):
    """At 1280x720 in classroom mode the head map and the head view were one under the
    other, the head's steps between them, so the hover link could not be shown to a class; now
    they sit side by side, neither scrolling sideways, and hovering a cell of the map draws its
    line over the head view beside it."""
    tab.set_viewport_size({"width": 1280, "height": 720})
    tab.goto(f"{url}/multi_head?classroom=true")
    wait_settled(tab, 4)
    head_map = tab.locator('[data-testid="stPlotlyChart"]').nth(1)  # after the overview
    heatmap, lines = _plot(head_map), _plot(_chart(tab, LINES))
    scroll_to(tab, head_map)
    box_map, box_lines = heatmap.bounding_box(), lines.bounding_box()
    assert box_lines["x"] >= box_map["x"] + box_map["width"] - 1  # beside it
    assert box_lines["y"] < box_map["y"] + box_map["height"]  # on the same rows of the page
    sideways = (
        "gd => { const h = gd.closest('.atlas-plotly'); return h.scrollWidth > h.clientWidth + 1; }"
    )
    assert not heatmap.evaluate(sideways) and not lines.evaluate(sideways)
    _move_to(tab, head_map, 2, 1)
    tab.wait_for_function(f"gd => ({LINES_STATE})(gd).lines.length > 0", arg=lines.element_handle())
