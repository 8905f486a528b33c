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
from viz._checks import escape
from viz.axes import token_axis
from viz.behaviours import playing
from viz.measure import fitted_margin
from viz.palette import BLUE, TRANSPARENT, VERMILLION
from viz.play import PlayOptions, play_button, play_options, slider_steps

FLOOR = 0.22  # brightness kept where attention is zero
MARKER_COLOUR = VERMILLION
TITLE_PX = 50  # top margin for a chart's title (ui/charts scales it in classroom mode)
PLAYER_SLIDER_PX = 96  # under the player's picture: the shown word, the rail and the words
SUM_CELL_PX = 18  # a cell of the Σ_t α map where the column is wide enough (square cells)
SUM_TICK_EVERY = 5
BETA_ROW_PX = 20  # one word's bar in the β chart
BETA_GAP_PX = 64  # between two models' β panels: the upper one's x ticks, the lower one's name
BETA_HEAD_PX = 22  # above the first β panel: its model's name
BETA_COLOURS = (BLUE, VERMILLION)
WORD_MS = 700  # the player's time per word


def upsample(alpha: np.ndarray, size: int) -> np.ndarray:
    """(h, w) map -> (size, size), bicubic (smooth, like the paper's upsampled maps), >= 0."""
    arr = np.asarray(alpha, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"an attention map must be 2-D, got shape {arr.shape}")
    big = Image.fromarray(arr, mode="F").resize((size, size), Image.BICUBIC)
    return np.clip(np.asarray(big), 0.0, None)


def blend(
    image: np.ndarray, alpha: np.ndarray, size: int | None = None, floor: float = FLOOR
) -> np.ndarray:
    """The image lit by the upsampled map (max -> full brightness, 0 -> ``floor``): (size, size, 3)
    uint8."""
    size = size or image.shape[0]
    picture = np.asarray(
        Image.fromarray(image).resize((size, size), Image.LANCZOS), dtype=np.float32
    )
    light = upsample(alpha, size)
    light = light / light.max() if light.max() > 0 else light
    return (picture * (floor + (1 - floor) * light[..., None])).astype(np.uint8)


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
    """Axes showing a picture ``width`` x ``height`` at its aspect ratio, without ticks on y."""
    fig.update_xaxes(
        range=[0, width], showgrid=False, zeroline=False, constrain="domain", automargin=True
    )
    fig.update_yaxes(
        range=[height, 0],
        showgrid=False,
        zeroline=False,
        showticklabels=False,
        ticks="",
        scaleanchor="x",
        constrain="domain",
    )
    fig.update_layout(plot_bgcolor="white", paper_bgcolor="white")


def word_panels(
    image: np.ndarray, alphas: np.ndarray, words: list[str], *, panel: int = 112
) -> list[np.ndarray]:
    """One picture per word, ``panel`` px square: the image lit by that word's alpha (T, h, w),
    as in the paper's Fig. 2-3. The page shows them as a list of images with the words under
    them (``st.image``), which wraps into rows on any screen instead of running off sideways."""
    arr = _check(alphas, words)
    return [blend(image, arr[t], panel) for t in range(len(words))]


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
            "color": TRANSPARENT,
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
    fig.update_xaxes(showticklabels=False, ticks="")
    margin = {"l": 10, "r": 10, "t": TITLE_PX, "b": PLAYER_SLIDER_PX}
    fig.update_layout(
        title={"text": title},
        margin=margin,
        height=size + margin["t"] + margin["b"],
        showlegend=False,
        **_player_controls(escape([f"{t + 1}. {w}" for t, w in enumerate(words)])),
    )
    return fig


def _player_controls(words: list[str]) -> dict:
    """Layout entries for the word slider under the picture (the shown word written above its
    rail) and the play button in the top right corner, clear of the centred title."""
    slider = {
        "steps": slider_steps(words),
        "active": 0,
        "currentvalue": {"prefix": _("word: ")},
        "x": 0,
        "len": 1,
        "y": 0,
        "yanchor": "top",
        "pad": {"t": 8, "b": 0},
    }
    button = {
        "type": "buttons",
        "buttons": [play_button(_("▶ play"), WORD_MS)],
        "x": 1,
        "y": 1,
        "xanchor": "right",
        "yanchor": "bottom",
        "pad": {"b": 4},
        "showactive": False,
    }
    return {"sliders": [slider], "updatemenus": [button]}


def player_play() -> PlayOptions:
    """The chart component's play options for :func:`attention_player_figure`: one word every
    WORD_MS, each word's picture crossfading into the next and the sampled cells fading out and
    in (a circle does not travel from one word's cell to the next's); its play button pauses
    while it plays."""
    return play_options(seconds_per_frame=WORD_MS / 1000, fade=True, pause_label=_("❚❚ pause"))


# the attention player with its play options, as the Image captions page shows it
attention_player_chart = playing(attention_player_figure, player_play)


