// The chart component's behaviour "link": hover linking between charts of one page, as BertViz's
// head view links a token to its lines. All in the browser: no rerun, no message to Python.
//
// options (viz/hover_link.py, HoverLink.options()): {group, role, n_queries, n_keys, ...}
//   role "heatmap": {trace}: its cell (row i, column j) is query i, key j; {colour, width}: how the
//     focused cell, row or column is outlined (as the overview's frame around the chosen head).
//   role "lines": queries are drawn in the column x = query_x (0 or 1; default 0), keys in the
//     other, query i at y = query_y[i] and key j at y = key_y[j] (default: at y = i and y = j);
//     {linked: the traces of the lines of the map the heatmap shows (x [0, 1, null, ...], y the
//     two ends' heights), colour, width: how a hovered line is drawn}.
// The outline's and the lines' colours come with the options (from viz/palette.py); the veil is
// the plot's own background.
// A focus is {kind: "cell", i, j}, {kind: "query", i} or {kind: "key", j}. Hovering a heatmap's
// cell focuses it; over a lines chart, the pointer on one of the linked head's lines focuses that
// cell, on a token (left: queries, right: keys) that query or key. Every chart of the group shows
// the group's focus with layout shapes (drawn without recomputing the traces, so a long
// sentence's lines need not be restyled on every hover): a heatmap outlines the cell, row
// or column; a lines chart veils every line (a rectangle of the plot's background between the
// token columns) and draws the matching lines of the linked head over it (for a cell, the line
// i -> j even where it is not drawn: below the threshold, or of a head not shown).
// plotly_unhover, or the pointer leaving a lines chart, clears the focus and restores the charts.
//
// attach follows the behaviours' contract (chart.js's header): the chart's state (ctx.state) is
// its member of the group. The charts are separate component instances on one page: they find
// each other in groups.js's registry (kind "link", by options.group), where the group's focus is
// shared. A chart joins on attach and leaves when attach gets no options; one whose host has left
// the document is dropped.
//
// Besides attach, the pure helpers (a chart's geometry, the shapes that show a focus, what the
// pointer is on: pointer.js's, re-exported where they moved) are exported for the node unit
// tests (tests/test_link_js.py).

import { join, leave as leaveGroup, members, shared } from "./groups.js";
import { distance, inPlot, nearest, pointed, toData, toPixel } from "./pointer.js";

export { distance, nearest };

const KIND = "link"; // this behaviour's groups in groups.js
const SHAPE_NAME = "atlas-link";
const VEIL = 0.8; // the opacity of the veil over the lines while something is focused
const LINE_PX = 6; // the pointer is on a line within this many pixels of it

// ------------------------------------------------------------------ a lines chart's geometry

// The column (x) and the heights (y) of a lines chart's queries and keys, with each height's
// index (the lines' ends carry the very numbers of the token columns).
export function geometry(options) {
  const heights = (ys, n) =>
    ys && ys.length === n ? ys : Array.from({ length: n }, (_, k) => k);
  const qx = options.query_x === 1 ? 1 : 0;
  const qy = heights(options.query_y, options.n_queries);
  const ky = heights(options.key_y, options.n_keys);
  const indexOf = (ys) => new Map(ys.map((y, k) => [y, k]));
  return { qx, kx: 1 - qx, qy, ky, qIndex: indexOf(qy), kIndex: indexOf(ky) };
}

export function focusKey(focus) {
  return focus ? `${focus.kind}:${focus.i ?? ""}:${focus.j ?? ""}` : "";
}

// The group's shared {focus, source: the member whose pointer set it}.
function focusOf(name) {
  return shared(KIND, name);
}

function setFocus(member, focus) {
  const name = member.options.group;
  const g = focusOf(name);
  if (focusKey(g.focus) === focusKey(focus)) return;
  g.focus = focus;
  g.source = focus ? member : null;
  for (const m of members(KIND, name)) show(m);
}

// ------------------------------------------------------------------ showing the focus

// The heatmap's blocks: [trace, x axis, y axis, first column] of each (one, unless its columns
// are wrapped in blocks one under the other, each block's trace holding its own columns:
// viz/wrap.py, options.blocks).
export function blocksOf(options) {
  return options.blocks && options.blocks.length ? options.blocks : [[options.trace, "x", "y", 0]];
}

