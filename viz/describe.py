"""Every chart in words: its name, a short summary written from the same numbers it draws, and
those numbers as tables, for a screen reader and for anyone who reads better than they see
(WCAG 1.1.1). ``chart_text(figure)`` reads a plotly figure (a ``go.Figure`` or its dict):

- a heatmap: for each row, where its largest values are (an alignment's rows: "when the model
  writes noir, most weight is on black (0.96), then dog (0.02)"); a square map of tokens over the
  same tokens (a head): how much weight each row keeps on itself and on the token before;
- bars: the largest and the rest, per series;
- lines and markers: where each series starts, ends and peaks;
- an image: nothing numeric (its builder says what it shows).

A builder that knows better says so in the figure's ``layout.meta``: ``{"atlas": {"name": ...,
"summary": ..., "tables": [{caption, columns, rows}]}}`` replaces the generic name, summary or
tables (translated text), and ``"row"`` (a message id with {row}, {first}, {v1}, {second},
{v2}) words a heatmap's rows in its own terms. viz.head_words words many heads at once. Tables are cut at
TABLE_ROWS x TABLE_COLUMNS with the rest counted; the CSV download holds every number.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from i18n import N_, _

TABLE_ROWS, TABLE_COLUMNS = 40, 24  # a table larger than this is cut (the rest counted)
SUMMARY_ROWS = 6  # rows of a heatmap told in the summary (the rest counted)
_TAG = re.compile(r"<[^>]*>")
ROW_LINE = N_("“{row}”: most on “{first}” ({v1}), then “{second}” ({v2}).")


@dataclass(frozen=True)
class Table:
    """One table of a chart's numbers: a caption, the column headers, the rows (all text), and
    how many rows and columns were left out."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    more_rows: int = 0
    more_columns: int = 0


@dataclass(frozen=True)
class ChartText:
    """A chart's accessible name, its summary in words, and its numbers as tables."""

    name: str
    summary: str
    tables: tuple[Table, ...] = field(default_factory=tuple)

    def payload(self) -> dict:
        """Plain JSON for the chart component (chart.js's describe behaviour)."""
        return {
            "name": self.name,
            "summary": self.summary,
            "tables": [
                {
                    "caption": t.caption,
                    "columns": list(t.columns),
                    "rows": [list(r) for r in t.rows],
                    "more_rows": t.more_rows,
                    "more_columns": t.more_columns,
                }
                for t in self.tables
            ],
        }


def number(value: object) -> str:
    """A number as the summaries and tables write it: 2 decimals in [-1, 1], else 3 digits."""
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)
    if not np.isfinite(v):
        return "—"
    if abs(v) <= 1:
        return f"{v:.2f}"
    return f"{int(v):,}" if v == int(v) else f"{v:.3g}"


def _text(value: object) -> str:
    """A title or label as plain text: plotly's rich-text tags (<br>, <b>, <span ...>) taken out,
    its entities (&lt; for a typed <) read back; the component sets it as text, never HTML."""
    if isinstance(value, dict):
        value = value.get("text")
    text = _TAG.sub(" ", str(value if value is not None else ""))
    return " ".join(html.unescape(text).split())


def array(value: object) -> np.ndarray | None:
    """A trace's numbers as numpy: a list, or plotly's typed-array form ``{dtype, bdata,
    shape}`` (base64); None for anything else (text labels included)."""
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = tuple(int(n) for n in shape.split(","))
        return data.reshape(shape) if shape else data
    if value is None or isinstance(value, (dict, str)):
        return None
    try:
        return np.array(value, dtype=float)
    except (TypeError, ValueError):
        return None


def _plain(value: object) -> list:
    """A list from a plain list or a typed array (empty for anything else)."""
    decoded = array(value) if isinstance(value, dict) else None
    if decoded is not None:
        return decoded.reshape(-1).tolist()
    return list(value) if isinstance(value, (list, tuple)) else []


def _axis_labels(layout: dict, trace: dict, letter: str, n: int) -> list[str]:
    """n labels along a trace's x or y axis: the axis's tick texts where it names positions
    (tickvals -> ticktext, as the token maps draw them), else the trace's own values, else
    0..n-1."""
    values = trace.get(letter)
    decoded = array(values)
    if decoded is None and isinstance(values, (list, tuple)) and len(values) == n:
        return [_text(v) or str(i) for i, v in enumerate(values)]
    anchor = str(trace.get(f"{letter}axis") or letter)
    axis = layout.get(f"{letter}axis{anchor[1:]}") or {}
    ticks = {
        float(v): t
        for v, t in zip(_plain(axis.get("tickvals")), _plain(axis.get("ticktext")), strict=False)
        if isinstance(v, (int, float))
    }
    positions = decoded.reshape(-1).tolist() if decoded is not None else list(range(n))
    if len(positions) != n:
        positions = list(range(n))
    return [_text(ticks.get(float(p), _position(p))) for p in positions]


def _position(value: object) -> str:
    """A position on a numeric axis: 3, not 3.00."""
    v = float(value)  # type: ignore[arg-type]
    return str(int(v)) if v.is_integer() else number(v)