def alpha_sum_figure(alpha_sum: np.ndarray, *, title: str = "") -> go.Figure:
    """The map of sum_t alpha_ti (the doubly stochastic penalty pushes each cell towards 1); rows
    and columns numbered every ``SUM_TICK_EVERY`` cells (they are grid cells, not tokens)."""
    arr = np.asarray(alpha_sum, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"sum of alphas must be 2-D, got shape {arr.shape}")
    rows, cols = arr.shape
    line = _("cell ({row}, {col})<br>Σ_t α = {value:.3f}")
    text = [[line.format(row=r, col=c, value=arr[r, c]) for c in range(cols)] for r in range(rows)]
    fig = go.Figure(
        go.Heatmap(
            z=arr,
            text=text,
            hoverinfo="text",
            colorscale="Viridis",
            zmin=0,
            colorbar={"title": {"text": "Σ_t α"}},
        )
    )
    xs, ys = list(range(0, cols, SUM_TICK_EVERY)), list(range(0, rows, SUM_TICK_EVERY))
    margin, __ = fitted_margin([str(x) for x in xs], [str(y) for y in ys], colorbar_title="Σ_t α")
    margin["t"] = TITLE_PX
    fig.update_xaxes(
        tickmode="array",
        tickvals=xs,
        tickangle=0,
        title=_("grid column"),
        constrain="domain",
        automargin=True,
    )
    fig.update_yaxes(
        tickmode="array",
        tickvals=ys,
        title=_("grid row"),
        autorange="reversed",
        scaleanchor="x",
        constrain="domain",
        automargin=True,
    )
    side = max(rows, cols) * SUM_CELL_PX
    fig.update_layout(
        title={"text": title},
        margin=margin,
        height=side + margin["t"] + margin["b"],
    )
    return fig


def beta_figure(series: dict[str, tuple[list[str], np.ndarray]], *, title: str = "") -> go.Figure:
    """The gate beta_t per word, one panel of horizontal bars per model, stacked, each with its
    own words down its y axis (the models' captions differ): {name: (words, betas (T,))}."""
    fig = go.Figure()
    labels = {}
    for name, (words, betas) in series.items():
        b = np.asarray(betas, dtype=float)
        if b.shape != (len(words),):
            raise ValueError(f"{name}: {b.shape[0] if b.ndim else 0} betas for {len(words)} words")
        labels[name] = escape([f"{t + 1}. {w}" for t, w in enumerate(words)])
    rows = [max(1, len(v)) for v in labels.values()]
    plot_px = sum(rows) * BETA_ROW_PX + BETA_GAP_PX * (len(rows) - 1)
    margin, __ = fitted_margin(["0.5"], [x for v in labels.values() for x in v], y_title=False)
    margin |= {"t": TITLE_PX + BETA_HEAD_PX}
    top = 1.0
    for i, (name, (__, betas)) in enumerate(series.items()):
        suffix = "" if i == 0 else str(i + 1)
        bottom = top - rows[i] * BETA_ROW_PX / plot_px
        _beta_panel(fig, escape([name])[0], labels[name], betas, suffix, (bottom, top))
        top = bottom - BETA_GAP_PX / plot_px
    fig.update_layout(
        title={"text": title},
        margin=margin,
        height=plot_px + margin["t"] + margin["b"],
        showlegend=False,
        bargap=0.25,
    )
    return fig


def _beta_panel(
    fig: go.Figure,
    name: str,
    labels: list[str],
    betas: np.ndarray,
    suffix: str,
    domain: tuple[float, float],
) -> None:
    """One model's bars on axes x<suffix>/y<suffix> filling ``domain`` (paper y), its name above."""
    n = len(labels)
    colour = BETA_COLOURS[(int(suffix or 1) - 1) % len(BETA_COLOURS)]
    fig.add_trace(
        go.Bar(
            x=np.asarray(betas, dtype=float),
            y=list(range(n)),
            orientation="h",
            name=name,
            marker_color=colour,
            xaxis=f"x{suffix}",
            yaxis=f"y{suffix}",
            customdata=labels,
            hovertemplate="%{customdata}<br>β = %{x:.3f}<extra>" + name + "</extra>",
        )
    )
    fig.update_layout(
        {
            f"xaxis{suffix}": {
                "range": [0, 1],
                "anchor": f"y{suffix}",
                "tickvals": [0, 0.5, 1],
                "title": {"text": "β"} if domain[0] <= 0 else None,
                "automargin": True,
            },
            f"yaxis{suffix}": token_axis(
                labels,
                domain=[max(0.0, domain[0]), domain[1]],
                anchor=f"x{suffix}",
                range=[n - 0.5, -0.5],
                automargin=True,
            ),
        }
    )
    fig.add_annotation(
        text=f"<b>{name}</b>",
        x=0,
        xref="paper",
        xanchor="left",
        y=domain[1],
        yref="paper",
        yanchor="bottom",
        yshift=4,
        showarrow=False,
    )
