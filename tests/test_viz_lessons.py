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
