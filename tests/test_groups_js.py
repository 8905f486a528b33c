"""groups.js, the chart component's one registry of the charts that act together (link.js's hover
groups, drag.js's diagram and the bars that follow it), run in node: joining, leaving, the members
in the order they joined, the members whose chart has left the page dropped, what a group's
members share, and each behaviour's (kind's) groups kept apart. Members are stand-ins for a
behaviour's state: {id, host: {isConnected}}; one node process per test, so each starts with an
empty registry. The behaviours themselves run in Chromium (test_browser_anatomy_drag.py,
test_browser_multi_head_link.py, test_browser_alignment_link.py)."""

from __future__ import annotations

from tests.node_js import ASSETS, needs_node, run_exports

GROUPS_JS = ASSETS / "groups.js"

pytestmark = needs_node


def _call(fn: str, *args) -> dict:
    return {"fn": fn, "args": list(args)}


def _m(name: str) -> dict:
    """An arg: the member ``name`` (made on first use, connected)."""
    return {"$js": f"(globalThis.{name} ||= {{id: '{name}', host: {{isConnected: true}}}})"}


def _after(statement: str, value) -> dict:
    """An arg: ``value``, once the JavaScript ``statement`` has run (between two calls)."""
    return {"$js": f"({statement}, {value!r})"}


def _ids(out) -> list:
    """The members' ids, from a list of members() results."""
    return [[m["id"] for m in members] for members in out]


def _js(calls: list[dict], tmp_path) -> list:
    """The calls' results, written out after the last call (an object a later call changes comes
    back changed)."""
    return run_exports(GROUPS_JS, calls, tmp_path)


def test_members_are_those_that_joined_in_order(tmp_path):
    calls = [_call("join", "link", "g", _m("a")), _call("join", "link", "g", _m("b")),
             _call("join", "link", "h", _m("c")), _call("members", "link", "g"),
             _call("members", "link", "h"), _call("members", "link", "nobody")]  # fmt: skip
    out = _js(calls, tmp_path)
    assert out[:3] == [None] * 3
    assert _ids(out[3:]) == [["a", "b"], ["c"], []]


def test_joining_again_puts_a_member_last_and_in_one_group(tmp_path):
    calls = [_call("join", "drag", "g", m) for m in (_m("a"), _m("b"), _m("c"))]
    calls += [_call("join", "drag", "g", _m("a")), _call("members", "drag", "g"),
              _call("join", "drag", "h", _m("b")), _call("members", "drag", "g"),
              _call("members", "drag", "h")]  # fmt: skip
    out = _js(calls, tmp_path)
    assert _ids([out[4], out[6], out[7]]) == [["b", "c", "a"], ["c", "a"], ["b"]]


def test_leaving_says_which_group_was_left(tmp_path):
    calls = [_call("join", "link", "g", _m("a")), _call("join", "link", "g", _m("b")),
             _call("leave", "link", _m("a")), _call("leave", "link", _m("a")),
             _call("leave", "link", _m("stranger")), _call("members", "link", "g")]  # fmt: skip
    out = _js(calls, tmp_path)
    assert out[2:5] == ["g", None, None]  # a second leave: in no group
    assert _ids(out[5:]) == [["b"]]


def test_members_whose_chart_left_the_page_are_dropped(tmp_path):
    gone = "globalThis.b.host.isConnected = false"
    back = "globalThis.b.host.isConnected = true"
    calls = [_call("join", "link", "g", m) for m in (_m("a"), _m("b"), _m("c"))]
    calls += [_call("members", "link", _after(gone, "g")),
              _call("members", "link", _after(back, "g")),  # dropped: it must join again
              _call("leave", "link", _m("b")),
              _call("join", "link", "g", {"$js": "({id: 'hostless'})"}),
              _call("members", "link", "g")]  # fmt: skip
    out = _js(calls, tmp_path)
    assert _ids([out[3], out[4], out[7]]) == [["a", "c"], ["a", "c"], ["a", "c"]]
    assert out[5] is None  # b was in no group any more


def test_each_kind_has_its_own_groups(tmp_path):
    calls = [_call("join", "link", "g", _m("a")), _call("join", "drag", "g", _m("a")),
             _call("join", "drag", "g", _m("b")), _call("leave", "link", _m("a")),
             _call("members", "link", "g"), _call("members", "drag", "g")]  # fmt: skip
    calls += [_call("shared", "link", _after("mod.shared('drag', 'g').focus = 'x'", "g")),
              _call("shared", "drag", "g")]  # fmt: skip
    out = _js(calls, tmp_path)
    assert out[3] == "g"
    assert _ids(out[4:6]) == [[], ["a", "b"]]  # a left link's g, not drag's
    assert out[6:] == [{}, {"focus": "x"}]


def test_what_members_share_lasts_while_the_group_has_members(tmp_path):
    share = "mod.shared('link', 'g').focus = {kind: 'query', i: 2}"
    calls = [_call("join", "link", "g", _m("a")), _call("join", "link", "g", _m("b")),
             _call("shared", "link", _after(share, "g")),
             _call("join", "link", "g", _m("a")),  # joining again keeps it
             _call("leave", "link", _m("b")), _call("shared", "link", "g"),
             _call("leave", "link", _m("a")), _call("shared", "link", "g")]  # fmt: skip
    out = _js(calls, tmp_path)
    focus = {"focus": {"kind": "query", "i": 2}}
    assert out[2] == focus and out[5] == focus
    assert out[7] == {}  # the group was left empty: forgotten
