"""Small schematic diagrams of the recurrent cells (pure plotly: boxes as shapes, labels and arrows
as annotations; no streamlit). Labels are symbols only (x_t, h_t, f_t, ⊙, +), so nothing here is
translated; the page writes the words around them.

Each diagram is drawn at a fixed minimum width (``layout.width``): ui/charts grows it with the
fonts in classroom mode and lets it scroll on a narrow screen, so boxes and labels keep their
proportions everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import plotly.graph_objects as go

from viz.figure import figure
from viz.measure import text_px
from viz.palette import (
    ARROW,
    BLUE,
    BLUISH_GREEN,
    GREY,
    PALE_BLUE,
    PALE_GREEN,
    PALE_VERMILLION,
    TEXT,
    VERMILLION,
    WHITE,
)

STYLES = {  # fill, line
    "input": (PALE_BLUE, BLUE),
    "state": (PALE_VERMILLION, VERMILLION),
    "gate": (PALE_GREEN, BLUISH_GREEN),
    "op": (WHITE, GREY),
    "text": (None, None),  # a label without a box ("…")
}
BOX_H_PX = 30  # a box's height
PAD_PX = 14  # room around a label inside its box
MARGIN = {"l": 10, "r": 10, "t": 10, "b": 10}


@dataclass(frozen=True)
class Node:
    """A labelled box centred at (x, y) in the diagram's units; label: plotly text (<sub> ok)."""

    key: str
    x: float
    y: float
    label: str
    style: str = "state"


@dataclass(frozen=True)
class Edge:
    """An arrow from node ``src`` to node ``dst``, with an optional small label at its middle."""

    src: str
    dst: str
    label: str = ""


def _plain(label: str) -> str:
    """The label without its tags, for estimating its width."""
    return re.sub(r"<[^>]+>", "", label)


def _half_px(node: Node) -> tuple[float, float]:
    """Half the box's width and height in px."""
    return max(text_px(_plain(node.label)) + PAD_PX, BOX_H_PX) / 2, BOX_H_PX / 2


@dataclass(frozen=True)
class _Frame:
    """Pixels per diagram unit on each axis and the ranges."""

    sx: float
    sy: float
    x_range: tuple[float, float]
    y_range: tuple[float, float]


def _x_pads(nodes: list[Node], plot_w: float) -> tuple[float, float]:
    """The room left and right of the outermost nodes' centres, in diagram units: 0.6, or more
    where a wide box would otherwise cross the plot's edge (a fixed point of the scale, which
    the pads change: three rounds settle it)."""
    lo, hi = min(n.x for n in nodes), max(n.x for n in nodes)
    left = right = 0.6
    for _ in range(3):
        sx = plot_w / (hi - lo + left + right)
        left = max(0.6, *((_half_px(n)[0] + 2) / sx - (n.x - lo) for n in nodes))
        right = max(0.6, *((_half_px(n)[0] + 2) / sx - (hi - n.x) for n in nodes))
    return left, right


def _frame(nodes: list[Node], width: int, height: int) -> _Frame:
    xs, ys = [n.x for n in nodes], [n.y for n in nodes]
    plot_w = width - MARGIN["l"] - MARGIN["r"]
    plot_h = height - MARGIN["t"] - MARGIN["b"]
    left, right = _x_pads(nodes, plot_w)
    x_range = (min(xs) - left, max(xs) + right)
    y_range = (min(ys) - 0.5, max(ys) + 0.5)
    return _Frame(
        plot_w / (x_range[1] - x_range[0]), plot_h / (y_range[1] - y_range[0]), x_range, y_range
    )


def _box(node: Node, frame: _Frame) -> tuple[dict | None, dict]:
    """(the rectangle shape or None, the label annotation) of one node."""
    fill, line = STYLES[node.style]
    hw, hh = _half_px(node)
    text = {
        "x": node.x,
        "y": node.y,
        "text": node.label,
        "showarrow": False,
        "font": {"size": 13, "color": TEXT},
    }
    if fill is None:
        return None, text
    shape = {
        "type": "rect" if node.style != "op" else "circle",
        "x0": node.x - hw / frame.sx,
        "x1": node.x + hw / frame.sx,
        "y0": node.y - hh / frame.sy,
        "y1": node.y + hh / frame.sy,
        "fillcolor": fill,
        "line": {"color": line, "width": 1.5},
        "layer": "below",
    }
    return shape, text


