// Dragging vectors: the Attention anatomy page's query and key tips are handles.
//
// options (app_pages/anatomy/drag.py writes them; null: undo everything set up here):
//   {group, role} on every chart of a group. role "scores" or "weights": the chart only follows
//   the group's drags (its first trace's bars are redrawn). role "vectors": the vector diagram,
//   whose query and key tips are dragged; it also carries what the stages are computed from:
//   query [x, y], keys and values [[x, y], ...], names, key_tips, score ("dot", "scaled_dot",
//   "general", "additive"), W, W_q, W_k, v, temperature, step, limit, traces {query, keys,
//   context: [arrows trace index, tips trace index]}, and colours {query, keys}: the colours of the
//   handles, their arrows' (from viz/palette.py; none is written here).
//
// While a handle is dragged, the browser computes the three stages as models/attention.py does:
// scores e_s = score(q, k_s) (scaled dot: q.k_s / sqrt(d_k)), weights a = softmax(e / T),
// context c = sum_s a_s v_s; it redraws the diagram's arrows and the group's bars in place
// (Plotly.restyle, once per animation frame) and writes the preview on the host as
// data-preview (JSON: query, keys, scores, weights, context). Every coordinate is rounded to
// options.step, so that on release (the trigger "drag": {query, keys}) the server computes the
// same numbers from the same vectors. attach follows the behaviours' contract (chart.js's
// header): all of a chart's drag state is ctx.state, which is also its member of its group in
// groups.js's registry (kind "drag", by options.group), where the diagram finds the charts that
// follow it by their role.
//
// Pointer handlers of our own, in the capture phase on the chart: a pointerdown near a handle
// (pointer.js: within 14 px, 24 for a finger) is taken (preventDefault keeps plotly's zoom from
// starting); anywhere else plotly works as before.

import { join, leave, members } from "./groups.js";
import { hitRadius, nearestWithin, pointed, toData } from "./pointer.js";

const KIND = "drag"; // this behaviour's groups in groups.js
const FOLLOWERS = ["scores", "weights"];

// ---- the three stages (pure; tests/test_anatomy_drag.py runs them in node) ----

function matVec(M, x) {
  return M.map((row) => row.reduce((sum, m, j) => sum + m * x[j], 0));
}

