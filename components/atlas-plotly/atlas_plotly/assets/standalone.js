// A chart saved as one standalone HTML file that opens offline: the figure as drawn, plotly.js
// inlined, the chart's name, summary and numbers as text and real tables. describe.js's
// "Download as HTML" button calls download(); viz/standalone.py writes the same file in Python.
//
// Both fill one skeleton, standalone.html next to this file (its empty elements found by id),
// so the browser's file and Python's have one layout. plotly.js and the skeleton come from the
// component's own folder (same origin, fetched on the first press only); nothing in the saved file
// names a URL. Every text is set as text (textContent): a token typed by a user stays a token. A
// script's text is never parsed as HTML, but "</script" would end it: the figure's JSON writes
// "<" as \u003c, and plotly.js's text has its "</script" escaped as the Python side does.

import { table } from "./describe.js";

const TEMPLATE_SRC = new URL("./standalone.html", import.meta.url).href;
const PLOTLY_SRC = new URL("./plotly.min.js", import.meta.url).href;
let sources = null;

function fetchText(url) {
  return fetch(url).then((response) => {
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.text();
  });
}

// The skeleton and plotly.js, fetched once per page.
function loadSources() {
  if (!sources) {
    sources = Promise.all([fetchText(TEMPLATE_SRC), fetchText(PLOTLY_SRC)]).catch((error) => {
      sources = null;
      throw error;
    });
  }
  return sources;
}

// JSON that is safe inside a <script> element (no "<" that could close it).
export function scriptJson(value) {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

export function scriptText(source) {
  return source.replace(/<\/script/gi, "<\\/script");
}

// The standalone page's HTML: the skeleton filled with the figure ({data, layout, frames}), the
// chart's words (describe.js's options: name, summary, tables, labels) and plotly.js's text.
export function standalonePage(template, plotly, figure, words, lang) {
  const doc = new DOMParser().parseFromString(template, "text/html");
  const byId = (id) => doc.getElementById(id);
  doc.documentElement.setAttribute("lang", lang || "en");
  doc.title = words.name || "";
  byId("atlas-name").textContent = words.name || "";
  byId("atlas-summary").textContent = words.summary || "";
  const labels = words.labels || {};
  const tables = (words.tables || []).map((spec) => table(spec, labels));
  byId("atlas-numbers").replaceChildren(...tables);
  const { data, layout, frames } = figure || {};
  const drawn = frames ? { data, layout, frames } : { data, layout };
  byId("atlas-figure").textContent = scriptJson(drawn);
  byId("atlas-plotly").textContent = scriptText(plotly);
  return `<!DOCTYPE html>\n${doc.documentElement.outerHTML}\n`;
}

// A file name from the chart's name: its letters and digits, joined by "-".
export function fileName(name) {
  const slug = String(name || "")
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `attention-atlas${slug ? `-${slug}` : ""}.html`;
}

// Save the chart as a standalone HTML file (the browser's download).
export async function download(figure, words) {
  const [template, plotly] = await loadSources();
  const lang = document.documentElement.getAttribute("lang") || "en";
  const page = standalonePage(template, plotly, figure, words, lang);
  const url = URL.createObjectURL(new Blob([page], { type: "text/html;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName(words.name);
  link.style.display = "none";
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
