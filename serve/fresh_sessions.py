"""A fragment's rerun asked of a session that has not run its page yet runs the whole page.

A student's page reruns only the fragment that holds the class's view when the teacher moves
(``app_pages/lessons/follow.py``). When the page's replica dies, the browser reconnects to
another one and gets a new session there, which holds no fragment until its page has run once;
Streamlit 1.67 drops a rerun of a fragment the session does not hold, and does not rerun an idle
page on reconnecting, so the student's page would stay on the old step. Such an ask is turned
into a rerun of the whole page (with the same widget states). A session that has run its page
keeps Streamlit's behaviour: a fragment it no longer holds is not run.
"""

from __future__ import annotations

RAN = "_atlas_ran_whole"  # set on a session once it has been asked to run its whole page


def run_whole_in_new_sessions() -> None:
    """Install the rule above on Streamlit's ``AppSession.request_rerun``; once per process."""
    from serve.streamlit_private import AppSession

    if getattr(AppSession.request_rerun, "_atlas_runs_whole", False):
        return
    original = AppSession.request_rerun

    def request_rerun(self, client_state=None) -> None:
        return original(self, whole_if_new(self, client_state))

    request_rerun._atlas_runs_whole = True
    AppSession.request_rerun = request_rerun


def whole_if_new(session, client_state):
    """``client_state`` as the session should run it: without its fragment when the session has
    not yet run its whole page and does not hold the fragment; marks a whole run asked."""
    fragment = client_state.fragment_id if client_state is not None else ""
    if fragment and not getattr(session, RAN, False) and not session.has_fragment(fragment):
        whole = type(client_state)()
        whole.CopyFrom(client_state)
        whole.fragment_id = ""
        client_state, fragment = whole, ""
    if not fragment:
        setattr(session, RAN, True)
    return client_state