def _exit(node: Node, toward: tuple[float, float], frame: _Frame) -> tuple[float, float]:
    """Where the line from ``node``'s centre toward a point leaves its box (diagram units)."""
    dx, dy = (toward[0] - node.x) * frame.sx, (toward[1] - node.y) * frame.sy  # px
    hw, hh = _half_px(node) if node.style != "text" else (10.0, 8.0)
    t = min(hw / abs(dx) if dx else float("inf"), hh / abs(dy) if dy else float("inf"))
    t = min(t + 3 / max((dx * dx + dy * dy) ** 0.5, 1e-9), 1.0)  # a 3 px gap
    return node.x + t * dx / frame.sx, node.y + t * dy / frame.sy


def _arrow(edge: Edge, nodes: dict[str, Node], frame: _Frame) -> list[dict]:
    """The arrow annotation (and its label's) from ``edge.src`` to ``edge.dst``."""
    a, b = nodes[edge.src], nodes[edge.dst]
    x0, y0 = _exit(a, (b.x, b.y), frame)
    x1, y1 = _exit(b, (a.x, a.y), frame)
    arrow = {
        "x": x1,
        "y": y1,
        "ax": x0,
        "ay": y0,
        "xref": "x",
        "yref": "y",
        "axref": "x",
        "ayref": "y",
        "text": "",
        "showarrow": True,
        "arrowhead": 2,
        "arrowsize": 1.2,
        "arrowwidth": 1.4,
        "arrowcolor": ARROW,
    }
    if not edge.label:
        return [arrow]
    label = {
        "x": (x0 + x1) / 2,
        "y": (y0 + y1) / 2,
        "text": edge.label,
        "showarrow": False,
        "xshift": 9 if x0 == x1 else 0,
        "yshift": 9 if x0 != x1 else 0,
        "font": {"size": 12, "color": GREY},
    }
    return [arrow, label]


def diagram(nodes: list[Node], edges: list[Edge], *, width: int, height: int) -> go.Figure:
    """The boxes and arrows, ``width`` x ``height`` px at least; no axes, no hover, no zoom."""
    frame = _frame(nodes, width, height)
    by_key = {n.key: n for n in nodes}
    shapes, annotations = [], []
    for node in nodes:
        shape, text = _box(node, frame)
        if shape is not None:
            shapes.append(shape)
        annotations.append(text)
    for edge in edges:
        annotations.extend(_arrow(edge, by_key, frame))
    axis = {"visible": False, "fixedrange": True}
    layout = {
        "template": "plotly_white",
        "width": width,
        "height": height,
        "margin": MARGIN,
        "xaxis": axis | {"range": list(frame.x_range)},
        "yaxis": axis | {"range": list(frame.y_range)},
        "shapes": shapes,
        "annotations": annotations,
        "hovermode": False,
        "dragmode": False,
        "showlegend": False,
    }
    return figure({"data": [], "layout": layout})


# ---------------------------------------------------------------- the five diagrams


def _sub(symbol: str, index: str, sup: str = "") -> str:
    return f"{symbol}{f'<sup>{sup}</sup>' if sup else ''}<sub>{index}</sub>"


STEPS = ("t-1", "t", "t+1")


def _chain(prefix: str, y: float, symbol: str, label: str, *, sup: str = "", back=False) -> tuple:
    """Three states of one row, '…' on both ends, arrows in reading order labelled ``label``."""
    nodes = [Node(f"{prefix}{i}", i, y, _sub(symbol, s, sup)) for i, s in enumerate(STEPS)]
    nodes += [Node(f"{prefix}L", -0.8, y, "…", "text"), Node(f"{prefix}R", 2.8, y, "…", "text")]
    order = [f"{prefix}L", f"{prefix}0", f"{prefix}1", f"{prefix}2", f"{prefix}R"]
    if back:
        order.reverse()
    edges = [Edge(a, b, label) for a, b in zip(order, order[1:], strict=False)]
    return nodes, edges


def _inputs(y: float = 0.0) -> list[Node]:
    return [Node(f"x{i}", i, y, _sub("x", s), "input") for i, s in enumerate(STEPS)]


def rnn_diagram() -> go.Figure:
    """A plain RNN unrolled over three steps: x_t -U-> h_t, h_{t-1} -W-> h_t."""
    nodes, edges = _chain("h", 1.0, "h", "W")
    nodes += _inputs()
    edges += [Edge(f"x{i}", f"h{i}", "U") for i in range(3)]
    return diagram(nodes, edges, width=400, height=210)


