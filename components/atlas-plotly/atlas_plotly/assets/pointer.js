// The pointer over a chart, for the behaviours that read it (link.js, drag.js): where it is in the
// plot area's pixels, whether it is inside the plot, data <-> pixels through plotly's axes, and
// what it is near (a height, a segment, a handle). Near-pure helpers: they read a plotly div's
// full layout (its axes: _offset, _length, p2l, l2p) and its .main-svg's box, and touch nothing;
// tests/test_pointer_js.py runs them in node on stand-ins for both.
//
// Pixels here are the plot area's: (0, 0) is its top left corner, (x._length, y._length) its
// bottom right (plotly's own "p" coordinates, which its axes' p2l and l2p take and give).

// How near a handle a press takes it, by the event's pointerType (a finger is less precise).
export const HIT_PX = { mouse: 14, pen: 14, touch: 24 };

// The plot's axes {x, y} (plotly's full x and y axes), or null before a draw.
export function axesOf(gd) {
  const layout = gd && gd._fullLayout;
  return layout && layout.xaxis && layout.yaxis ? { x: layout.xaxis, y: layout.yaxis } : null;
}

// The pointer's pixel {px, py} in the plot area: the event's clientX/Y less the chart's box (its
// .main-svg's) and the plot's offset in it; null without axes or a drawn chart.
export function pixelOf(gd, axes, event) {
  const svg = axes && gd.querySelector && gd.querySelector(".main-svg");
  if (!svg) return null;
  const box = svg.getBoundingClientRect();
  return {
    px: event.clientX - box.left - axes.x._offset,
    py: event.clientY - box.top - axes.y._offset,
  };
}

// The pointer over a chart: {axes, p: its pixel}, or null before a draw.
export function pointed(gd, event) {
  const axes = axesOf(gd);
  const p = axes && pixelOf(gd, axes, event);
  return p ? { axes, p } : null;
}

// Whether the pixel {px, py} is inside the plot area (its edges included).
export function inPlot(axes, p) {
  return p.px >= 0 && p.py >= 0 && p.px <= axes.x._length && p.py <= axes.y._length;
}

// The pixel {px, py} in data units {x, y}, and back.
export function toData(axes, p) {
  return { x: axes.x.p2l(p.px), y: axes.y.p2l(p.py) };
}

export function toPixel(axes, x, y) {
  return { px: axes.x.l2p(x), py: axes.y.l2p(y) };
}

// The index of the height in ``ys`` nearest to ``y`` (the first of equally near ones; null when
// ys is empty).
export function nearest(ys, y) {
  let best = null;
  for (let k = 0; k < ys.length; k++) {
    if (best === null || Math.abs(ys[k] - y) < Math.abs(ys[best] - y)) best = k;
  }
  return best;
}

// The distance from the point (px, py) to the segment (x0, y0) - (x1, y1).
export function distance(px, py, x0, y0, x1, y1) {
  const dx = x1 - x0;
  const dy = y1 - y0;
  const t = Math.max(0, Math.min(1, ((px - x0) * dx + (py - y0) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(px - x0 - t * dx, py - y0 - t * dy);
}

// How near a handle a press of this pointer type takes it, in pixels.
export function hitRadius(pointerType) {
  return HIT_PX[pointerType] || HIT_PX.mouse;
}

// The index of the data point [x, y] of ``points`` nearest to the pixel p, within ``radius``
// pixels of it (its edge included); the first of equally near ones; null when none is.
export function nearestWithin(axes, points, p, radius) {
  let best = null;
  let bestDistance = radius;
  points.forEach(([x, y], k) => {
    const at = toPixel(axes, x, y);
    const d = Math.hypot(at.px - p.px, at.py - p.py);
    if (d < bestDistance || (best === null && d === bestDistance)) {
      best = k;
      bestDistance = d;
    }
  });
  return best;
}
