"""serve.fresh_sessions: a fragment's rerun asked of a session that has not run its page (a page
reconnected to another replica) runs the whole page; a session that ran its page keeps
Streamlit's rule (a fragment it does not hold is not run)."""

from __future__ import annotations

from streamlit.proto.ClientState_pb2 import ClientState

from serve.fresh_sessions import whole_if_new


class FakeSession:
    def __init__(self, held: set[str]):
        self.held = held

    def has_fragment(self, fragment_id: str) -> bool:
        return fragment_id in self.held


def _asked(fragment: str) -> ClientState:
    state = ClientState(fragment_id=fragment, query_string="code=BCDFGH")
    return state


def test_a_new_session_runs_the_whole_page_for_a_fragment_it_lacks():
    session = FakeSession(held=set())
    asked = _asked("f1")
    ran = whole_if_new(session, asked)
    assert ran.fragment_id == "" and ran.query_string == "code=BCDFGH"
    assert asked.fragment_id == "f1"  # the caller's message is left as it was


def test_a_session_that_ran_its_page_keeps_the_fragment_rule():
    session = FakeSession(held={"f1"})
    assert whole_if_new(session, _asked("")).fragment_id == ""  # the page's first run
    assert whole_if_new(session, _asked("f1")).fragment_id == "f1"  # held: the fragment only
    assert whole_if_new(session, _asked("f2")).fragment_id == "f2"  # not held: Streamlit drops it


def test_a_new_session_holding_the_fragment_runs_the_fragment():
    session = FakeSession(held={"f1"})
    assert whole_if_new(session, _asked("f1")).fragment_id == "f1"
    assert whole_if_new(session, None) is None
