"""Dragging vectors on the Attention anatomy page, in Chromium: the query's tip is
pressed, moved in several steps and let go with the mouse; while it moves, the weights chart
(another chart of the page) shows the browser's preview, which changes; after the release and the
rerun, the server's scores, weights and context, the query inputs and the link equal the last
preview. Then a key is dragged the same way, and the key/value table takes its new coordinates."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlparse

import pytest

from tests.browser_helpers import wait_settled

pytestmark = pytest.mark.browser

# The chart component's chart whose plotly title starts with the given text.
_CHART = """title => [...document.querySelectorAll('.atlas-plotly')].find(h => {
  const gd = h.querySelector('.js-plotly-plot');
  const text = gd && gd.layout && gd.layout.title && gd.layout.title.text;
  return typeof text === 'string' && text.startsWith(title);
})"""
# The page position (px) of the diagram's tip of trace ``name`` ("query tips", "keys tips"),
# point ``i``.
_TIP = f"""([title, name, i]) => {{
  const host = ({_CHART})(title);
  const gd = host.querySelector('.js-plotly-plot');
  const trace = gd._fullData.find(t => t.name === name);  // numbers decoded (gd.data: base64)
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
  return [box.left + xa._offset + xa.l2p(trace.x[i]), box.top + ya._offset + ya.l2p(trace.y[i])];
}}"""
_BARS = f"""title => {{
  const host = ({_CHART})(title);
  const trace = host.querySelector('.js-plotly-plot')._fullData[0];
  return {{y: Array.from(trace.y), text: Array.from(trace.text), draws: host.dataset.draws}};
}}"""
_PREVIEW = f"""() => {{
  const host = ({_CHART})('Query, keys');
  return host.dataset.preview ? JSON.parse(host.dataset.preview) : null;
}}"""
_CONTEXT = f"""() => {{
  const gd = ({_CHART})('Query, keys').querySelector('.js-plotly-plot');
  const tips = gd._fullData.find(t => t.name === 'context tips');
  return [tips.x[0], tips.y[0]];
}}"""
DIAGRAM = "Query, keys"


def _bars(page, title: str) -> dict:
    return page.evaluate(_BARS, title)


def _previews(page) -> int:
    return int(page.evaluate(f"() => ({_CHART})('{DIAGRAM}').dataset.previews || 0"))


def _drag(page, name: str, i: int, by: tuple[float, float], steps: int = 6) -> list[dict]:
    """Press the tip ``i`` of trace ``name``, move it by ``by`` px in ``steps`` moves and let go;
    returns the weights chart's bars read after each move (the browser's preview)."""
    page.evaluate(f"() => ({_CHART})('{DIAGRAM}').scrollIntoView({{block: 'center'}})")
    x, y = page.evaluate(_TIP, [DIAGRAM, name, i])
    page.mouse.move(x, y)
    page.mouse.down()
    seen = []
    for step in range(1, steps + 1):
        before = _previews(page)
        page.mouse.move(x + by[0] * step / steps, y + by[1] * step / steps)
        # a new preview is drawn for each move (the test moves more than a step each time)
        page.wait_for_function(f"() => ({_CHART})('{DIAGRAM}').dataset.previews > {before}")
        assert page.evaluate(f"() => ({_CHART})('{DIAGRAM}').dataset.dragging") == "1"
        seen.append(_bars(page, "Weights"))
    page.mouse.up()
    return seen


def _server_drawn(page, draws: str) -> None:
    """Wait for the rerun after a release: the weights chart drawn again from Python's figure."""
    page.wait_for_function(
        f"() => ({_CHART})('Weights').dataset.draws !== '{draws}'"
        f" && !({_CHART})('{DIAGRAM}').dataset.dragging"
    )
    wait_settled(page, 3)


def _number(page, label: str) -> float:
    return float(page.get_by_role("spinbutton", name=label).input_value())


def _assert_server_equals_preview(page, preview: dict) -> None:
    weights, scores = _bars(page, "Weights"), _bars(page, "Scores")
    assert weights["y"] == pytest.approx(preview["weights"], rel=1e-12, abs=1e-15)
    assert scores["y"] == pytest.approx(preview["scores"], rel=1e-12, abs=1e-15)
    assert weights["text"] == [f"{w:.3f}" for w in preview["weights"]]
    assert page.evaluate(_CONTEXT) == pytest.approx(preview["context"], rel=1e-12, abs=1e-15)
    latex = page.locator(".katex-mathml annotation").all_text_contents()
    (line,) = [text for text in latex if text.startswith("c = ")]
    shown = re.findall(r"-?\d+\.\d+", line)
    assert shown == [f"{c:.3f}" for c in preview["context"]], line


def _params(page) -> dict[str, str]:
    return dict(parse_qsl(urlparse(page.url).query))


def test_dragging_the_query_and_a_key_previews_what_the_server_computes(page, app_url):
    page.goto(f"{app_url}/anatomy")
    wait_settled(page, 3)
    page.wait_for_selector(".atlas-plotly[data-drag-ready]")
    start = _bars(page, "Weights")

    # the query (2, 1): pulled to the left and down (into the plane), in six moves of 15 px
    # and 10 px, each more than a step of 0.1 across
    seen = _drag(page, "query tips", 0, (-90, 60))
    assert any(s["y"] != start["y"] for s in seen[:-1]), "the preview did not follow the drag"
    preview = page.evaluate(_PREVIEW)
    assert seen[-1]["y"] == preview["weights"] and seen[-1]["draws"] == start["draws"]
    assert preview["query"] != [2.0, 1.0]
    assert all(round(v * 10) == pytest.approx(v * 10, abs=1e-9) for v in preview["query"])
    _server_drawn(page, start["draws"])
    _assert_server_equals_preview(page, preview)
    qx, qy = preview["query"]
    assert (_number(page, "query x"), _number(page, "query y")) == pytest.approx((qx, qy))
    assert (float(_params(page)["anat_qx"]), float(_params(page)["anat_qy"])) == (qx, qy)

    # key C (0, -2): pulled to the right
    drawn = _bars(page, "Weights")["draws"]
    _drag(page, "keys tips", 2, (80, 30))
    preview = page.evaluate(_PREVIEW)
    assert preview["query"] == [qx, qy] and preview["keys"][2] != [0.0, -2.0]
    _server_drawn(page, drawn)
    _assert_server_equals_preview(page, preview)
    cx, cy = preview["keys"][2]
    boxes = page.locator('[data-testid="stTextInput"] input')
    assert (float(boxes.nth(8).input_value()), float(boxes.nth(9).input_value())) == (cx, cy)
    rows = [[float(v) for v in row.split(",")] for row in _params(page)["anat_items"].split(";")]
    assert rows[2] == [cx, cy, -1.0, 0.0] and rows[:2] == [[2, 1, 1, 0], [-1, 1, 0, 1]]
    assert preview["keys"][:2] == [[2.0, 1.0], [-1.0, 1.0]]
