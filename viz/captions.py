"""Figures for Show, Attend and Tell: per-word attention over an image, sampled locations, sum and gate.

Attention maps are 14 x 14; as in the paper's figures (Xu et al. 2015, Fig. 2-3) they are upsampled
smoothly to the image size and laid over the image: the picture stays bright where alpha is high and
dims where it is low. The pictures travel as JPEG data URIs (a few kB each) rather than as pixel
arrays, and a transparent 14 x 14 heatmap on top gives the hover text (word, cell, alpha).
Pure numpy + Pillow + plotly: no streamlit, no torch.
"""

from __future__ import annotations

import base64
import io
from collections import Counter

import numpy as np
import plotly.graph_objects as go
from PIL import Image

from i18n import _

FLOOR = 0.22  # brightness kept where attention is zero
MARKER_COLOUR = "#D55E00"


def upsample(alpha: np.ndarray, size: int) -> np.ndarray:
    """(h, w) map -> (size, size), bicubic (smooth, like the paper's upsampled maps), >= 0."""
    arr = np.asarray(alpha, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"an attention map must be 2-D, got shape {arr.shape}")
    big = Image.fromarray(arr, mode="F").resize((size, size), Image.BICUBIC)
    return np.clip(np.asarray(big), 0.0, None)


def blend(image: np.ndarray, alpha: np.ndarray, size: int | None = None) -> np.ndarray:
    """The image lit by the upsampled map (max -> full brightness, 0 -> FLOOR): (size, size, 3) uint8."""
    size = size or image.shape[0]
    picture = np.asarray(
        Image.fromarray(image).resize((size, size), Image.LANCZOS), dtype=np.float32
    )
    light = upsample(alpha, size)
    light = light / light.max() if light.max() > 0 else light
    return (picture * (FLOOR + (1 - FLOOR) * light[..., None])).astype(np.uint8)


def data_uri(pixels: np.ndarray) -> str:
    """A JPEG data URI of a uint8 RGB array (a tenth of a PNG's size for these pictures)."""
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG", quality=88)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode()


def _check(alphas: np.ndarray, words: list[str]) -> np.ndarray:
    arr = np.asarray(alphas, dtype=float)
    if arr.ndim != 3 or arr.shape[0] != len(words):
        raise ValueError(f"alphas have shape {arr.shape} but there are {len(words)} words")
    return arr


def _hover_heatmap(alpha: np.ndarray, word: str, x0: float, cell: float) -> go.Heatmap:
    """A transparent heatmap over one panel: hover shows the word, the cell and alpha."""
    g = alpha.shape[0]
    line = _("{word}<br>cell ({row}, {col})<br>α = {alpha:.3f}")
    text = [
        [line.format(word=word, row=r, col=c, alpha=alpha[r, c]) for c in range(g)]
        for r in range(g)
    ]
    return go.Heatmap(
        z=alpha,
        x=x0 + (np.arange(g) + 0.5) * cell,
        y=(np.arange(g) + 0.5) * cell,
        text=text,
        hoverinfo="text",
        opacity=0.0,
        showscale=False,
        name=word,
    )


def _image_axes(fig: go.Figure, width: float, height: float) -> None:
    fig.update_xaxes(range=[0, width], showgrid=False, zeroline=False, constrain="domain")
    fig.update_yaxes(
        range=[height, 0],
        showgrid=False,
        zeroline=False,
        showticklabels=False,
        scaleanchor="x",
        constrain="domain",
    )
    fig.update_layout(
        margin={"l": 10, "r": 10, "t": 40, "b": 40}, plot_bgcolor="white", paper_bgcolor="white"
    )


def word_strip_figure(
    image: np.ndarray, alphas: np.ndarray, words: list[str], *, panel: int = 112, title: str = ""
) -> go.Figure:
    """One panel per word, side by side, each the image lit by that word's alpha (T, h, w)."""
    arr = _check(alphas, words)
    gap = 6
    width = max(1, len(words)) * (panel + gap)
    strip = np.full((panel, width, 3), 255, dtype=np.uint8)
    fig = go.Figure()
    for t, word in enumerate(words):
        strip[:, t * (panel + gap) : t * (panel + gap) + panel] = blend(image, arr[t], panel)
        fig.add_trace(_hover_heatmap(arr[t], word, t * (panel + gap), panel / arr.shape[1]))
    fig.add_trace(go.Image(source=data_uri(strip), x0=0, y0=0, dx=1, dy=1, hoverinfo="skip"))
    fig.data = (fig.data[-1], *fig.data[:-1])  # picture below the hover layers
    ticks = [t * (panel + gap) + panel / 2 for t in range(len(words))]
    _image_axes(fig, width, panel)
    fig.update_xaxes(tickvals=ticks, ticktext=list(words), side="bottom", showticklabels=True)
    fig.update_layout(title=title, height=panel + 110, showlegend=False)
    return fig


