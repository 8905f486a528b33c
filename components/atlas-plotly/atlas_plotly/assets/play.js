// The chart's "play" behaviour: a figure's frames played smoothly in the browser, from the data
// the server sent once (no rerun, nothing sent back while it plays).
//
// The figure carries plotly frames, play/pause buttons (method "animate") and a step slider; the
// frames are the server's, one per step. attach(ctx) takes over the play and pause buttons (their
// own animate is turned off with `execute: false`; plotly's slider keeps working) and, while
// playing, draws up to options.fps states a second with requestAnimationFrame:
// - at an integer step it shows the server's frame exactly (Plotly.animate to that frame, which
//   also moves the slider);
// - in between (step k + f, 0 < f < 1) it shows motion only: numbers of the visible traces that
//   have the same shape in frames k and k + 1 (x, y, z, marker sizes, opacities...) and the
//   layout shapes' coordinates are interpolated linearly; with options.gaussian, the listed
//   traces are the Gaussian exp(-(x - p)^2 / (2 sigma^2)) around the interpolated p (the x of the
//   centre trace), so a window slides instead of one bump fading into the next; a picture
//   (an image trace whose source changes) crossfades through a layout image on top; a trace whose
//   arrays change length (sampled cells), or any changed trace with options.fade, fades out and
//   back in with the next frame's points.
//   Texts (titles, hover labels) stay those of the last step reached. Invisible traces (opacity
//   0: hover layers) are left as they are.
// Under prefers-reduced-motion nothing moves between steps: play shows step after step, each
// for seconds_per_frame (reducedMotion below).
// Pause (or a move of the slider) stops; a pause between two steps settles on the nearer one, so
// the slider and the chart always show the same step. At the last step it stops; play pressed
// there starts again from the first step.
//
// options: {fps, seconds_per_frame, gaussian: {sigma, centre_trace, traces: [{trace,
//   half_width}]} | null, fade: true when every changed trace fades instead of moving,
//   pause_label: a label for a single play button while it plays (the button then toggles) |
//   null, step_trigger: true to send the step it comes to rest on (a pause, the slider, the
//   end) back to Python as the trigger "step" when it is not the step the server drew, so that
//   the page's own step control and numbers follow the chart}. null options: undo (the chart was drawn anew, so plotly's own buttons are back).
// attach follows the behaviours' contract (chart.js's header): the player is kept in ctx.state,
// and each draw gets a new one (the old one detached).
// ctx.host carries data-play-state (playing | paused), data-play-position (the step shown, with
// its fraction), data-play-step, data-play-draws (states drawn while playing, all plays together),
// data-play-between (of those, the states drawn between two steps: the motion)
// and data-play-fps (states drawn per second in the latest play).

import { decoded, inBetween, transition } from "./play_frames.js";

// The reader asked for less motion (the system's setting): play shows the steps without the
// motion in between (no sliding, no crossfade).
export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

const OVERLAY = "atlas-play-overlay"; // the name of the crossfading layout image

class Player {
  constructor(ctx) {
    this.host = ctx.host;
    this.gd = ctx.gd;
    this.Plotly = ctx.Plotly;
    this.options = ctx.options;
    this.trigger = ctx.trigger;
    const frames = (ctx.figure.frames || []).filter((f) => f && f.name != null && f.data);
    this.frames = frames.map(decoded);
    this.position = this.shownStep();
    this.sent = this.position; // the step the server drew, or the last one sent back
    this.playing = false;
    this.plans = new Map();
    this.touched = null; // the plan whose in-betweens are on the chart (cleared on arrival)
    this.busy = false;
    this.labels = new Map(); // a play button's own label, by its layout path
    this.draws = Number(this.host.getAttribute("data-play-draws") || 0);
    this.betweenDraws = Number(this.host.getAttribute("data-play-between") || 0);
    this.handlers = {
      plotly_buttonclicked: (event) => this.clicked(event),
      plotly_sliderchange: (event) => this.slid(event),
    };
    for (const [name, handler] of Object.entries(this.handlers)) this.gd.on(name, handler);
    this.mark();
  }

  // The step plotly's slider shows (the server's figure opens on it).
  shownStep() {
    const slider = ((this.gd.layout || {}).sliders || [])[0];
    return slider && Number.isInteger(slider.active) ? slider.active : 0;
  }