def _tokens(labels: list[str]) -> bool:
    """Whether an axis's labels are words (tokens), not numbers (positions, dimensions)."""

    def numeric(label: str) -> bool:
        try:
            float(label.replace(",", ""))
        except ValueError:
            return False
        return True

    return any(not numeric(label) for label in labels)


def _z(trace: dict) -> np.ndarray | None:
    z = array(trace.get("z"))
    return z.astype(float) if z is not None and z.ndim == 2 and z.size else None


def _row_line(row: str, cols: list[str], values: np.ndarray, line: str = ROW_LINE) -> str:
    """One row of a heatmap in words: its two largest cells (``line``: the message id)."""
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf))
    first = order[0]
    if len(order) == 1:
        return _("“{row}”: “{first}” ({v1}).").format(
            row=row, first=cols[first], v1=number(values[first])
        )
    second = order[1]
    return _(line).format(
        row=row,
        first=cols[first],
        v1=number(values[first]),
        second=cols[second],
        v2=number(values[second]),
    )


def _square_line(rows: list[str], z: np.ndarray) -> str:
    """A map of tokens over the same tokens (self-attention): weight on itself, on the token
    before, and the most looked-at token."""
    n = z.shape[0]
    itself = float(np.mean(np.diag(z)))
    before = float(np.mean(np.diag(z, k=-1))) if n > 1 else 0.0
    top = int(np.argmax(z.sum(axis=0)))
    return _(
        "Each row keeps on average {itself} of its weight on itself and {before} on the token "
        "before; the token given most weight in all is “{top}”."
    ).format(itself=number(itself), before=number(before), top=rows[top])


def _heatmap(layout: dict, trace: dict, z: np.ndarray, line: str) -> str:
    rows = _axis_labels(layout, trace, "y", z.shape[0])
    cols = _axis_labels(layout, trace, "x", z.shape[1])
    if not _tokens(cols):  # positions, dimensions, an image's cells: where the extremes are
        return _extremes(rows, cols, z)
    weights = bool(np.nanmin(z) >= 0 and np.nanmax(z) <= 1)
    if weights and z.shape[0] == z.shape[1] and rows == cols and z.shape[0] > 2:
        return _square_line(rows, z)
    lines = [_row_line(rows[i], cols, z[i], line) for i in range(min(SUMMARY_ROWS, z.shape[0]))]
    if z.shape[0] > SUMMARY_ROWS:
        lines.append(_("And {n} more rows, in the table.").format(n=z.shape[0] - SUMMARY_ROWS))
    return " ".join(lines)


def _extremes(rows: list[str], cols: list[str], z: np.ndarray) -> str:
    """A map over numbered rows and columns in words: its largest and smallest cells, its mean."""
    filled = np.nan_to_num(z, nan=np.nanmean(z) if np.isfinite(z).any() else 0.0)
    hi = np.unravel_index(int(np.argmax(filled)), z.shape)
    lo = np.unravel_index(int(np.argmin(filled)), z.shape)
    return _(
        "{n} rows by {m} columns: largest {hi} at row {hi_row}, column {hi_col}; smallest {lo} "
        "at row {lo_row}, column {lo_col}; mean {mean}."
    ).format(
        n=z.shape[0],
        m=z.shape[1],
        hi=number(z[hi]),
        hi_row=rows[hi[0]],
        hi_col=cols[hi[1]],
        lo=number(z[lo]),
        lo_row=rows[lo[0]],
        lo_col=cols[lo[1]],
        mean=number(float(np.nanmean(z))),
    )


def _histogram(trace: dict) -> str | None:
    """A histogram's sample in words: how many values, their range and mean."""
    values = array(trace.get("x") if trace.get("x") is not None else trace.get("y"))
    if values is None or not values.size:
        return None
    values = values.reshape(-1).astype(float)
    name = _text(trace.get("name"))
    text = _("{n} values from {lo} to {hi}, mean {mean}").format(
        n=f"{values.size:,}",
        lo=number(values.min()),
        hi=number(values.max()),
        mean=number(values.mean()),
    )
    return f"{name}: {text}." if name else f"{text}."


def _points(layout: dict, trace: dict) -> tuple[list[str], np.ndarray] | None:
    """(labels, values) of a bar or line trace along its value axis; None without numbers."""
    value_axis, label_axis = ("x", "y") if trace.get("orientation") == "h" else ("y", "x")
    values = array(trace.get(value_axis))
    if values is None or not values.size:
        return None
    values = values.reshape(-1).astype(float)
    if not np.isfinite(values).any():
        return None
    return _axis_labels(layout, trace, label_axis, values.size), values


def _bars(trace: dict, labels: list[str], values: np.ndarray) -> str:
    name = _text(trace.get("name"))
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf))
    shown = ", ".join(f"“{labels[i]}” {number(values[i])}" for i in order[:4])
    more = len(order) - 4
    text = shown if more <= 0 else _("{shown} and {n} more").format(shown=shown, n=more)
    return f"{name}: {text}." if name else _("Largest first: {text}.").format(text=text)