// The focused cell, row or column outlined in every block (plotly clips each outline to its
// block's plot: a row's outline shows in each block, a cell's in the block that holds it).
export function outline(options, focus) {
  return blocksOf(options).flatMap(([, xref, yref]) => outlineOn(options, focus, xref, yref));
}

function outlineOn(options, focus, xref, yref) {
  const cell = (x0, x1, y0, y1) => ({
    type: "rect",
    name: SHAPE_NAME,
    xref,
    yref,
    x0: x0 - 0.5,
    x1: x1 + 0.5,
    y0: y0 - 0.5,
    y1: y1 + 0.5,
    line: { color: options.colour, width: options.width },
    layer: "above",
  });
  const last = { i: options.n_queries - 1, j: options.n_keys - 1 };
  if (focus.kind === "cell") return [cell(focus.j, focus.j, focus.i, focus.i)];
  if (focus.kind === "query") return [cell(0, last.j, focus.i, focus.i)];
  return [cell(focus.j, focus.j, 0, last.i)];
}

export function pairs(member, focus) {
  if (focus.kind === "cell") return [[focus.i, focus.j]];
  const at = focus.kind === "query" ? 0 : 1;
  const wanted = focus.kind === "query" ? focus.i : focus.j;
  return member.segments.filter((pair) => pair[at] === wanted);
}

// The colour behind the lines: the plot's background, else the paper's where that is clear.
export function background(gd) {
  const layout = gd._fullLayout || {};
  const clear = (c) => !c || c === "transparent" || /^rgba\(.*,\s*0(\.0*)?\)$/.test(c);
  for (const colour of [layout.plot_bgcolor, layout.paper_bgcolor]) if (!clear(colour)) return colour;
  return "white";
}

export function highlighted(member, focus) {
  const { options, gd } = member;
  const { qx, kx, qy, ky } = member.geometry;
  const shape = { name: SHAPE_NAME, xref: "x", yref: "y", layer: "above" };
  const heights = [...qy, ...ky];
  const veil = {
    ...shape,
    type: "rect",
    x0: 0,
    x1: 1,
    y0: Math.min(...heights) - 0.5,
    y1: Math.max(...heights) + 0.5,
    fillcolor: background(gd),
    opacity: VEIL,
    line: { width: 0 },
  };
  const line = { color: options.colour, width: options.width };
  const lines = pairs(member, focus).map(([i, j]) => ({
    ...shape,
    type: "line",
    x0: qx,
    x1: kx,
    y0: qy[i],
    y1: ky[j],
    line,
  }));
  return [veil, ...lines];
}

async function draw(member, focus) {
  const { gd, Plotly, options, base } = member;
  let shapes = base.shapes;
  if (focus && options.role === "heatmap") shapes = [...shapes, ...outline(options, focus)];
  if (focus && options.role === "lines") shapes = [...shapes, ...highlighted(member, focus)];
  await Plotly.relayout(gd, { shapes });
}

function show(member) {
  // one change at a time on a chart; a focus superseded meanwhile is skipped
  member.chain = (member.chain || Promise.resolve())
    .then(async () => {
      if (!member.options || !member.gd.isConnected) return;
      const focus = focusOf(member.options.group).focus || null;
      const key = focusKey(focus);
      if (key === member.shown) return;
      member.shown = key;
      await draw(member, focus);
    })
    .catch((error) => console.warn("atlas-plotly link:", error));
}

// ------------------------------------------------------------------ what the pointer is on

// The (query, key) pairs of the lines drawn by ``traces``: each line is x [a, b], y its ends'
// heights, read back to indices through the chart's geometry.
export function segmentsOf(gd, traces, geo) {
  const out = [];
  for (const t of traces) {
    const xs = (gd.data[t] && gd.data[t].x) || [];
    const ys = (gd.data[t] && gd.data[t].y) || [];
    for (let k = 0; k + 1 < ys.length; k += 3) {
      if (ys[k] === null || ys[k + 1] === null) continue;
      const [yq, yk] = xs[k] === geo.qx ? [ys[k], ys[k + 1]] : [ys[k + 1], ys[k]];
      const i = geo.qIndex.get(yq) ?? nearest(geo.qy, yq);
      const j = geo.kIndex.get(yk) ?? nearest(geo.ky, yk);
      out.push([i, j]);
    }
  }
  return out;
}