  // Turn off the animate method of the figure's play and pause buttons: this player runs them.
  async takeButtons() {
    const update = {};
    ((this.gd.layout || {}).updatemenus || []).forEach((menu, m) =>
      (menu.buttons || []).forEach((button, b) => {
        if (button.method === "animate" && button.execute !== false)
          update[`updatemenus[${m}].buttons[${b}].execute`] = false;
      }),
    );
    if (Object.keys(update).length) await this.Plotly.relayout(this.gd, update);
  }

  detach() {
    this.playing = false;
    for (const [name, handler] of Object.entries(this.handlers)) {
      this.gd.removeListener(name, handler);
    }
  }

  mark() {
    const host = this.host;
    host.setAttribute("data-play-state", this.playing ? "playing" : "paused");
    host.setAttribute("data-play-position", this.position.toFixed(3));
    host.setAttribute("data-play-step", String(Math.floor(this.position + 1e-9)));
    host.setAttribute("data-play-draws", String(this.draws));
    host.setAttribute("data-play-between", String(this.betweenDraws));
  }

  clicked(event) {
    const button = event && event.button;
    if (!button || button.method !== "animate" || button.execute !== false) return;
    const args = button.args || [];
    const isPause = Array.isArray(args[0]) && args[0].length === 1 && args[0][0] === null;
    if (isPause || (this.playing && this.options.pause_label)) this.pause();
    else if (!this.playing) this.play();
  }

  slid(event) {
    if (!event || !event.interaction) return; // our own animate moved it
    this.playing = false; // the slider's own animate shows the step picked
    this.position = event.slider.active;
    this.settle();
    this.setLabel(false);
    this.mark();
    this.rested();
  }

  // At rest on a step the page does not show yet: send it back (options.step_trigger).
  rested() {
    const step = Math.round(this.position);
    if (!this.options.step_trigger || this.playing || step === this.sent || !this.trigger) return;
    this.sent = step;
    this.trigger("step", step);
  }

  async play() {
    if (this.frames.length < 2) return;
    if (this.position >= this.frames.length - 1) {
      this.position = 0;
      await this.arrive(0);
    }
    this.playing = true;
    this.setLabel(true);
    const startDraws = this.draws;
    const started = performance.now();
    const origin = this.position;
    const perFrame = 1000 * (this.options.seconds_per_frame || 0.8);
    const gap = 1000 / (this.options.fps || 30);
    let last = -Infinity;
    const tick = async (now) => {
      if (!this.playing) return;
      if (!this.busy && now - last >= gap * 0.9) {
        last = now;
        this.busy = true;
        try {
          // rAF's time stamp is the frame's start, which may come before `started`
          const elapsed = Math.max(0, now - started);
          const along = Math.min(origin + elapsed / perFrame, this.frames.length - 1);
          // under prefers-reduced-motion: the steps one after the other, nothing moving between
          const target = reducedMotion() ? Math.floor(along) : along;
          if (target !== this.position || !Number.isInteger(target)) {
            await this.drawAt(target);
            this.draws += 1;
            if (!Number.isInteger(target)) this.betweenDraws += 1;
          }
          const seconds = (performance.now() - started) / 1000;
          const fps = (this.draws - startDraws) / seconds;
          if (seconds > 0) this.host.setAttribute("data-play-fps", fps.toFixed(1));
          if (target >= this.frames.length - 1) this.playing = false;
        } catch (error) {
          console.warn("atlas-plotly play:", error);
          this.playing = false;
        } finally {
          this.busy = false;
        }
        this.mark();
        if (!this.playing) {
          this.setLabel(false);
          this.rested(); // at the last step (a pause sends its own)
        }
      }
      if (this.playing) requestAnimationFrame(tick);
    };
    this.mark();
    requestAnimationFrame(tick);
  }

  async pause() {
    if (!this.playing && Number.isInteger(this.position)) return;
    this.playing = false;
    while (this.busy) await new Promise((r) => setTimeout(r, 5));
    const step = Math.round(this.position);
    if (step !== this.position) await this.arrive(step);
    this.setLabel(false);
    this.mark();
    this.rested();
  }