def _line(trace: dict, labels: list[str], values: np.ndarray) -> str:
    name = _text(trace.get("name")) or _("the line")
    finite = np.where(np.isfinite(values))[0]
    first, last = finite[0], finite[-1]
    peak = finite[int(np.argmax(values[finite]))]
    return _("{name}: from {v0} at {x0} to {v1} at {x1}, highest {vmax} at {xmax}.").format(
        name=name,
        v0=number(values[first]),
        x0=labels[first],
        v1=number(values[last]),
        x1=labels[last],
        vmax=number(values[peak]),
        xmax=labels[peak],
    )


def _table(caption: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
    kept_columns = list(columns)[: TABLE_COLUMNS + 1]
    kept = [tuple(r[: TABLE_COLUMNS + 1]) for r in rows[:TABLE_ROWS]]
    return Table(
        caption,
        tuple(kept_columns),
        tuple(kept),
        more_rows=max(len(rows) - TABLE_ROWS, 0),
        more_columns=max(len(columns) - 1 - TABLE_COLUMNS, 0),
    )


def _heatmap_table(caption: str, layout: dict, trace: dict, z: np.ndarray) -> Table:
    rows = _axis_labels(layout, trace, "y", z.shape[0])
    cols = _axis_labels(layout, trace, "x", z.shape[1])
    body = [[rows[i], *(number(v) for v in z[i])] for i in range(z.shape[0])]
    return _table(caption, ["", *cols], body)


def _points_table(caption: str, labels: list[str], values: np.ndarray, name: str) -> Table:
    return _table(
        caption,
        ["", name or _("value")],
        [[lab, number(v)] for lab, v in zip(labels, values, strict=True)],
    )


def _named_by_layout(layout: dict) -> str:
    """A name for a figure without a title: its panels' titles (annotations), else its axes'."""
    notes = [_text(a.get("text")) for a in layout.get("annotations") or [] if isinstance(a, dict)]
    notes = [n for n in notes if n and len(n) < 80][:3]
    if notes:
        return " · ".join(notes)
    x, y = (
        _text((layout.get("xaxis") or {}).get("title")),
        _text((layout.get("yaxis") or {}).get("title")),
    )
    if x and y:
        return _("{y} by {x}").format(y=y, x=x)
    return x or y


def chart_text(figure: object) -> ChartText:
    """The words for ``figure`` (a plotly Figure or its dict), in the current language."""
    spec = figure.to_dict() if hasattr(figure, "to_dict") else dict(figure)  # type: ignore[arg-type]
    layout = spec.get("layout") or {}
    given = ((layout.get("meta") or {}) if isinstance(layout.get("meta"), dict) else {}).get(
        "atlas", {}
    )
    title = _text(layout.get("title"))
    lines: list[str] = []
    tables: list[Table] = []
    names: list[str] = []
    for number_, trace in enumerate(spec.get("data") or [], start=1):
        trace_type = trace.get("type") or "scatter"
        caption = _text(trace.get("name")) or title or _("Series {n}").format(n=number_)
        if trace_type == "heatmap" and (z := _z(trace)) is not None:
            lines.append(_heatmap(layout, trace, z, given.get("row") or ROW_LINE))
            tables.append(_heatmap_table(caption, layout, trace, z))
        elif trace_type == "histogram" and (said := _histogram(trace)) is not None:
            lines.append(said)
        elif trace_type in ("bar", "scatter") and (found := _points(layout, trace)) is not None:
            labels, values = found
            lines.append(
                _bars(trace, labels, values)
                if trace_type == "bar"
                else _line(trace, labels, values)
            )
            tables.append(_points_table(caption, labels, values, _text(trace.get("name"))))
        if _text(trace.get("name")):
            names.append(_text(trace.get("name")))
    if given.get("tables"):
        tables = [
            Table(t["caption"], tuple(t["columns"]), tuple(map(tuple, t["rows"])))
            for t in given["tables"]
        ]
    name = (
        given.get("name") or title or _named_by_layout(layout) or " · ".join(dict.fromkeys(names))
    )
    name = name or _("A chart")
    summary = given.get("summary") or " ".join(lines) or _("A picture without numbers to read out.")
    return ChartText(name, summary, tuple(tables))


def matrix_words(
    z: np.ndarray, rows: Sequence[str], columns: Sequence[str], line: str = ROW_LINE
) -> dict:
    """A matrix drawn some other way than as a heatmap (lines between two columns of tokens) in
    words, for a figure's ``layout.meta["atlas"]``: its rows' largest cells and its table."""
    z = np.asarray(z, dtype=float)
    trace = {"z": z.tolist(), "x": [_text(c) for c in columns], "y": [_text(r) for r in rows]}
    table = _heatmap_table("", {}, trace, z)
    return {
        "summary": _heatmap({}, trace, z, line),
        "tables": [
            {"caption": "", "columns": list(table.columns), "rows": [list(r) for r in table.rows]}
        ],
    }
