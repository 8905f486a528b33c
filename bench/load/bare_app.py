"""The bare student page's app (:mod:`bench.load.bare_join`), served by
:mod:`bench.load.bare_asgi`: the page at ``/join`` (and, as Streamlit serves a default page at
``/`` only, at ``/`` too), without the atlas's navigation and sidebar, with the server settings
every page of the atlas relies on (:mod:`serve.runtime`)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from serve.runtime import freeze_long_lived, keep_finished_runs

JOIN = Path(__file__).resolve().with_name("bare_join.py")

keep_finished_runs()
freeze_long_lived()
pages = [
    st.Page(JOIN, title="Join", url_path="", default=True),
    st.Page(JOIN, title="Join", url_path="join"),
]
st.navigation(pages, position="hidden").run()
