// A chart in words (WCAG 1.1.1): its name, its summary and its numbers as tables, for a screen
// reader and the keyboard. A behaviour module (chart.js calls attach after every draw); options
// (viz/describe.py's ChartText, in the page's language) {name, summary, tables: [{caption,
// columns, rows, more_rows, more_columns}], labels: {show, hide, more_rows, more_columns}};
// null takes it all away.
//
// The chart's element becomes a figure named by the chart's name and described by its summary
// (aria-label, aria-describedby: the summary is a paragraph a screen reader reads and the screen
// does not show). A button, out of sight until it has the keyboard's focus (then over the chart's
// top right corner), shows the tables under the chart and hides them again; the tables are real
// <table> elements with a caption and header cells. A second button, out of sight in the same
// way, saves the chart as one standalone HTML file (standalone.js; labels.html is its label).
// Every text is set as text (textContent), never as HTML: a token typed by a user stays a token.
// attach follows the behaviours' contract (chart.js's header): what it adds is kept in ctx.state.

const CSS = `
.atlas-sr { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.atlas-plotly .atlas-numbers-button:not(:focus):not([aria-expanded="true"]),
.atlas-plotly .atlas-html-button:not(:focus) {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.atlas-plotly .atlas-numbers-button, .atlas-plotly .atlas-html-button {
  position: absolute; top: 2px; right: 2px; z-index: 3;
  padding: 4px 10px; font: inherit; font-size: 0.9rem; color: #0e1117; background: #ffffff;
  border: 2px solid #0e1117; border-radius: 4px; cursor: pointer; }
.atlas-plotly .atlas-numbers-button[aria-expanded="true"] ~ .atlas-html-button { top: 44px; }
.atlas-plotly .atlas-numbers-button:focus-visible, .atlas-plotly .atlas-html-button:focus-visible {
  outline: 3px solid #1c4fd8; outline-offset: 2px; }
.atlas-plotly .atlas-numbers { margin: 8px 0; max-width: 100%; overflow-x: auto; }
.atlas-plotly .atlas-numbers table { border-collapse: collapse; margin-bottom: 8px;
  font-size: 0.9rem; color: #0e1117; }
.atlas-plotly .atlas-numbers caption { text-align: left; font-weight: 600; padding: 4px 0; }
.atlas-plotly .atlas-numbers th, .atlas-plotly .atlas-numbers td { border: 1px solid #b9bcc4;
  padding: 2px 6px; text-align: right; }
.atlas-plotly .atlas-numbers th { background: #f0f2f6; }
`;

function style(host) {
  const root = host.getRootNode();
  const head = root instanceof ShadowRoot ? root : document.head;
  if (head.querySelector(":scope > style[data-atlas-describe]")) return;
  const element = document.createElement("style");
  element.setAttribute("data-atlas-describe", "");
  element.textContent = CSS;
  head.appendChild(element);
}

let counter = 0;

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

export function table(spec, labels) {
  const t = element("table");
  t.appendChild(element("caption", spec.caption));
  const head = element("thead");
  const headRow = element("tr");
  for (const column of spec.columns || []) {
    const th = element("th", column);
    th.setAttribute("scope", "col");
    headRow.appendChild(th);
  }
  head.appendChild(headRow);
  t.appendChild(head);
  const body = element("tbody");
  for (const row of spec.rows || []) {
    const tr = element("tr");
    row.forEach((cell, i) => {
      const td = element(i === 0 ? "th" : "td", cell);
      if (i === 0) td.setAttribute("scope", "row");
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  t.appendChild(body);
  const notes = [];
  if (spec.more_rows) notes.push(labels.more_rows.replace("{n}", String(spec.more_rows)));
  if (spec.more_columns) notes.push(labels.more_columns.replace("{n}", String(spec.more_columns)));
  const wrap = element("div");
  wrap.appendChild(t);
  if (notes.length) wrap.appendChild(element("p", notes.join(" ")));
  return wrap;
}

function undo(host, s) {
  for (const node of [s.summary, s.button, s.save, s.panel]) if (node) node.remove();
  for (const name of ["role", "aria-label", "aria-describedby"]) host.removeAttribute(name);
  s.summary = s.button = s.save = s.panel = null;
}

export function attach(ctx) {
  const { host, options } = ctx;
  const s = ctx.state;
  if (!options) {
    undo(host, s);
    return;
  }
  style(host);
  if (!s.summary) {
    s.id = `atlas-summary-${++counter}`;
    s.summary = element("p", "", "atlas-sr");
    s.summary.id = s.id;
    host.insertBefore(s.summary, host.firstChild);
    s.button = element("button", "", "atlas-numbers-button");
    s.button.type = "button";
    s.button.setAttribute("aria-expanded", "false");
    s.button.addEventListener("click", () => {
      const open = s.button.getAttribute("aria-expanded") !== "true";
      s.button.setAttribute("aria-expanded", String(open));
      s.panel.hidden = !open;
      s.button.textContent = open ? s.labels.hide : s.labels.show;
    });
    host.insertBefore(s.button, s.summary.nextSibling);
    s.save = saveButton(s);
    host.insertBefore(s.save, s.button.nextSibling);
    s.panel = element("div", "", "atlas-numbers");
    s.panel.hidden = true;
    host.appendChild(s.panel);
  }
  s.labels = options.labels || { show: "Numbers", hide: "Hide", more_rows: "", more_columns: "" };
  host.setAttribute("role", "figure");
  host.setAttribute("aria-label", options.name || "");
  host.setAttribute("aria-describedby", s.id);
  s.summary.textContent = options.summary || "";
  const open = s.button.getAttribute("aria-expanded") === "true";
  s.button.textContent = open ? s.labels.hide : s.labels.show;
  s.button.setAttribute("aria-controls", `${s.id}-numbers`);
  s.panel.id = `${s.id}-numbers`;
  s.panel.replaceChildren(...(options.tables || []).map((spec) => table(spec, s.labels)));
  if (!(options.tables || []).length) s.button.hidden = true;
  else s.button.hidden = false;
  s.save.textContent = s.labels.html || "";
  s.save.hidden = !s.labels.html;
  s.words = options;
  s.figure = drawnFigure(ctx);
}

// The figure as chart.js drew it: the least width it was given (its div's min-width) put back as
// the layout's width, which the saved page again takes as its least width.
function drawnFigure(ctx) {
  const least = parseFloat((ctx.gd && ctx.gd.style.minWidth) || "");
  const figure = ctx.figure || {};
  if (!least) return figure;
  return { ...figure, layout: { ...(figure.layout || {}), width: least } };
}

// The button that saves the chart (as last drawn, ctx.figure) as a standalone HTML file.
function saveButton(s) {
  const button = element("button", "", "atlas-html-button");
  button.type = "button";
  button.addEventListener("click", () => {
    import("./standalone.js")
      .then((module) => module.download(s.figure, s.words))
      .catch((error) => console.warn("atlas-plotly: could not save the chart as HTML:", error));
  });
  return button;
}
