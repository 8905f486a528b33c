"""A fragment that reruns on a timer is drawn alone in a container (ui.errors.fragment): its block
then has no later sibling that a timer's run could overwrite (the race is told in the function's
docstring; it blanked a student's question after an answer). A fragment without a timer is drawn
as Streamlit draws it, in place among its siblings."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page(run_every: float | None) -> None:
    import streamlit as st

    from ui.errors import fragment

    @fragment(run_every=run_every)
    def section() -> None:
        st.markdown("inside")

    st.markdown("before")
    section()
    st.markdown("after")


def _main_children(run_every: float | None) -> list:
    at = AppTest.from_function(_page, args=(run_every,)).run()
    assert not at.exception
    return list(at.main.children.values())


def _texts(node) -> list[str]:
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        return [t for child in children.values() for t in _texts(child)]
    return [node.value] if getattr(node, "type", "") == "markdown" else []


def test_a_timed_fragment_is_alone_in_its_own_container():
    before, holder, after = _main_children(run_every=60)
    assert (before.value, after.value) == ("before", "after")
    (only,) = holder.children.values()  # the container holds the fragment's block and nothing else
    assert isinstance(only.children, dict)  # a block: the fragment's own
    assert _texts(only) == ["inside"]


def test_a_fragment_without_a_timer_stays_in_place():
    before, block, after = _main_children(run_every=None)
    assert (before.value, after.value) == ("before", "after")
    (only,) = block.children.values()  # the fragment's own block, holding its element directly
    assert _texts(only) == ["inside"] and not isinstance(getattr(only, "children", None), dict)
