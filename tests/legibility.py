"""The legibility judge: is every plotly chart on a page readable as drawn?

Run :func:`check_page` on a Playwright page once it has settled (``tests.browser_helpers.
wait_settled``, or ``wait_still`` when the number of charts is not known); it returns one
human-readable line per problem, an empty list when every chart is legible. One
``page.evaluate`` reads every chart (``.js-plotly-plot``) from its SVG and from plotly's own
layout (``gd._fullLayout``, ``gd._fullData``, ``gd.calcdata``); the rules are then applied
here. A line reads like::

    chart 2 'BLEU by source sentence length' [why_bleu_length]: xtick '46+ words' clipped at
    bottom by 14 px

(the chart's number on the page from 1, its title, the Streamlit key of its element).

The texts judged: every visible ``<text>`` with non-empty content in the chart's SVG layers (tick
labels, axis and chart titles, legend, colour bar, annotations, text drawn on the traces, the
buttons and slider labels drawn in the chart); not the hover labels, not the modebar; not the
legend items scrolled out of the legend's box. A text's box is its glyph box (``getBBox``: the
font's ascent to descent, which Chinese characters and accented capitals fill) taken through its
transform to the screen (``getScreenCTM``), so rotated tick labels are judged as rotated boxes, not
by their screen-aligned hull.

The rules, with ``TOLERANCE`` = 1 px everywhere:

1. Inside: each text lies inside its chart's bounds (the ``main-svg`` rect), and inside the clip
   box it is drawn in (the plot area for text on traces: plotly hides what falls outside).
2. Apart: no two texts of a chart overlap (tick labels of one axis included).
3. Size: every text, tick labels first, is drawn at ``MIN_FONT`` px or more (``MIN_FONT_CLASSROOM``
   in classroom mode); the drawn size counts plotly's own shrinking (a scale transform).
4. Cells: a heatmap's cells are at least ``MIN_CELL`` px (``MIN_CELL_CLASSROOM`` in classroom mode)
   along every direction whose axis labels each cell (a category axis, or ``tickmode="array"``
   with tick texts that are not all numbers: tokens, with a tick per cell inside the heatmap);
   a numeric axis (positions, dimensions, pixels) and a label per block of cells (the captions'
   word strip) are not held to it. The size is the drawn one (plotly's pixels per cell), so a
   chart wider than the screen passes when its container scrolls.
5. Every token labelled: on a category axis, or one with ``tickmode="array"``, as many tick labels
   are drawn as there are categories (or non-empty tick texts) in the axis's range: plotly's
   auto-ticking dropped none.
6. Not cut by the page: no container of the chart that does not scroll (CSS overflow hidden or
   clip) cuts its SVG by more than ``TOLERANCE``; and, unless ``sideways_ok``, none hides part
   of it sideways, in a part that scrolls or past the page's width (nobody scrolls a chart
   sideways at a projector).

7. Every option in view (the page, not a chart): no option of an option group (``st.pills``,
   ``st.segmented_control``: a lesson's tokens to guess, a page's heads or modes) lies outside
   its group's box, in a row that scrolls sideways: the group wraps its options.

:func:`main_chart_box` and :func:`main_chart_visible` are classroom mode's rule: the page's main
chart (the first plotly chart in the main area) has its top edge inside the viewport after load,
or, on a page laid out chart first, lies wholly inside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_FONT, MIN_FONT_CLASSROOM = 11.0, 16.0  # px
MIN_CELL, MIN_CELL_CLASSROOM = 14.0, 20.0  # px
TOLERANCE = 1.0  # px
MAX_EXAMPLES = 4  # problems of one kind listed per chart before "... and N more"

# Everything the rules need, from every chart, in one round trip. A text is
# [kind, content, quad (x0, y0, ..., x3, y3 on screen), drawn font px, index into clips or -1].
_COLLECT = r"""() => {
  const KINDS = [[/^gtitle$/, 'title'], [/^([xy]\d*)title$/, '$1 axis title'],
    [/^legendtitletext$/, 'legend title'], [/^legendtext$/, 'legend'],
    [/^annotation-text$/, 'annotation'], [/^cbtitle$/, 'colour bar title'],
    [/^ycb\w*tick$/, 'colour bar tick'], [/^([xy]\d*)tick$/, '$1tick'],
    [/updatemenu/, 'button'], [/slider/, 'slider label'], [/^legend$/, 'legend'],
    [/^annotation$/, 'annotation'], [/^(textpoint|trace|heatmaplayer|barlayer)/, 'trace text']];
  const kindOf = (t, gd) => {
    for (let e = t; e && e !== gd; e = e.parentNode) {
      for (const cls of ((e.getAttribute && e.getAttribute('class')) || '').split(/\s+/)) {
        for (const [re, name] of KINDS) {
          if (re.test(cls)) return name.includes('$1') ? cls.replace(re, name) : name;
        }
      }
    }
    return 'text';
  };
  const on = (m, x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
  const quadOf = (b, m) => [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height],
    [b.x, b.y + b.height]].flatMap(([x, y]) => on(m, x, y));
  const clipOf = (t, gd, clips, seen) => {
    const holder = t.closest('[clip-path]');
    if (!holder || !gd.contains(holder)) return -1;
    const id = (/url\(["']?#([^"')]+)/.exec(holder.getAttribute('clip-path')) || [])[1];
    const clip = id && document.getElementById(id), rect = clip && clip.querySelector('rect');
    if (!rect) return -1;
    const key = id + '|' + (holder.closest('.legend') ? 'legend' : '');
    if (!(key in seen)) {
      const b = {x: +rect.getAttribute('x') || 0, y: +rect.getAttribute('y') || 0,
        width: +rect.getAttribute('width') || 0, height: +rect.getAttribute('height') || 0};
      seen[key] = clips.length;
      clips.push({quad: quadOf(b, holder.getScreenCTM()), legend: !!holder.closest('.legend')});
    }
    return seen[key];
  };
  const textsOf = (gd, clips) => {
    const out = [], seen = {};
    for (const t of gd.querySelectorAll('svg.main-svg text')) {
      const content = (t.textContent || '').trim();
      if (!content || t.closest('.hoverlayer, .modebar')) continue;
      if (!t.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
      const b = t.getBBox();
      if (!b.width || !b.height) continue;
      const m = t.getScreenCTM();
      const scale = Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      out.push([kindOf(t, gd), content, quadOf(b, m), px, clipOf(t, gd, clips, seen)]);
    }
    return out;
  };
  const toLin = (ax, v) => (ax.d2l_noadd || ax.d2l || Number)(v);  // d2l adds categories
  const inRange = (ax, lin) => {
    const r = ax.range.map(x => ax.r2l ? ax.r2l(x) : +x);
    return Number.isFinite(lin) && lin >= Math.min(...r) - 1e-6 && lin <= Math.max(...r) + 1e-6;
  };
  const numeric = s => /^[-+\u2212]?[\d.,]+(e[-+]?\d+)?%?$/i.test(String(s).trim());
  const axesOf = (fl) => Object.keys(fl).filter(k => /^[xy]axis\d*$/.test(k)).map(k => fl[k])
    .filter(ax => ax.visible !== false && ax.showticklabels !== false && ax.range)
    .map(ax => {
      let want = null;
      const texts = ax.ticktext || [], vals = ax.tickvals || [];
      if (ax.tickmode === 'array') {
        want = vals.filter((v, i) => inRange(ax, toLin(ax, v))
          && String(texts[i] ?? v).trim() !== '').length;
      } else if (ax.type === 'category') {
        want = (ax._categories || []).filter((c, i) => inRange(ax, i)).length;
      }
      const labels = ax.tickmode === 'array' ? (texts.length ? texts : vals) : [];
      const labelled = ax.type === 'category' || labels.some(s => !numeric(s));
      const at = ax.tickmode === 'array' ? vals.map(v => toLin(ax, v))
        : (ax._categories || []).map((c, i) => i);
      return {id: ax._id, want, labelled, at};
    });
  const edgesPx = (ax, edges, n) => {
    if (!edges || edges.length < 2 || !ax.c2p) return ax._length / n;
    let least = Infinity;
    for (let i = 1; i < edges.length; i++) {
      const w = Math.abs(ax.c2p(edges[i]) - ax.c2p(edges[i - 1]));
      if (Number.isFinite(w)) least = Math.min(least, w);
    }
    return least;
  };
  const perCell = (axes, ax, edges, n) => {  // a label per cell along this axis (tokens)?
    const axis = axes.find(a => a.id === ax._id);
    if (!axis || !axis.labelled) return false;
    if (!edges || edges.length < 2) return true;
    const lo = Math.min(...edges), hi = Math.max(...edges);
    return axis.at.filter(p => p >= lo && p <= hi).length >= n;
  };
  const cellsOf = (gd, fl, axes) => (gd._fullData || []).map((t, i) => [t, i])
    .filter(([t]) => t.type === 'heatmap' && t.visible === true && t.z && t.z.length)
    .map(([t, i]) => {
      const xa = fl['xaxis' + t.xaxis.slice(1)], ya = fl['yaxis' + t.yaxis.slice(1)];
      const cd = ((gd.calcdata || [])[i] || [])[0] || {};
      const rows = t.z.length, cols = Math.max(...t.z.map(r => (r && r.length) || 0));
      return {rows, cols, width: edgesPx(xa, cd.x, cols), height: edgesPx(ya, cd.y, rows),
        xLabelled: perCell(axes, xa, cd.x, cols), yLabelled: perCell(axes, ya, cd.y, rows)};
    });
  const cutOf = (gd, r) => {  // cut by a container that does not scroll; hidden sideways
    const cut = {x: 0, y: 0}, scrolls = {x: false, y: false};
    let sideways = Math.max(0, r.right - document.documentElement.clientWidth, -r.left);
    for (let e = gd.parentElement; e && e !== document.body; e = e.parentElement) {
      const cs = getComputedStyle(e), b = e.getBoundingClientRect();
      for (const [dir, lo, hi] of [['x', 'left', 'right'], ['y', 'top', 'bottom']]) {
        const flow = dir === 'x' ? cs.overflowX : cs.overflowY;
        if (flow === 'visible') continue;
        const px = Math.max(b[lo] - r[lo], r[hi] - b[hi]);
        const scrolling = flow === 'auto' || flow === 'scroll';
        if (dir === 'x' && scrolling) sideways = Math.max(sideways, px);
        if (scrolls[dir]) continue;
        if (scrolling) { scrolls[dir] = true; continue; }
        cut[dir] = Math.max(cut[dir], px);
      }
    }
    return {...cut, sideways};
  };
  return [...document.querySelectorAll('.js-plotly-plot')].map((gd, index) => {
    const fl = gd._fullLayout, svg = gd.querySelector('svg.main-svg');
    const keyed = gd.closest('[class*="st-key-"]');
    const key = keyed ? (/st-key-(\S+)/.exec(keyed.className) || [])[1] : '';
    if (!fl || !svg) return {index, key, title: '', drawn: false};
    const r = svg.getBoundingClientRect(), clips = [];
    const title = (fl.title && fl.title.text) || '';
    const axes = axesOf(fl);
    return {index, key, title, drawn: true, bounds: [r.left, r.top, r.right, r.bottom],
      texts: textsOf(gd, clips), clips, axes,
      cells: cellsOf(gd, fl, axes), cut: cutOf(gd, r)};
  });
}"""

_MAIN_CHART_BOX = """() => {
  const gd = document.querySelector('[data-testid="stMain"] .js-plotly-plot');
  const r = gd && gd.getBoundingClientRect();
  return r ? [r.top, r.bottom] : null;
}"""


@dataclass(frozen=True)
class Text:
    """One text drawn in a chart. ``quad``: its four corners on screen (x0, y0, ..., x3, y3), in
    drawing order; ``font``: its drawn size in px; ``clip``: the clip box it is drawn in (a quad),
    or None."""

    kind: str  # 'xtick', 'y2tick', 'title', 'x axis title', 'legend', 'annotation', 'trace text'...
    content: str
    quad: tuple[float, ...]
    font: float
    clip: tuple[float, ...] | None

    def box(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of its screen-aligned hull."""
        return _hull(self.quad)

    def name(self) -> str:
        shown = self.content if len(self.content) <= 40 else self.content[:39] + "…"
        return f"{self.kind} {shown!r}"


def _strip_markup(title: str) -> str:
    return " ".join(re.sub(r"<[^>]*>", " ", title).split())


def collect(page) -> list[dict]:
    """Every chart on ``page`` as the JavaScript above reads it (one round trip)."""
    return page.evaluate(_COLLECT)


def _texts(chart: dict) -> list[Text]:
    """The chart's texts; legend items scrolled out of the legend's box are left out."""
    clips = chart["clips"]
    texts = []
    for kind, content, quad, font, clip in chart["texts"]:
        box = clips[clip] if clip >= 0 else None
        text = Text(kind, content, tuple(quad), font, tuple(box["quad"]) if box else None)
        if box and box["legend"]:
            if _outside(text.box(), _hull(text.clip)):
                continue
            text = Text(kind, content, tuple(quad), font, None)  # a legend scrolls: not clipped
        texts.append(text)
    return texts


def _hull(quad: tuple[float, ...]) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a quad's screen-aligned hull."""
    xs, ys = quad[0::2], quad[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def _outside(box, bounds) -> bool:
    return box[2] <= bounds[0] or box[0] >= bounds[2] or box[3] <= bounds[1] or box[1] >= bounds[3]


def _cut(box, bounds) -> list[tuple[str, float]]:
    """(side, px) for each side where ``box`` passes ``bounds`` by more than the tolerance."""
    sides = {
        "left": bounds[0] - box[0],
        "top": bounds[1] - box[1],
        "right": box[2] - bounds[2],
        "bottom": box[3] - bounds[3],
    }
    return [(side, px) for side, px in sides.items() if px > TOLERANCE]


def _clipped(texts: list[Text], bounds) -> list[str]:
    problems = []
    for text in texts:
        for side, px in _cut(text.box(), bounds):
            problems.append(f"{text.name()} clipped at {side} by {px:.0f} px")
        if text.clip is not None:
            for side, px in _cut(text.box(), _hull(text.clip)):
                problems.append(f"{text.name()} cut by the plot area at {side} by {px:.0f} px")
    return problems


def _axes(quad: tuple[float, ...]) -> list[tuple[float, float]]:
    """The two edge normals of a (parallelogram) quad, unit length."""
    normals = []
    for i in (0, 1):
        dx, dy = quad[2 * i + 2] - quad[2 * i], quad[2 * i + 3] - quad[2 * i + 1]
        length = (dx * dx + dy * dy) ** 0.5 or 1.0
        normals.append((-dy / length, dx / length))
    return normals


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """How deep two quads overlap, in px (separating-axis test; 0 when they are apart)."""
    depth = float("inf")
    for nx, ny in _axes(a) + _axes(b):
        pa = [nx * a[i] + ny * a[i + 1] for i in range(0, 8, 2)]
        pb = [nx * b[i] + ny * b[i + 1] for i in range(0, 8, 2)]
        depth = min(depth, min(max(pa), max(pb)) - max(min(pa), min(pb)))
        if depth <= 0:
            return 0.0
    return depth


def _overlapping(texts: list[Text]) -> list[str]:
    """Pairs of texts overlapping by more than the tolerance (a sweep along x, then the exact
    separating-axis test on rotated boxes)."""
    order = sorted(texts, key=lambda t: t.box()[0])
    problems = []
    for i, a in enumerate(order):
        ax = a.box()
        for b in order[i + 1 :]:
            bx = b.box()
            if bx[0] >= ax[2] - TOLERANCE:
                break
            if min(ax[3], bx[3]) - max(ax[1], bx[1]) <= TOLERANCE:
                continue
            depth = overlap(a.quad, b.quad)
            if depth > TOLERANCE:
                problems.append(f"{a.name()} overlaps {b.name()} by {depth:.0f} px")
    return problems


def _small(texts: list[Text], classroom: bool) -> list[str]:
    least = MIN_FONT_CLASSROOM if classroom else MIN_FONT
    where = "classroom minimum" if classroom else "minimum"
    return [
        f"{t.name()} drawn at {t.font:.1f} px ({where} {least:.0f})"
        for t in texts
        if t.font < least - 0.05
    ]


def _cells(chart: dict, classroom: bool) -> list[str]:
    least = MIN_CELL_CLASSROOM if classroom else MIN_CELL
    problems = []
    for n, cells in enumerate(chart["cells"], 1):
        for labelled, size, count, across in (
            (cells["xLabelled"], cells["width"], cells["cols"], "wide"),
            (cells["yLabelled"], cells["height"], cells["rows"], "high"),
        ):
            if labelled and size < least - 0.05:
                problems.append(
                    f"heatmap {n}: cells {size:.1f} px {across} for {count} "
                    f"{'columns' if across == 'wide' else 'rows'} (minimum {least:.0f})"
                )
    return problems


def _unlabelled(chart: dict, texts: list[Text]) -> list[str]:
    problems = []
    for axis in chart["axes"]:
        if axis["want"] is None:
            continue
        drawn = sum(1 for t in texts if t.kind == f"{axis['id']}tick")
        if drawn != axis["want"]:
            problems.append(
                f"{axis['id']} axis draws {drawn} tick labels for {axis['want']} categories "
                "(plotly's auto-ticking dropped some: give every tick with tickmode='array')"
            )
    return problems


def _page_cut(chart: dict, sideways_ok: bool) -> list[str]:
    cut = chart["cut"]
    problems = [
        f"its container cuts {cut[d]:.0f} px of it {'sideways' if d == 'x' else 'vertically'} "
        "and does not scroll"
        for d in ("x", "y")
        if cut[d] > TOLERANCE
    ]
    if not sideways_ok and cut["sideways"] > TOLERANCE:
        problems.append(
            f"{cut['sideways']:.0f} px of it are hidden sideways (in a part that scrolls, or past "
            "the page's width)"
        )
    return problems


def _summarised(problems: list[str], what: str) -> list[str]:
    """The first ``MAX_EXAMPLES`` problems of one rule, then how many more ``what``."""
    if len(problems) <= MAX_EXAMPLES:
        return problems
    return [*problems[:MAX_EXAMPLES], f"... and {len(problems) - MAX_EXAMPLES} more {what}"]


def chart_problems(chart: dict, *, classroom: bool, sideways_ok: bool = True) -> list[str]:
    """The problems of one collected chart (see the module docstring for the rules)."""
    label = f"chart {chart['index'] + 1}"
    title = _strip_markup(chart["title"])
    if title:
        label += f" {title[:60]!r}"
    if chart["key"]:
        label += f" [{chart['key']}]"
    if not chart["drawn"]:
        return [f"{label}: not drawn (no layout or SVG)"]
    texts = _texts(chart)
    least = MIN_FONT_CLASSROOM if classroom else MIN_FONT
    found = [
        *_summarised(_clipped(texts, chart["bounds"]), "texts clipped"),
        *_summarised(_overlapping(texts), "overlaps"),
        *_summarised(_small(texts, classroom), f"texts under {least:.0f} px"),
        *_cells(chart, classroom),
        *_unlabelled(chart, texts),
        *_page_cut(chart, sideways_ok),
    ]
    return [f"{label}: {problem}" for problem in found]


_HIDDEN_OPTIONS = r"""() => [...document.querySelectorAll('[data-testid=stButtonGroup]')]
  .filter((group) => group.getBoundingClientRect().width > 0)
  .map((group) => {
    const box = group.getBoundingClientRect();
    const hidden = [...group.querySelectorAll('button')].filter((b) => {
      const r = b.getBoundingClientRect();
      return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1);
    });
    const label = group.closest('[data-testid=stElementContainer]')
      ?.querySelector('[data-testid=stWidgetLabel]')?.innerText ?? '';
    return {label: label.trim(), hidden: hidden.map((b) => b.innerText.trim())};
  })
  .filter((group) => group.hidden.length > 0)"""


def hidden_options(page) -> list[str]:
    """Rule 7: one line per option group with options outside its box (scrolled sideways)."""
    return [
        f"options {group['hidden'][:MAX_EXAMPLES]} of {group['label']!r} are hidden sideways "
        "(the group does not wrap)"
        for group in page.evaluate(_HIDDEN_OPTIONS)
    ]


def check_page(page, *, classroom: bool, sideways_ok: bool = True) -> list[str]:
    """Every problem of every plotly chart on ``page`` (settled), and every option group that
    hides options sideways (rule 7), one line each; [] when all are legible. ``classroom``: judge
    by classroom mode's larger minimums; ``sideways_ok`` False: a chart hidden in part sideways
    (rule 6) is a problem too."""
    return [
        line
        for chart in collect(page)
        for line in chart_problems(chart, classroom=classroom, sideways_ok=sideways_ok)
    ] + hidden_options(page)


def main_chart_box(page) -> tuple[float, float] | None:
    """(top, bottom) in viewport px of the first plotly chart in the main area; None without
    one."""
    box = page.evaluate(_MAIN_CHART_BOX)
    return None if box is None else (box[0], box[1])


def main_chart_visible(page, *, whole: bool = False) -> bool:
    """The page's main chart starts inside the viewport as loaded (classroom mode's rule), or
    with ``whole`` lies wholly inside it, its top and its bottom; True for a page without a
    chart."""
    box = main_chart_box(page)
    if box is None:
        return True
    height = page.evaluate("window.innerHeight")
    if whole:
        return box[0] >= -TOLERANCE and box[1] <= height + TOLERANCE
    return 0 <= box[0] < height
