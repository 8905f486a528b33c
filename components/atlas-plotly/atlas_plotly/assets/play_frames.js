// The play behaviour's frames (play.js): plotly.py's encoded arrays read as numbers, what changes
// from one frame to the next, and the states in between (pure functions: no plotly, no DOM).

// What a fading trace takes from the next frame halfway through.
const SWAPPED = ["x", "y", "z", "text", "hovertext", "customdata", "marker.size"];

// plotly.py sends numpy arrays as {dtype, bdata: base64, shape}: read them as plain numbers.
const DTYPES = { f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array };
Object.assign(DTYPES, { i2: Int16Array, u2: Uint16Array, i1: Int8Array, u1: Uint8Array });
DTYPES.u1c = Uint8ClampedArray;

export function decoded(value) {
  if (Array.isArray(value)) return value.map(decoded);
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (!value || typeof value !== "object") return value;
  if (typeof value.bdata === "string" && DTYPES[value.dtype]) {
    const bytes = Uint8Array.from(atob(value.bdata), (c) => c.charCodeAt(0));
    const flat = Array.from(new DTYPES[value.dtype](bytes.buffer));
    const shape = String(value.shape || flat.length).split(",").map(Number);
    if (shape.length !== 2) return flat;
    const row = (_, r) => flat.slice(r * shape[1], (r + 1) * shape[1]);
    return Array.from({ length: shape[0] }, row);
  }
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, decoded(v)]));
}

function isNumbers(value) {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "number");
}

function sameShape(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  if (isNumbers(a) && isNumbers(b)) return true;
  const rows = (row, i) => isNumbers(row) && isNumbers(b[i]) && row.length === b[i].length;
  return a.length > 0 && a.every(rows);
}

function lerp(a, b, f) {
  if (typeof a === "number") return a + (b - a) * f;
  return a.map((v, i) => lerp(v, b[i], f));
}

function hasNumbers(value) {
  return Array.isArray(value) && value.flat(Infinity).some((v) => typeof v === "number");
}

// The differences between two versions of one trace: [path, a, b] numeric pairs to interpolate,
// and whether some array of numbers changed its length (then the trace cannot move: it fades).
function differences(a, b, prefix = "", out = { lerp: [], resized: false }) {
  for (const key of Object.keys(b)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const va = a[key];
    const vb = b[key];
    if (typeof va === "number" && typeof vb === "number") {
      if (va !== vb) out.lerp.push([path, va, vb]);
    } else if (sameShape(va, vb)) {
      if (JSON.stringify(va) !== JSON.stringify(vb)) out.lerp.push([path, va, vb]);
    } else if (Array.isArray(va) && Array.isArray(vb)) {
      if ((hasNumbers(va) || hasNumbers(vb)) && va.length !== vb.length) out.resized = true;
    } else if (va && vb && typeof va === "object" && typeof vb === "object") {
      differences(va, vb, path, out);
    }
  }
  return out;
}

export function traceIndices(frame) {
  return frame.traces || frame.data.map((_, i) => i);
}

function gaussian(xs, p, sigma, halfWidth) {
  return xs.map((x) => {
    const d = x - p;
    if (halfWidth != null && Math.abs(d) > halfWidth) return 0;
    return Math.exp(-(d * d) / (2 * sigma * sigma));
  });
}

// What changes from frame a to frame b (plain JSON, decoded), given the chart's traces (gd.data):
// per trace, the numbers to interpolate, whether it fades (arrays of another length, or any
// change with options.fade) or follows the Gaussian; the picture that crossfades; the shapes.
export function transition(a, b, traces, options) {
  const plan = { traces: [], opacity: {}, image: null, shapes: [], centre: null };
  const byIndex = new Map(traceIndices(b).map((index, j) => [index, b.data[j]]));
  const spec = options.gaussian;
  const bell = new Map(((spec && spec.traces) || []).map((t) => [t.trace, t.half_width]));
  traceIndices(a).forEach((index, j) => {
    const ta = a.data[j];
    const tb = byIndex.get(index);
    const live = traces[index] || {};
    if (!tb || live.opacity === 0 || live.visible === false) return;
    if (ta.type === "image" || live.type === "image") {
      const changed = ta.source && tb.source && ta.source !== tb.source;
      if (changed) plan.image = { index, source: tb.source };
      return;
    }
    if (spec && index === spec.centre_trace && isNumbers(ta.x) && isNumbers(tb.x))
      plan.centre = [ta.x[0], tb.x[0]];
    const diff = differences(ta, tb);
    const fades = options.fade && JSON.stringify(ta) !== JSON.stringify(tb);
    if (diff.resized || fades) {
      plan.opacity[index] = live.opacity === undefined ? null : live.opacity;
      plan.traces.push({ index, swap: tb, fade: true, swapped: false });
      return;
    }
    const entry = { index, lerp: diff.lerp };
    if (bell.has(index) && isNumbers(ta.x)) {
      entry.lerp = diff.lerp.filter(([path]) => path !== "y");
      entry.bell = { xs: ta.x, halfWidth: bell.get(index) };
    }
    if (entry.lerp.length || entry.bell) plan.traces.push(entry);
  });
  if (!plan.centre) plan.traces.forEach((t) => delete t.bell);
  const sa = (a.layout || {}).shapes || [];
  const sb = (b.layout || {}).shapes || [];
  sa.forEach((shape, i) => {
    for (const key of ["x0", "x1", "y0", "y1"]) {
      const va = shape[key];
      const vb = (sb[i] || {})[key];
      const moved = typeof va === "number" && typeof vb === "number" && va !== vb;
      if (moved) plan.shapes.push([i, key, va, vb]);
    }
  });
  return plan;
}

// The state at f (0 < f < 1) of the way through a transition: restyle values for the plan's
// traces (one entry per trace; undefined leaves that trace as it is) and the shapes' relayout.
export function inBetween(plan, f, options) {
  const indices = plan.traces.map((t) => t.index);
  const traceUpdate = {};
  const put = (path, slot, value) => {
    if (!traceUpdate[path]) traceUpdate[path] = new Array(indices.length).fill(undefined);
    traceUpdate[path][slot] = value;
  };
  const p = plan.centre && plan.centre[0] + (plan.centre[1] - plan.centre[0]) * f;
  plan.traces.forEach((t, slot) => {
    for (const [path, va, vb] of t.lerp || []) put(path, slot, lerp(va, vb, f));
    if (t.bell) put("y", slot, gaussian(t.bell.xs, p, options.gaussian.sigma, t.bell.halfWidth));
    if (!t.fade) return;
    const base = plan.opacity[t.index] == null ? 1 : plan.opacity[t.index];
    put("opacity", slot, base * Math.abs(1 - 2 * f));
    if (f >= 0.5 && !t.swapped) {
      t.swapped = true; // the next frame's points, faded in over the second half
      for (const key of SWAPPED) {
        const value = key.split(".").reduce((o, part) => (o ? o[part] : undefined), t.swap);
        if (value !== undefined) put(key, slot, value);
      }
    }
  });
  const layoutUpdate = {};
  for (const [i, key, va, vb] of plan.shapes) {
    layoutUpdate[`shapes[${i}].${key}`] = va + (vb - va) * f;
  }
  return { indices, traceUpdate, layoutUpdate };
}
