"""The lessons' reveal figures: a guess over the model's answer, and a class's answers beside the
model's weights (shares that sum to 1, labels shown literally, the marks where they belong)."""

from __future__ import annotations

import numpy as np
import pytest

from viz.lessons import CLASS_INK, GUESS, INK, class_bars, guess_bars


def test_class_bars_show_shares_beside_the_model():
    fig = class_bars(
        ["A", "<b>black</b>", "dog"],
        [1, 3, 0],
        1,
        title="t",
        class_name="the class",
        value_name="share",
        model_values=[0.1, 0.85, 0.05],
        model_name="the model",
        mine=2,
    )
    model, klass = fig.data
    assert model.marker.color == INK and klass.marker.color == CLASS_INK
    assert np.allclose(klass.x, [0.25, 0.75, 0.0]) and np.isclose(sum(klass.x), 1.0)
    assert list(klass.text) == ["1 · 25%", "3 · 75%", ""]  # no label on an empty bar
    ticks = list(fig.layout.yaxis.ticktext)
    assert "<b>&lt;b&gt;black&lt;/b&gt;</b>" in ticks[1]  # the model's choice bold, text literal
    assert GUESS in ticks[2] and "▶" in ticks[2]  # the viewer's own answer


def test_class_bars_without_model_weights_and_without_answers():
    fig = class_bars(["first", "second"], [0, 0], 0, title="t", class_name="c", value_name="v")
    assert len(fig.data) == 1 and list(fig.data[0].x) == [0.0, 0.0]


@pytest.mark.parametrize(("best", "mine"), [(3, None), (0, 5), (-1, None)])
def test_class_bars_refuse_marks_outside_the_options(best, mine):
    with pytest.raises(ValueError):
        class_bars(["a", "b"], [1, 1], best, title="t", class_name="c", value_name="v", mine=mine)


def test_guess_bars_mark_the_guess_and_the_answer():
    fig = guess_bars(["a", "b", "c"], [0.2, 0.7, 0.1], 0, 1, title="t", value_name="w")
    (bars,) = fig.data
    assert list(bars.marker.color).count(INK) == 1 and bars.marker.color[1] == INK
    assert bars.marker.line.color[0] == GUESS


NAMES = (
    "top left",
    "top",
    "top right",
    "left",
    "centre",
    "right",
    "bottom left",
    "bottom",
    "bottom right",
)


def test_the_scene_is_large_and_named_outside_the_picture():
    """The scene as large as its column allows (no fixed width, about 320 px high on a phone),
    its regions named beside and under the picture, never over its objects; before the reveal
    nothing is drawn over the picture but the thin lines between the regions."""
    from viz.lessons import region_figure

    image = np.full((224, 224, 3), 200, dtype=np.uint8)
    fig = region_figure(image, NAMES, 3, title="scene")
    assert fig.layout.width is None and fig.layout.height >= 380  # the figure's own height
    assert list(fig.layout.xaxis.ticktext) == ["left", "centre", "right"]
    assert list(fig.layout.yaxis.ticktext) == ["top", "centre", "bottom"]
    assert not fig.layout.annotations
    assert all(shape.line.width <= 1 for shape in fig.layout.shapes)


def test_the_reveal_keeps_the_objects_visible():
    """At the reveal the masses sit small in each region's corner (no label over the middle of a
    region, where its object stands), and a region the map leaves dark keeps most of its
    brightness; the guess and the model's top region are outlined."""
    from viz.lessons import region_figure

    image = np.full((224, 224, 3), 200, dtype=np.uint8)
    light = np.zeros((7, 7))
    light[0, 0] = 1.0
    masses = np.linspace(0, 1, 9)
    fig = region_figure(image, NAMES, 3, title="t", light=light, masses=masses, guess=1, best=8)
    cell = 224 / 3
    for note in fig.layout.annotations:
        x_in, y_in = note.x % cell, note.y % cell
        assert x_in < cell / 4 and y_in < cell / 4, (note.x, note.y)  # in a corner
    # the picture as the figure carries it: far from the map dimmed, still visible (at least
    # half its brightness), and darker than where the map is lit
    import base64
    import io

    from PIL import Image

    source = fig.layout.images[0].source
    shown = np.asarray(Image.open(io.BytesIO(base64.b64decode(source.partition(",")[2]))))
    dark, bright = shown[-20:, -20:].mean(), shown[:8, :8].mean()
    assert 0.5 * 200 <= dark < bright, (dark, bright)
    colours = [shape.line.color for shape in fig.layout.shapes]
    assert colours[1] == GUESS and colours[8] == INK


def test_class_bars_before_the_reveal_show_the_split_alone():
    fig = class_bars(
        ["a", "b", "c"], [1, 3, 0], None, title="t", class_name="c", value_name="v", mine=0
    )
    ticks = list(fig.layout.yaxis.ticktext)
    assert not any("<b>" in tick for tick in ticks)  # nothing says which is the model's
    assert "▶" in ticks[0] and list(fig.data[0].text) == ["1 · 25%", "3 · 75%", ""]