def location_counts(locations: np.ndarray, grid: int) -> list[tuple[int, int, int]]:
    """(row, col, how many samples) for each distinct sampled cell of one word; locations (N,)."""
    counts = Counter(int(x) for x in np.asarray(locations).ravel())
    return [(loc // grid, loc % grid, n) for loc, n in sorted(counts.items())]


def _markers(locations: np.ndarray | None, t: int, grid: int, cell: float) -> go.Scatter:
    """Hard attention's sampled cells for word t as circles sized by their count."""
    rows = (
        location_counts(locations[:, t], grid) if locations is not None and locations.size else []
    )
    n = locations.shape[0] if locations is not None else 0
    return go.Scatter(
        x=[(c + 0.5) * cell for __, c, __ in rows],
        y=[(r + 0.5) * cell for r, __, __ in rows],
        mode="markers",
        name=_("sampled locations"),
        marker={
            "size": [10 + 30 * (k / max(1, n)) ** 0.5 for __, __, k in rows],
            "color": "rgba(0,0,0,0)",
            "line": {"color": MARKER_COLOUR, "width": 3},
        },
        text=[
            _("cell ({row}, {col}): {k} of {n} samples").format(row=r, col=c, k=k, n=n)
            for r, c, k in rows
        ],
        hoverinfo="text",
    )


def attention_player_figure(
    image: np.ndarray,
    alphas: np.ndarray,
    words: list[str],
    *,
    locations: np.ndarray | None = None,
    size: int = 280,
    title: str = "",
) -> go.Figure:
    """One large panel with a word slider and a play button (plotly frames); with ``locations``
    (N, T) the hard model's sampled cells for the shown word are drawn as markers."""
    arr = _check(alphas, words)
    if locations is not None and locations.size and locations.shape[1] != len(words):
        raise ValueError(f"locations cover {locations.shape[1]} words but there are {len(words)}")
    cell = size / arr.shape[1]

    def traces(t: int) -> list:
        pic = go.Image(source=data_uri(blend(image, arr[t], size)), hoverinfo="skip")
        return [
            pic,
            _hover_heatmap(arr[t], words[t], 0, cell),
            _markers(locations, t, arr.shape[1], cell),
        ]

    fig = go.Figure(data=traces(0) if words else [])
    fig.frames = [go.Frame(data=traces(t), name=str(t)) for t in range(len(words))]
    _image_axes(fig, size, size)
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(title=title, height=size + 170, showlegend=False, **_player_controls(words))
    return fig


def _player_controls(words: list[str]) -> dict:
    """Layout entries for the word slider and the play button that drive the player's frames."""
    steps = [
        {
            "label": w,
            "method": "animate",
            "args": [[str(t)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}],
        }
        for t, w in enumerate(words)
    ]
    play = {
        "label": _("▶ play"),
        "method": "animate",
        "args": [None, {"frame": {"duration": 700, "redraw": True}, "fromcurrent": True}],
    }
    return {
        "sliders": [
            {"steps": steps, "active": 0, "currentvalue": {"prefix": _("word: ")}, "pad": {"t": 10}}
        ],
        "updatemenus": [
            {
                "type": "buttons",
                "buttons": [play],
                "x": 0,
                "y": -0.02,
                "xanchor": "left",
                "yanchor": "top",
                "direction": "left",
                "showactive": False,
            }
        ],
    }


def alpha_sum_figure(alpha_sum: np.ndarray, *, title: str = "") -> go.Figure:
    """The map of sum_t alpha_ti (the doubly stochastic penalty pushes each cell towards 1)."""
    arr = np.asarray(alpha_sum, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"sum of alphas must be 2-D, got shape {arr.shape}")
    line = _("cell ({row}, {col})<br>Σ_t α = {value:.3f}")
    text = [
        [line.format(row=r, col=c, value=arr[r, c]) for c in range(arr.shape[1])]
        for r in range(arr.shape[0])
    ]
    fig = go.Figure(
        go.Heatmap(
            z=arr,
            text=text,
            hoverinfo="text",
            colorscale="Viridis",
            zmin=0,
            colorbar={"title": "Σ_t α"},
        )
    )
    fig.update_yaxes(autorange="reversed", scaleanchor="x")
    fig.update_layout(title=title, height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


def beta_figure(series: dict[str, tuple[list[str], np.ndarray]], *, title: str = "") -> go.Figure:
    """The gate beta_t per word, one bar series per model: {name: (words, betas (T,))}."""
    fig = go.Figure()
    for name, (words, betas) in series.items():
        b = np.asarray(betas, dtype=float)
        if b.shape != (len(words),):
            raise ValueError(f"{name}: {b.shape[0] if b.ndim else 0} betas for {len(words)} words")
        labels = [f"{t + 1}. {w}" for t, w in enumerate(words)]
        fig.add_trace(
            go.Bar(
                x=labels,
                y=b,
                name=name,
                hovertemplate="%{x}<br>β = %{y:.3f}<extra>" + name + "</extra>",
            )
        )
    fig.update_layout(
        title=title,
        barmode="group",
        height=320,
        yaxis={"range": [0, 1], "title": "β"},
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
    )
    return fig