function dot(a, b) {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

export function score(options, q, k) {
  switch (options.score) {
    case "dot":
      return dot(q, k);
    case "scaled_dot":
      return dot(q, k) / Math.sqrt(k.length);
    case "general": {
      // (q W) k: the row vector q times W, then with k
      const qW = k.map((_, j) => q.reduce((sum, qi, i) => sum + qi * options.W[i][j], 0));
      return dot(qW, k);
    }
    case "additive": {
      const a = matVec(options.W_q, q);
      const b = matVec(options.W_k, k);
      return dot(options.v, a.map((x, i) => Math.tanh(x + b[i])));
    }
    default:
      throw new Error(`unknown score ${options.score}`);
  }
}

export function softmax(scores, temperature) {
  const scaled = scores.map((e) => e / temperature);
  const top = Math.max(...scaled);
  const exps = scaled.map((x) => Math.exp(x - top));
  const total = exps.reduce((sum, x) => sum + x, 0);
  return exps.map((x) => x / total);
}

// {scores, weights, context} of query [x, y] and keys [[x, y], ...] with options' values.
export function preview(options, query, keys) {
  const scores = keys.map((k) => score(options, query, k));
  const weights = softmax(scores, options.temperature);
  const d = options.values[0].length;
  const context = Array.from({ length: d }, (_, i) =>
    weights.reduce((sum, a, s) => sum + a * options.values[s][i], 0),
  );
  return { scores, weights, context };
}

// x rounded to a multiple of step (1 / step a whole number), within [-limit, limit]; as
// app_pages/anatomy/drag.snap rounds it (2.3, not 23 * 0.1).
export function snap(x, step, limit) {
  const perUnit = Math.round(1 / step);
  return Math.min(limit, Math.max(-limit, Math.round(x * perUnit) / perUnit));
}

// A bar's number as Python's f"{x:.3f}" writes it (a negative zero keeps its sign).
export function fixed3(x) {
  const text = x.toFixed(3);
  return Object.is(x, -0) ? `-${text}` : text;
}

// ---- the charts of a group ----

// The plotly div of the group's chart of this role (the one that joined last), once drawn.
function follower(group, role) {
  const found = members(KIND, group).filter((m) => m.role === role).pop();
  const gd = found && found.gd;
  return gd && gd.isConnected && gd._fullLayout ? gd : null;
}

// ---- the diagram ----

function arrows(points) {
  const x = [];
  const y = [];
  for (const [px, py] of points) {
    x.push(0, px, null);
    y.push(0, py, null);
  }
  return { x, y };
}

// The diagram's arrows and tips drawn at the current vectors (and the context, when finite).
async function redrawDiagram(state, Plotly, context) {
  const { traces, key_tips: keyTips } = state.options;
  const groups = [
    ["query", [state.query]],
    ["keys", state.keys],
  ];
  if (context) groups.push(["context", [context]]);
  const update = { x: [], y: [] };
  const indices = [];
  for (const [group, points] of groups) {
    const line = arrows(points);
    update.x.push(line.x, points.map((p) => p[0]));
    update.y.push(line.y, points.map((p) => p[1]));
    indices.push(...traces[group]);
  }
  await Plotly.restyle(state.gd, update, indices);
  const tips = traces.keys[1];
  if ((state.gd.data[tips].text || []).length !== state.keys.length) {
    // coinciding keys shared one name on the server's diagram; apart, each has its own
    await Plotly.restyle(state.gd, { text: [keyTips], textposition: "top center" }, [tips]);
  }
}

async function redrawFollowers(state, Plotly, result) {
  const series = { scores: result.scores, weights: result.weights };
  for (const role of FOLLOWERS) {
    const gd = follower(state.options.group, role);
    if (!gd) continue;
    await Plotly.restyle(gd, { y: [series[role]], text: [series[role].map(fixed3)] }, [0]);
  }
}

async function render(state) {
  const { Plotly } = state.ctx;
  const result = preview(state.options, state.query, state.keys);
  const finite = [...result.scores, ...result.weights, ...result.context].every(Number.isFinite);
  await redrawDiagram(state, Plotly, finite ? result.context : null);
  if (finite) await redrawFollowers(state, Plotly, result);
  // plotly draws the hover label from before the press again after a restyle: it is stale
  if (Plotly.Fx) Plotly.Fx.unhover(state.gd);
  state.previews += 1;
  state.host.dataset.preview = JSON.stringify({
    query: state.query,
    keys: state.keys,
    ...(finite ? result : {}),
  });
  state.host.dataset.previews = String(state.previews);
}

function schedule(state) {
  if (state.frame) return;
  state.frame = requestAnimationFrame(() => {
    state.frame = 0;
    state.rendering = state.rendering.then(() => render(state)).catch(warn);
  });
}

function warn(error) {
  console.warn("atlas-plotly: drag preview failed:", error);
}

// Handles: the query's and the keys' tips as rings (their markers are invisible otherwise).
async function showHandles(state, Plotly) {
  const { traces, colours } = state.options;
  const indices = [traces.query[1], traces.keys[1]];
  await Plotly.restyle(
    state.gd,
    {
      "marker.opacity": 1,
      "marker.symbol": "circle-open",
      "marker.color": [colours.query, colours.keys],
      "marker.line.width": 2,
    },
    indices,
  );
}

// ---- the pointer (pointer.js) ----

// The handle under the pointer: the query, or a key's index; the query first where they meet.
function nearest(state, event) {
  const at = pointed(state.gd, event);
  if (!at) return null;
  const handle = nearestWithin(
    at.axes,
    [state.query, ...state.keys],
    at.p,
    hitRadius(event.pointerType),
  );
  return handle === null ? null : handle === 0 ? "query" : handle - 1;
}

// The pointer's place in data units, rounded to the step and kept within the axes' ranges (on
// the nearest multiple of the step inside them) and within +-limit.
function place(state, event) {
  const { axes, p } = pointed(state.gd, event);
  const { x, y } = toData(axes, p);
  const { step, limit } = state.options;
  const perUnit = Math.round(1 / step);
  const within = (v, range) => {
    const lo = Math.ceil(Math.min(...range) * perUnit) / perUnit;
    const hi = Math.floor(Math.max(...range) * perUnit) / perUnit;
    return Math.min(Math.max(snap(v, step, limit), lo), hi);
  };
  return [within(x, axes.x.range), within(y, axes.y.range)];
}

function setCursor(state, cursor) {
  const box = state.gd.querySelector(".nsewdrag");
  if (box) box.style.cursor = cursor;
}

function onDown(state, event) {
  if (event.button !== 0 || !state.options || state.dragging) return;
  const handle = nearest(state, event);
  if (handle === null) return;
  event.preventDefault(); // no mousedown follows: plotly's zoom box does not start
  event.stopPropagation();
  const start = JSON.stringify([state.query, state.keys]);
  state.dragging = { handle, start, pointerId: event.pointerId };
  state.host.dataset.dragging = "1";
  setCursor(state, "grabbing");
  if (state.ctx.Plotly.Fx) state.ctx.Plotly.Fx.unhover(state.gd);
  for (const [name, handler] of dragListeners(state)) window.addEventListener(name, handler, true);
}

// What listens on the window while a handle is dragged: the pointer, and a guard that keeps
// mouse moves from plotly (its hover label would follow the pointer over the other arrows).
function dragListeners(state) {
  return [
    ["pointermove", state.onMove],
    ["pointerup", state.onUp],
    ["pointercancel", state.onUp],
    ["mousemove", state.onMouse],
  ];
}

function onMove(state, event) {
  const drag = state.dragging;
  if (!drag || event.pointerId !== drag.pointerId) return;
  event.preventDefault();
  const [x, y] = place(state, event);
  const old = drag.handle === "query" ? state.query : state.keys[drag.handle];
  if (old[0] === x && old[1] === y) return;
  if (drag.handle === "query") state.query = [x, y];
  else state.keys = state.keys.map((k, j) => (j === drag.handle ? [x, y] : k));
  schedule(state);
}

async function onUp(state, event) {
  const drag = state.dragging;
  if (!drag || event.pointerId !== drag.pointerId) return;
  for (const [name, handler] of dragListeners(state)) window.removeEventListener(name, handler, true);
  if (state.frame) {
    cancelAnimationFrame(state.frame);
    state.frame = 0;
    state.rendering = state.rendering.then(() => render(state)).catch(warn);
  }
  await state.rendering; // the last preview is drawn before the values go to Python
  state.dragging = null;
  delete state.host.dataset.dragging;
  setCursor(state, "");
  if (JSON.stringify([state.query, state.keys]) !== drag.start) {
    state.ctx.trigger("drag", { query: state.query, keys: state.keys });
  }
}

function onHover(state, event) {
  if (state.dragging || !state.options || event.buttons) return;
  setCursor(state, nearest(state, event) === null ? "" : "grab");
}

function listen(state) {
  if (state.listening) return;
  state.onDown = (event) => onDown(state, event);
  state.onMove = (event) => onMove(state, event);
  state.onUp = (event) => onUp(state, event);
  state.onHover = (event) => onHover(state, event);
  state.onMouse = (event) => event.stopPropagation();
  state.gd.addEventListener("pointerdown", state.onDown, true);
  state.gd.addEventListener("pointermove", state.onHover);
  state.listening = true;
}

function unlisten(state) {
  if (!state.listening) return;
  state.gd.removeEventListener("pointerdown", state.onDown, true);
  state.gd.removeEventListener("pointermove", state.onHover);
  for (const [name, handler] of dragListeners(state)) window.removeEventListener(name, handler, true);
  state.listening = false;
  state.dragging = null;
  setCursor(state, "");
}

// The behaviours' contract (chart.js): ctx.state is this chart's state and group member.
export async function attach(ctx) {
  const { gd, host, options, state } = ctx;
  if (!gd) return;
  if (!state.gd) Object.assign(state, { gd, previews: 0, frame: 0, rendering: Promise.resolve() });
  state.ctx = ctx;
  state.host = host;
  if (!options) {
    leave(KIND, state);
    state.role = null;
    stopDragging(state);
    return;
  }
  state.role = options.role;
  join(KIND, options.group, state);
  if (options.role !== "vectors") {
    stopDragging(state);
    return;
  }
  state.options = options;
  if (!state.dragging) {
    // the server's vectors (a drag under way keeps its own until it ends)
    state.query = options.query.slice();
    state.keys = options.keys.map((k) => k.slice());
  }
  listen(state);
  await showHandles(state, ctx.Plotly);
  host.dataset.dragReady = "1";
}

// No handles (options null, or a chart that only follows): no listeners, nothing ready to drag.
function stopDragging(state) {
  unlisten(state);
  state.options = null;
  delete state.host.dataset.dragReady;
  delete state.host.dataset.dragging;
}
