"""Streamlit's private API, as the app uses it through ``serve/streamlit_private.py``: each name
still exists where the adapter takes it from, and still has the shape the app relies on. A
Streamlit upgrade that moves one of them fails here, by name."""

from __future__ import annotations

import dataclasses
import importlib
import inspect

import pytest

from serve import streamlit_private

# Every private name the adapter takes, and the module it is taken from. Written out here, not read
# from the adapter, so that a name added there without a check here fails the last test.
PRIVATE = {
    "config": "streamlit",
    "AppSession": "streamlit.runtime.app_session",
    "DeltaGenerator": "streamlit.delta_generator",
    "FragmentHandledException": "streamlit.errors",
    "StreamlitAPIException": "streamlit.errors",
    "Runtime": "streamlit.runtime",
    "get_script_run_ctx": "streamlit.runtime.scriptrunner",
    "ScriptRunner": "streamlit.runtime.scriptrunner.script_runner",
    "ScriptControlException": "streamlit.runtime.scriptrunner_utils.exceptions",
    "in_cached_function": "streamlit.runtime.scriptrunner_utils.script_run_context",
}


@pytest.mark.parametrize("name", sorted(PRIVATE))
def test_private_name_exists(name: str):
    module = importlib.import_module(PRIVATE[name])
    assert hasattr(module, name), f"Streamlit no longer has {PRIVATE[name]}.{name}"
    assert getattr(streamlit_private, name) is getattr(module, name)


def test_the_adapter_takes_only_the_checked_names():
    assert streamlit_private.PRIVATE == PRIVATE
    assert sorted(streamlit_private.__all__) == sorted(PRIVATE)


def test_exceptions_the_error_guard_passes_through():
    """ui.errors lets a rerun, a stop and a fragment's rerun through: both are still exceptions."""
    for name in ("ScriptControlException", "FragmentHandledException", "StreamlitAPIException"):
        assert issubclass(getattr(streamlit_private, name), BaseException), name


def test_runtime_singleton_calls():
    """ui.plotly_component asks whether a runtime exists and which one it is."""
    runtime = streamlit_private.Runtime
    assert callable(runtime.exists) and callable(runtime.instance)
    assert runtime.exists() in (True, False)


def test_script_run_context_outside_a_run():
    """ui.sidebar reads None outside a script run; ui.loaders reads a context variable."""
    assert streamlit_private.get_script_run_ctx() is None
    assert streamlit_private.in_cached_function.get() in (True, False)


def test_request_rerun_as_serve_runtime_patches_it():
    """serve.runtime.keep_finished_runs wraps ``ScriptRunner.request_rerun(self, rerun_data)`` and
    reads the rerun's ``fragment_id`` and ``is_auto_rerun``."""
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    request_rerun = streamlit_private.ScriptRunner.request_rerun
    assert list(inspect.signature(request_rerun).parameters)[:2] == ["self", "rerun_data"]
    fields = {f.name for f in dataclasses.fields(RerunData)}
    assert {"fragment_id", "is_auto_rerun"} <= fields, fields


def test_app_session_as_serve_fresh_sessions_patches_it():
    """serve.fresh_sessions wraps ``AppSession.request_rerun(self, client_state)`` and asks the
    session ``has_fragment``; the client state carries a ``fragment_id`` it may clear."""
    from streamlit.proto.ClientState_pb2 import ClientState

    session = streamlit_private.AppSession
    assert list(inspect.signature(session.request_rerun).parameters)[:2] == ["self", "client_state"]
    assert callable(session.has_fragment)
    assert "fragment_id" in ClientState.DESCRIPTOR.fields_by_name
