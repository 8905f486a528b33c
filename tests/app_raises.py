"""A tiny app for tests/test_security_errors.py: app.py's page runner around pages that fail
(``?fail=boom``), stop, rerun once or switch page, and a page whose fragment fails on demand."""

from __future__ import annotations

import streamlit as st

from ui.errors import fragment, run_page


def failing() -> None:
    st.write("before the failure")
    how = st.query_params.get("fail", "boom")
    if how == "boom":
        raise RuntimeError("cannot open /root/.secret/model.bin: [Errno 2] No such file")
    if how == "stop":
        st.stop()
    if how == "rerun" and not st.session_state.get("rerun_done"):
        st.session_state["rerun_done"] = True
        st.rerun()
    if how == "switch":
        st.switch_page(st.Page(other, url_path="other"))
    st.write(f"finished after {how}")


def other() -> None:
    st.write("the other page")


@fragment
def section() -> None:
    if st.button("Fail", key="fail_button"):
        raise ValueError("cannot parse /srv/atlas/config.toml")
    st.write("the section is fine")


def with_fragment() -> None:
    st.write("outside the fragment")
    section()


pages = [
    st.Page(failing, url_path="failing"),
    st.Page(other, url_path="other"),
    st.Page(with_fragment, url_path="fragment"),
]
if st.query_params.get("start") == "fragment":
    pages.reverse()  # the first page is the one a bare URL opens
navigation = st.navigation(pages)
run_page(navigation.run, where=navigation.url_path)