// The focus under the pointer over a lines chart: a token, one of the linked lines, or null.
export function pointedLines(member, event) {
  const at = pointed(member.gd, event);
  if (!at || !inPlot(at.axes, at.p)) return null;
  const { axes, p } = at;
  const { qx, kx, qy, ky } = member.geometry;
  const { x, y } = toData(axes, p);
  // a token: the one nearest the pointer in its column, within half the step between tokens
  const token = (ys) => {
    const k = nearest(ys, y);
    const step = ys.length > 1 ? Math.abs(ys[1] - ys[0]) : 1;
    return k !== null && Math.abs(ys[k] - y) <= Math.max(0.5, step / 2) ? k : null;
  };
  const side = x < 0 ? 0 : x > 1 ? 1 : null;
  if (side === qx) {
    const i = token(qy);
    return i === null ? null : { kind: "query", i };
  }
  if (side === kx) {
    const j = token(ky);
    return j === null ? null : { kind: "key", j };
  }
  let best = null;
  let closest = LINE_PX;
  for (const [i, j] of member.segments) {
    const [a, b] = [toPixel(axes, qx, qy[i]), toPixel(axes, kx, ky[j])];
    const d = distance(p.px, p.py, a.px, a.py, b.px, b.py);
    if (d <= closest) {
      closest = d;
      best = { kind: "cell", i, j };
    }
  }
  return best;
}

export function cellOf(member, event) {
  const p = event && event.points && event.points[0];
  const block = p && blocksOf(member.options).find(([trace]) => trace === p.curveNumber);
  if (!block) return null;
  const index = p.pointNumber; // a heatmap's point: [row, column] (of its block's columns)
  if (!Array.isArray(index) || index.length !== 2) return null;
  return { kind: "cell", i: index[0], j: index[1] + (block[3] || 0) };
}

// The chart's listeners, kept on its state to be taken off again (unlisten).
function listen(member) {
  if (member.listeners) return;
  const gd = member.gd;
  const role = () => member.options && member.options.role;
  // a heatmap's focus is plotly's hovered cell; a lines chart's, what the pointer is on
  const on = (kind, read) => (event) => {
    if (role() === kind) setFocus(member, read(event));
  };
  member.listeners = {
    plotly: {
      plotly_hover: on("heatmap", (event) => cellOf(member, event)),
      plotly_unhover: on("heatmap", () => null),
    },
    dom: {
      mousemove: on("lines", (event) => pointedLines(member, event)),
      mouseleave: on("lines", () => null),
    },
  };
  for (const [name, handler] of Object.entries(member.listeners.plotly)) gd.on(name, handler);
  for (const [name, handler] of Object.entries(member.listeners.dom)) {
    gd.addEventListener(name, handler);
  }
}

function unlisten(member) {
  const { gd, listeners } = member;
  if (!listeners) return;
  for (const [name, handler] of Object.entries(listeners.plotly)) {
    if (gd.removeListener) gd.removeListener(name, handler);
  }
  for (const [name, handler] of Object.entries(listeners.dom)) {
    gd.removeEventListener(name, handler);
  }
  member.listeners = null;
}

// ------------------------------------------------------------------ attach

// Out of its group; the focus it set, if any, is cleared on the charts left.
function leave(member) {
  if (!member.options) return;
  const name = member.options.group;
  const g = focusOf(name);
  leaveGroup(KIND, member);
  if (g.source === member) {
    g.focus = null;
    g.source = null;
    for (const m of members(KIND, name)) show(m);
  }
  member.options = null;
}

// The behaviours' contract (chart.js): ctx.state is this chart's member of its group.
export function attach(ctx) {
  const { host, gd, Plotly, options, state: member } = ctx;
  if (!options) {
    leave(member);
    if (member.gd) unlisten(member);
    return;
  }
  member.host = host;
  member.gd = gd;
  listen(member);
  if (member.options && member.options.group !== options.group) leave(member);
  member.Plotly = Plotly;
  member.options = options;
  // what this draw shows with nothing focused (Plotly.react has just put the figure back)
  member.base = {
    shapes: ((gd.layout && gd.layout.shapes) || []).filter((s) => s.name !== SHAPE_NAME),
  };
  member.geometry = geometry(options);
  member.segments =
    options.role === "lines" ? segmentsOf(gd, options.linked || [], member.geometry) : [];
  member.shown = "";
  join(KIND, options.group, member);
  show(member); // the group's focus, if something is hovered now
}
