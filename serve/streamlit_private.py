"""The one place the app reaches into Streamlit's private modules (not part of ``st.*``).

Streamlit may move or rename any of these in a release; the app imports them from here, and
``tests/test_streamlit_private.py`` checks that each still exists where it is imported from (and
the fields the script runner's patch in :func:`serve.runtime.keep_finished_runs` reads), so an
upgrade fails in one test instead of in five modules. ``tests/test_imports.py`` forbids importing
a private ``streamlit.*`` module anywhere else outside the tests.

It lives in ``serve/`` because the server's runtime needs it too, and ``serve/`` sits below ``ui/``.
"""

from __future__ import annotations

from streamlit import config
from streamlit.delta_generator import DeltaGenerator
from streamlit.errors import FragmentHandledException, StreamlitAPIException
from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException
from streamlit.runtime.scriptrunner_utils.script_run_context import in_cached_function

# Each name this module takes from Streamlit, and the module it is taken from.
PRIVATE = {
    "config": "streamlit",  # get_options_for_section is cached (serve/runtime.py)
    "AppSession": "streamlit.runtime.app_session",  # request_rerun is patched (serve/fresh_sessions)
    "DeltaGenerator": "streamlit.delta_generator",  # the type of st.container() and the like
    "FragmentHandledException": "streamlit.errors",  # a fragment's rerun, passed through
    "StreamlitAPIException": "streamlit.errors",  # a widget key or value Streamlit refuses
    "Runtime": "streamlit.runtime",  # the server's runtime (AppTest runs a stand-in)
    "get_script_run_ctx": "streamlit.runtime.scriptrunner",  # None outside a script run
    "ScriptRunner": "streamlit.runtime.scriptrunner.script_runner",  # request_rerun is patched
    "ScriptControlException": "streamlit.runtime.scriptrunner_utils.exceptions",  # rerun, stop
    "in_cached_function": "streamlit.runtime.scriptrunner_utils.script_run_context",
}

__all__ = [
    "AppSession",
    "DeltaGenerator",
    "FragmentHandledException",
    "Runtime",
    "ScriptControlException",
    "ScriptRunner",
    "StreamlitAPIException",
    "config",
    "get_script_run_ctx",
    "in_cached_function",
]
