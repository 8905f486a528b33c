"""``ui.once``: a value made once for every session (per arguments, language, screen mode and
device), the messages shown on the way shown again with it, and None never kept."""

from __future__ import annotations

import itertools

import streamlit as st
from streamlit.testing.v1 import AppTest

from ui.once import once

CALLS: list[tuple] = []
_fresh = itertools.count()


@once
def made(tag: str, *, fail: bool = False) -> dict | None:
    """What a step's view does: a message on the way, then a value (or None: a missing model)."""
    CALLS.append((tag, fail))
    st.info(f"cut: {tag}")
    return None if fail else {"tag": tag, "made": len(CALLS)}


def _page(tag: str, fail: bool = False, classroom: bool = False) -> AppTest:
    def script(tag: str, fail: bool, classroom: bool) -> None:
        import streamlit as st

        from tests.test_once import made
        from ui.sidebar import CLASSROOM_KEY

        st.session_state[CLASSROOM_KEY] = classroom
        value = made(tag, fail=fail)
        st.write("none" if value is None else f"made {value['made']}")

    at = AppTest.from_function(script, kwargs={"tag": tag, "fail": fail, "classroom": classroom})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at: AppTest) -> tuple[list[str], list[str]]:
    return [str(e.value) for e in at.info], [str(e.value) for e in at.markdown]


def test_a_value_is_made_once_for_every_session_and_its_messages_shown_to_each():
    tag = f"step-{next(_fresh)}"
    first = _page(tag)
    second = _page(tag)
    assert [c for c in CALLS if c[0] == tag] == [(tag, False)]  # one run for both sessions
    assert _shown(first) == _shown(second)
    infos, lines = _shown(second)
    assert infos == [f"cut: {tag}"]  # the second session sees the first's message too
    assert len(lines) == 1 and lines[0].startswith("made ")


def test_none_is_not_kept_so_a_later_session_tries_again():
    tag = f"step-{next(_fresh)}"
    _page(tag, fail=True)
    again = _page(tag, fail=True)
    assert [c for c in CALLS if c[0] == tag] == [(tag, True), (tag, True)]
    assert _shown(again) == ([f"cut: {tag}"], ["none"])


def test_the_screen_mode_keys_the_value():
    tag = f"step-{next(_fresh)}"
    _page(tag, classroom=False)
    _page(tag, classroom=True)
    _page(tag, classroom=True)
    assert len([c for c in CALLS if c[0] == tag]) == 2


def test_a_prepared_chart_stays_whole_when_sent_to_many_sessions():
    import plotly.graph_objects as go

    from ui.charts import prepare_chart

    fig = go.Figure(go.Heatmap(z=[[0.2, 0.8]], x=["a", "b"], y=["c"]))
    fig.update_layout(width=2400, title="wide")
    prepared = prepare_chart(fig)
    layout = dict(prepared.spec["layout"])
    data = prepared.component_data()
    assert prepared.component_data() is data  # made once
    assert prepared.spec["layout"] == layout  # the width and the template stay for the next one
    assert b'"minWidth":2400' in data


def test_an_argument_keyed_by_its_address_is_refused():
    import pytest

    class Opaque:
        pass

    @once
    def by_address(thing: object) -> int:
        return 1

    with pytest.raises(TypeError, match="repr does not say its value"):
        by_address(Opaque())