def deep_rnn_diagram() -> go.Figure:
    """Two stacked layers: layer 1 reads x_t, layer 2 reads layer 1's h_t."""
    nodes, edges = _chain("a", 1.0, "h", "", sup="(1)")
    upper, upper_edges = _chain("b", 2.0, "h", "", sup="(2)")
    nodes += upper + _inputs()
    edges += upper_edges
    edges += [Edge(f"x{i}", f"a{i}") for i in range(3)] + [Edge(f"a{i}", f"b{i}") for i in range(3)]
    return diagram(nodes, edges, width=400, height=280)


def birnn_diagram() -> go.Figure:
    """Forward states under the inputs read left to right, backward states above read right to
    left; h_t = [→h_t; ←h_t]."""
    nodes, edges = _chain("f", 0.0, "→h", "")
    back, back_edges = _chain("b", 2.0, "←h", "", back=True)
    nodes += back + _inputs(1.0)
    edges += back_edges
    edges += [Edge(f"x{i}", f"f{i}") for i in range(3)] + [Edge(f"x{i}", f"b{i}") for i in range(3)]
    return diagram(nodes, edges, width=400, height=280)


def lstm_diagram() -> go.Figure:
    """One LSTM step: the cell line c_{t-1} -> ⊙ f_t -> + i_t ⊙ c~_t -> c_t, and h_t = o_t ⊙ tanh(c_t)."""
    nodes = [
        Node("c0", 0.0, 3.0, _sub("c", "t-1")),
        Node("mf", 1.5, 3.0, "⊙", "op"),
        Node("add", 3.0, 3.0, "+", "op"),
        Node("c1", 6.0, 3.0, _sub("c", "t")),
        Node("mi", 3.0, 2.1, "⊙", "op"),
        Node("tc", 4.5, 2.1, "tanh", "op"),
        Node("in", 0.0, 0.0, f"[{_sub('h', 't-1')}; {_sub('x', 't')}]", "input"),
        Node("f", 1.5, 1.2, _sub("f", "t"), "gate"),
        Node("i", 2.5, 1.2, _sub("i", "t"), "gate"),
        Node("g", 3.5, 1.2, _sub("c̃", "t"), "gate"),
        Node("o", 4.5, 1.2, _sub("o", "t"), "gate"),
        Node("mo", 5.5, 1.2, "⊙", "op"),
        Node("h1", 6.0, 0.0, _sub("h", "t")),
    ]
    edges = [Edge("c0", "mf"), Edge("mf", "add"), Edge("add", "c1"), Edge("mi", "add")]
    edges += [Edge("in", k) for k in ("f", "i", "g", "o")]
    edges += [Edge("f", "mf"), Edge("i", "mi"), Edge("g", "mi"), Edge("add", "tc")]
    edges += [Edge("tc", "mo"), Edge("o", "mo"), Edge("mo", "h1")]
    return diagram(nodes, edges, width=400, height=300)


def gru_diagram() -> go.Figure:
    """One GRU step: h_t = z_t ⊙ h_{t-1} + (1 - z_t) ⊙ h~_t, the candidate reading r_t."""
    nodes = [
        Node("h0", 0.0, 3.0, _sub("h", "t-1")),
        Node("mz", 2.0, 3.0, "⊙", "op"),
        Node("add", 4.0, 3.0, "+", "op"),
        Node("h1", 5.5, 3.0, _sub("h", "t")),
        Node("inv", 3.0, 2.0, "1−", "op"),
        Node("mh", 4.0, 2.0, "⊙", "op"),
        Node("in", 0.0, 0.0, f"[{_sub('h', 't-1')}; {_sub('x', 't')}]", "input"),
        Node("r", 3.0, 0.25, _sub("r", "t"), "gate"),
        Node("z", 2.0, 1.0, _sub("z", "t"), "gate"),
        Node("n", 4.0, 1.0, _sub("h̃", "t"), "gate"),
    ]
    edges = [Edge("h0", "mz"), Edge("mz", "add"), Edge("add", "h1"), Edge("mh", "add")]
    edges += [Edge("in", "r"), Edge("in", "z"), Edge("in", "n"), Edge("r", "n")]
    edges += [Edge("z", "mz"), Edge("z", "inv"), Edge("inv", "mh"), Edge("n", "mh")]
    return diagram(nodes, edges, width=400, height=300)


DIAGRAMS = {
    "rnn": rnn_diagram,
    "deep": deep_rnn_diagram,
    "birnn": birnn_diagram,
    "lstm": lstm_diagram,
    "gru": gru_diagram,
}
