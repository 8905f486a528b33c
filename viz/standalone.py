"""A chart as one standalone HTML file that opens offline, outside Streamlit: the figure, plotly.js
inlined, the chart's name as its title and heading, its summary as text and its numbers as real
tables (``viz.describe.chart_text``), in the language asked for.

The file is the chart component's own skeleton (``components/atlas-plotly/atlas_plotly/assets/
standalone.html``) filled the way the component's "Download as HTML" button fills it
(``standalone.js``): the same layout whether a chart is saved from the app or from a notebook.
plotly.js is the component's cartesian bundle (the installed ``atlas_plotly`` package's asset),
else plotly.py's own bundle of the same version; nothing in the file names a URL. Every text is
escaped (the tokens are user text); the figure's JSON and plotly.js sit in ``<script>`` elements
with nothing in them that could close the element.

    from viz.standalone import standalone_html
    Path("head.html").write_text(standalone_html(head_view(result), lang="zh"), encoding="utf-8")
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio

from i18n import LANGUAGES, N_, _, use_language
from viz.behaviours import Chart
from viz.describe import ChartText, Table, chart_text

SAVE_HTML_LABEL = N_("Download as HTML")
MORE_ROWS = N_("{n} more rows are not shown.")
MORE_COLUMNS = N_("{n} more columns are not shown.")
SKELETON = "standalone.html"  # in the chart component's asset folder
# the language's tag in <html lang>, as the app's own page has it (ui.document)
HTML_LANG = {"en": "en", "zh": "zh-Hans"}
_CLOSE_SCRIPT = re.compile(r"</script", re.IGNORECASE)


def _assets() -> Path | None:
    """The chart component's asset folder (None where the component is not installed)."""
    try:
        import atlas_plotly
    except ImportError:
        return None
    return atlas_plotly.ASSETS


@cache
def skeleton() -> str:
    """The standalone page's skeleton, shared with the chart component."""
    assets = _assets()
    if assets is None or not (assets / SKELETON).is_file():
        raise FileNotFoundError(f"the chart component's {SKELETON} is missing: run `make setup`")
    return (assets / SKELETON).read_text(encoding="utf-8")


@cache
def plotly_js() -> str:
    """plotly.js's text: the component's cartesian bundle, else plotly.py's (same version)."""
    assets = _assets()
    if assets is not None and (assets / "plotly.min.js").is_file():
        return (assets / "plotly.min.js").read_text(encoding="utf-8")
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def script_json(figure: go.Figure) -> str:
    """The figure's data, layout and frames as JSON safe inside a ``<script>`` element."""
    text = pio.to_json(figure, validate=False, remove_uids=True)
    return text.replace("<", "\\u003c")


def _cell(tag: str, text: str, scope: str | None = None) -> str:
    attrs = f' scope="{scope}"' if scope else ""
    return f"<{tag}{attrs}>{html.escape(text)}</{tag}>"


def table_html(table: Table) -> str:
    """A table of the chart's numbers, as describe.js writes it: caption, header cells, notes."""
    head = "".join(_cell("th", column, "col") for column in table.columns)
    rows = "".join(
        "<tr>"
        + "".join(_cell("th", c, "row") if i == 0 else _cell("td", c) for i, c in enumerate(row))
        + "</tr>"
        for row in table.rows
    )
    notes = []
    if table.more_rows:
        notes.append(_(MORE_ROWS).format(n=table.more_rows))
    if table.more_columns:
        notes.append(_(MORE_COLUMNS).format(n=table.more_columns))
    note = f"<p>{html.escape(' '.join(notes))}</p>" if notes else ""
    caption = _cell("caption", table.caption)
    body = f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody>"
    return f"<div><table>{caption}{body}</table>{note}</div>"


def _fill(page: str, empty: str, content: str) -> str:
    """``page`` with the skeleton's one empty element ``empty`` holding ``content``."""
    if page.count(empty) != 1:
        raise ValueError(f"the skeleton has {page.count(empty)} of {empty!r}, expected one")
    opened = empty[: empty.index("></") + 1]
    return page.replace(empty, f"{opened}{content}{empty[len(opened) :]}")


def page_html(figure: go.Figure, text: ChartText, lang: str) -> str:
    """The skeleton filled with ``figure``, its words ``text`` and plotly.js (``lang``: the
    page's language tag, e.g. zh-Hans)."""
    page = skeleton().replace('<html lang="en">', f'<html lang="{html.escape(lang)}">', 1)
    name = html.escape(text.name)
    page = _fill(page, "<title></title>", name)
    page = _fill(page, '<h1 id="atlas-name"></h1>', name)
    page = _fill(page, '<p id="atlas-summary"></p>', html.escape(text.summary))
    page = _fill(page, '<div id="atlas-numbers"></div>', "".join(map(table_html, text.tables)))
    page = _fill(
        page, '<script type="application/json" id="atlas-figure"></script>', script_json(figure)
    )
    bundle = _CLOSE_SCRIPT.sub(lambda m: "<\\/" + m.group(0)[2:], plotly_js())
    return _fill(page, '<script id="atlas-plotly"></script>', bundle)


def standalone_html(chart: Chart | go.Figure, *, lang: str = "en") -> str:
    """``chart`` (a view's Chart or a plotly figure) as one standalone HTML page that opens
    offline, its words in ``lang`` ('en' or 'zh'). The chart's browser behaviours (hover links,
    drags) stay with the app; a played figure keeps plotly's own play controls."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; expected one of {sorted(LANGUAGES)}")
    figure = chart.figure if isinstance(chart, Chart) else chart
    with use_language(lang):
        text = chart_text(figure)
    return page_html(figure, text, HTML_LANG[lang])
