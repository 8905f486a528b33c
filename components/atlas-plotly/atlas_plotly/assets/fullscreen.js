// Full screen: a button on every chart that shows the chart alone, fitted to the screen, and Esc
// (or the button again) to return. A behaviour module (chart.js calls attach after every draw):
// options {label} (the button's title, in the page's language), null to take the button away.
//
// In full screen the chart's div gets the screen's height (Plotly.relayout); on return it gets its
// own height back. Esc is the browser's own way out of full screen; a keydown listener does the
// same where the browser leaves Esc to the page (a headless browser).
// attach follows the behaviours' contract (chart.js's header): the button, the chart's own height
// and the document's listeners are kept in ctx.state; options null takes them all away.

const SVG = "http://www.w3.org/2000/svg";
const CORNERS = "M2 7V2h5M13 2h5v5M18 13v5h-5M7 18H2v-5"; // four corner brackets, 20 x 20

function icon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 20 20");
  svg.setAttribute("width", "18");
  svg.setAttribute("height", "18");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", CORNERS);
  path.setAttribute("fill", "none");
  path.setAttribute("stroke", "#444");
  path.setAttribute("stroke-width", "2");
  svg.appendChild(path);
  return svg;
}

function button(host) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "atlas-fullscreen";
  b.appendChild(icon());
  Object.assign(b.style, {
    position: "absolute", top: "2px", left: "2px", zIndex: "2", width: "30px", height: "30px",
    padding: "5px", border: "1px solid #ccc", borderRadius: "4px", cursor: "pointer",
    background: "rgba(255,255,255,0.9)", lineHeight: "0",
  });
  b.addEventListener("click", () => toggle(host));
  return b;
}

export function toggle(host) {
  if (document.fullscreenElement === host) return document.exitFullscreen();
  return host.requestFullscreen ? host.requestFullscreen() : Promise.resolve();
}

// What the chart's div should be now: the screen's height in full screen, else its own.
export function heightFor(fullscreen, ownHeight, screenHeight) {
  return fullscreen ? Math.max(200, screenHeight - 8) : ownHeight;
}

function fit(host, s, full = document.fullscreenElement === host) {
  if (!s.gd || !s.gd.isConnected) return;
  host.style.background = full ? "#ffffff" : "";
  host.style.overflow = full ? "auto" : "";
  const height = heightFor(full, s.height, window.innerHeight);
  s.gd.style.height = `${height}px`;
  s.Plotly.relayout(s.gd, { height, autosize: true });
}

function setUp(host, s) {
  s.button = button(host);
  s.positioned = !host.style.position;
  if (s.positioned) host.style.position = "relative";
  host.prepend(s.button);
  s.listeners = {
    fullscreenchange: () => fit(host, s),
    keydown: (event) => {
      if (event.key === "Escape" && document.fullscreenElement === host) document.exitFullscreen();
    },
  };
  for (const [name, handler] of Object.entries(s.listeners)) {
    document.addEventListener(name, handler);
  }
}

// Everything setUp did undone; a chart in full screen leaves it, at its own height again.
function undo(host, s) {
  if (!s.button) return;
  for (const [name, handler] of Object.entries(s.listeners)) {
    document.removeEventListener(name, handler);
  }
  s.button.remove();
  if (s.positioned) host.style.position = "";
  if (document.fullscreenElement === host) {
    document.exitFullscreen().catch(() => {});
    fit(host, s, false);
  }
  Object.assign(s, { button: null, listeners: null, positioned: false });
}

export function attach(ctx) {
  const { host, gd, Plotly, options, figure, state: s } = ctx;
  if (!options) {
    undo(host, s);
    return;
  }
  if (!s.button) setUp(host, s);
  const label = String(options.label || "");
  s.button.title = label;
  s.button.setAttribute("aria-label", label);
  Object.assign(s, { gd, Plotly, height: (figure.layout && figure.layout.height) || 450 });
  if (document.fullscreenElement === host) fit(host, s); // a new figure while in full screen
}