  // A single play button reads options.pause_label while it plays (and toggles).
  setLabel(playing) {
    const label = this.options.pause_label;
    if (!label) return;
    const update = {};
    ((this.gd.layout || {}).updatemenus || []).forEach((menu, m) =>
      (menu.buttons || []).forEach((button, b) => {
        const path = `updatemenus[${m}].buttons[${b}].label`;
        if (button.method !== "animate" || !button.args || button.args[0] !== null) return;
        if (!this.labels.has(path)) this.labels.set(path, button.label);
        const text = playing ? label : this.labels.get(path);
        if (button.label !== text) update[path] = text;
      }),
    );
    if (Object.keys(update).length) this.Plotly.relayout(this.gd, update);
  }

  async drawAt(target) {
    const from = Math.floor(this.position + 1e-9);
    const reached = Math.floor(target + 1e-9);
    if (reached > from) {
      await this.arrive(reached); // a step passed: its frame exactly
      this.mark();
      if (target === reached) return;
    }
    await this.between(reached, target - reached);
    this.position = target;
  }

  // The server's frame `step`, exactly; the in-betweens' extras (overlay, fades) taken away.
  async arrive(step) {
    const frame = this.frames[step];
    await this.Plotly.animate(this.gd, [frame.name], {
      mode: "immediate",
      frame: { duration: 0, redraw: true },
      transition: { duration: 0 },
    });
    await this.settle();
    this.position = step;
  }

  // Take the in-betweens' extras away: faded traces back to their opacity, no overlay.
  async settle() {
    const touched = this.touched;
    this.touched = null;
    const faded = touched ? touched.traces.filter((t) => t.fade) : [];
    faded.forEach((t) => (t.swapped = false));
    if (faded.length) {
      const opacity = faded.map((t) => touched.opacity[t.index]);
      await this.Plotly.restyle(this.gd, { opacity }, faded.map((t) => t.index));
    }
    await this.clearOverlay();
  }

  async clearOverlay() {
    const images = (this.gd.layout || {}).images || [];
    if (images.some((image) => image.name === OVERLAY)) {
      const kept = images.filter((image) => image.name !== OVERLAY);
      await this.Plotly.relayout(this.gd, { images: kept });
    }
  }

  // The state at step k + f (0 < f < 1): motion only.
  async between(k, f) {
    if (k >= this.frames.length - 1) return;
    if (!this.plans.has(k)) {
      const live = this.gd.data || [];
      this.plans.set(k, transition(this.frames[k], this.frames[k + 1], live, this.options));
    }
    const plan = this.plans.get(k);
    this.touched = plan;
    const { indices, traceUpdate, layoutUpdate } = inBetween(plan, f, this.options);
    if (plan.image) Object.assign(layoutUpdate, this.overlay(plan, f));
    if (indices.length) await this.Plotly.update(this.gd, traceUpdate, layoutUpdate, indices);
    else if (Object.keys(layoutUpdate).length) await this.Plotly.relayout(this.gd, layoutUpdate);
  }

  // The next frame's picture on top of the current one, opacity f (a layout image placed where
  // the image trace draws its pixels).
  overlay(plan, f) {
    const images = (this.gd.layout || {}).images || [];
    const at = images.findIndex((image) => image.name === OVERLAY);
    if (at >= 0 && images[at].source === plan.image.source) return { [`images[${at}].opacity`]: f };
    const cd = ((this.gd.calcdata || [])[plan.image.index] || [])[0] || {};
    const trace = this.gd._fullData[plan.image.index] || {};
    const image = {
      name: OVERLAY,
      source: plan.image.source,
      xref: trace.xaxis || "x",
      yref: trace.yaxis || "y",
      x: cd.x0,
      y: cd.y0,
      sizex: cd.w * (trace.dx || 1),
      sizey: cd.h * (trace.dy || 1),
      sizing: "stretch",
      xanchor: "left",
      yanchor: "top",
      layer: "above",
      opacity: f,
    };
    const kept = images.filter((i) => i.name !== OVERLAY);
    return { images: [...kept, image] };
  }
}

// The behaviours' contract (chart.js): ctx.state holds this chart's player.
export async function attach(ctx) {
  const { host, state } = ctx;
  // drawn anew: the figure (and plotly's own buttons) are the server's again
  if (state.player) state.player.detach();
  state.player = null;
  if (!ctx.options || !ctx.gd) {
    for (const name of ["state", "position", "step", "fps"]) {
      host.removeAttribute(`data-play-${name}`);
    }
    return;
  }
  const player = new Player(ctx);
  state.player = player;
  await player.takeButtons();
}
