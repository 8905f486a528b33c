"""Streamlit's websocket protocol, as the browser speaks it (the protobuf classes ship in
``streamlit.proto``): a ``BackMsg`` asks for a rerun with the page, the query string and the
widgets' values; the server answers with ``ForwardMsg``s (deltas, page info, ``script_finished``).

Widgets are found by reading what the server sends, never by a hard-coded hash: each widget's
element in a delta carries its id, and an id made for a user key ends with that key
(``$$ID-<hash>-<key>``). A widget's value goes back in the field its element type reads
(:func:`widget_state`). A page's words are read the same way (:func:`text_in`, :func:`find_text`),
and a ``run_every`` fragment's timers are kept as the browser keeps them (:class:`AutoReruns`).
Pure functions: no sockets here (:mod:`bench.load.client` has those).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileURLs, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

ID_PREFIX = "$$ID-"
# element type -> the WidgetState field it is read from (Streamlit 1.67's register_widget calls)
VALUE_FIELDS = {
    "text_input": "string_value",
    "text_area": "string_value",
    "dataframe": "string_value",  # data_editor: its edits as JSON (a keyed st.dataframe is not)
    "selectbox": "string_value",
    "radio": "string_value",
    "button_group": "string_array_value",  # segmented_control, pills: the chosen labels
    "multiselect": "string_array_value",
    "slider": "double_array_value",
    "number_input": "double_value",
    "checkbox": "bool_value",  # checkbox and toggle
    "button": "trigger_value",
    "file_uploader": "file_uploader_state_value",
}
DONE = (
    ForwardMsg.FINISHED_SUCCESSFULLY,
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
)  # FINISHED_EARLY_FOR_RERUN is not an answer: another run follows
TEXT_ELEMENTS = ("markdown", "alert", "heading", "text")  # elements whose ``body`` is what they say
ERROR_ID = "error id"  # the app's sentence for an unexpected error (ui/errors.py) carries this


@dataclass(frozen=True)
class Widget:
    """A widget as the server drew it: its id, the element's type, and what the
    harness needs to choose a valid value: its option labels, or its range."""

    key: str
    id: str
    element_type: str
    options: tuple[str, ...] = ()
    lo: float | None = None
    hi: float | None = None


def key_of(widget_id: str) -> str | None:
    """The user key in a widget id (``$$ID-<hash>-<key>``), or None for a widget without one."""
    if not widget_id.startswith(ID_PREFIX):
        return None
    _, _, key = widget_id[len(ID_PREFIX) :].partition("-")
    return key or None


def _options(element_type: str, proto: object) -> tuple[str, ...]:
    if element_type == "button_group":
        return tuple(option.content for option in proto.options)
    if element_type in ("selectbox", "radio", "multiselect"):
        return tuple(proto.options)
    return ()


def _range(element_type: str, proto: object) -> tuple[float | None, float | None]:
    if element_type == "slider" and not proto.options:
        return proto.min, proto.max
    if element_type == "number_input":
        return (proto.min if proto.has_min else None), (proto.max if proto.has_max else None)
    return None, None


def element_type_of(msg: ForwardMsg) -> str | None:
    """The type of element a ForwardMsg's delta draws ("markdown", "slider", "bidi_component"...);
    None for other messages."""
    if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
        return None
    return msg.delta.new_element.WhichOneof("type")


def widgets_in(msg: ForwardMsg) -> list[Widget]:
    """The keyed widgets a ForwardMsg's delta draws (none for other messages)."""
    element_type = element_type_of(msg)
    if element_type not in VALUE_FIELDS:
        return []
    proto = getattr(msg.delta.new_element, element_type)
    key = key_of(proto.id)
    if key is None:
        return []
    lo, hi = _range(element_type, proto)
    return [Widget(key, proto.id, element_type, _options(element_type, proto), lo, hi)]


def error_in(msg: ForwardMsg) -> str | None:
    """What a delta shows that counts as a failure: an exception box, or the app's error
    sentence with an id (ui/errors.py); None for anything else."""
    element_type = element_type_of(msg)
    element = msg.delta.new_element
    if element_type == "exception":
        return f"exception box: {element.exception.type}"
    if element_type == "alert" and ERROR_ID in element.alert.body:
        return "error sentence: " + element.alert.body[:120]
    return None


def finished(msg: ForwardMsg) -> bool:
    """Whether ``msg`` ends a run the client asked for (not one cut short for another rerun)."""
    return msg.WhichOneof("type") == "script_finished" and msg.script_finished in DONE


def run_id(msg: ForwardMsg) -> str:
    """The run a ``new_session`` or ``script_finished`` belongs to ("" for other messages)."""
    return msg.metadata.run.script_run_id


def full_run(msg: ForwardMsg) -> bool:
    """Whether ``msg`` (a ``new_session`` or ``script_finished``) is of a run of the whole page,
    not of fragments only (their ids are in the run's metadata)."""
    msg_type = msg.WhichOneof("type")
    return msg_type in ("new_session", "script_finished") and not msg.metadata.run.fragment_ids


def text_in(msg: ForwardMsg) -> str | None:
    """What a delta's element says (markdown, caption, alert, heading, text: its body, as the
    app wrote it, markdown escapes included); None for other messages and elements."""
    element_type = element_type_of(msg)
    return (
        getattr(msg.delta.new_element, element_type).body if element_type in TEXT_ELEMENTS else None
    )


def find_text(msg: ForwardMsg, pattern: str | re.Pattern[str]) -> re.Match[str] | None:
    """``pattern`` searched in what ``msg``'s element says (:func:`text_in`); None if absent."""
    text = text_in(msg)
    return None if text is None else re.search(pattern, text)


@dataclass
class AutoReruns:
    """The ``run_every`` fragments' timers, kept as Streamlit's frontend keeps them: an
    ``auto_rerun`` message starts a timer for its fragment (one with the same interval already
    running is kept), ``stop_auto_rerun`` cancels those named, and a run of the whole page
    cancels them all (the page's own run sends ``auto_rerun`` again for the fragments it drew).
    Each timer fires every ``interval`` seconds, without catching up after a late tick, as
    ``setInterval``. Times are the caller's clock (seconds)."""

    timers: dict[str, tuple[float, float]] = field(default_factory=dict)  # id -> (interval, due)

    def note(self, msg: ForwardMsg, now: float) -> None:
        msg_type = msg.WhichOneof("type")
        if msg_type == "new_session" and full_run(msg):
            self.timers.clear()
        elif msg_type == "auto_rerun" and msg.auto_rerun.fragment_id:
            fragment, interval = msg.auto_rerun.fragment_id, msg.auto_rerun.interval
            running = self.timers.get(fragment)
            if interval > 0 and (running is None or running[0] != interval):
                self.timers[fragment] = (interval, now + interval)
        elif msg_type == "stop_auto_rerun":
            for fragment in msg.stop_auto_rerun.fragment_ids:
                self.timers.pop(fragment, None)

    def due(self, now: float) -> list[str]:
        """The fragments whose timer has fired by ``now``; each timer then waits its interval."""
        fired = [fragment for fragment, (_, due) in self.timers.items() if due <= now]
        for fragment in fired:
            interval, due = self.timers[fragment]
            later = due + interval
            self.timers[fragment] = (interval, later if later > now else now + interval)
        return fired

    def next_due(self) -> float | None:
        """When the next timer fires; None when none runs."""
        return min((due for _, due in self.timers.values()), default=None)


def widget_state(widget: Widget, value: object) -> WidgetState:
    """``value`` for ``widget`` in the field its element type is read from. A selectbox, radio or segmented
    control takes an option label (str); a slider or number input a number; a checkbox a bool;
    a button anything (a click); a file uploader a sequence of :class:`UploadedFileInfo`."""
    state = WidgetState(id=widget.id)
    field = VALUE_FIELDS[widget.element_type]
    if field in ("string_value",):
        state.string_value = str(value)
    elif field == "string_array_value":
        state.string_array_value.data[:] = [value] if isinstance(value, str) else list(value)
    elif field == "double_array_value":
        state.double_array_value.data[:] = [float(value)]
    elif field == "double_value":
        state.double_value = float(value)
    elif field == "bool_value":
        state.bool_value = bool(value)
    elif field == "trigger_value":
        state.trigger_value = True
    else:
        state.file_uploader_state_value.uploaded_file_info.extend(value)
    return state


def rerun_msg(
    states: Iterable[WidgetState],
    *,
    page_name: str = "",
    page_hash: str = "",
    query: str = "",
    fragment_id: str = "",
    auto_rerun: bool | None = None,
) -> bytes:
    """A serialized BackMsg asking for a rerun of the page (its url path ``page_name`` on the
    first run, its script hash after), with ``query`` as the address bar's query string; with
    ``fragment_id``, a rerun of that fragment only, as its ``run_every`` timer sends it (or, with
    ``auto_rerun=False``, as a widget inside it does)."""
    msg = BackMsg()
    client = msg.rerun_script
    client.query_string = query
    client.page_name = page_name
    client.page_script_hash = page_hash
    client.fragment_id = fragment_id
    client.is_auto_rerun = bool(fragment_id) if auto_rerun is None else auto_rerun
    client.widget_states.widgets.extend(states)
    return msg.SerializeToString()


def file_urls_msg(request_id: str, session_id: str, names: Sequence[str]) -> bytes:
    """A serialized BackMsg asking for upload URLs for ``names`` (what the uploader does
    before it sends the files)."""
    msg = BackMsg()
    msg.file_urls_request.request_id = request_id
    msg.file_urls_request.session_id = session_id
    msg.file_urls_request.file_names[:] = list(names)
    return msg.SerializeToString()


def uploaded_info(urls: FileURLs, name: str, size: int) -> UploadedFileInfo:
    """The uploader's record of a file sent to ``urls.upload_url``."""
    info = UploadedFileInfo(name=name, size=size, file_id=urls.file_id)
    info.file_urls.CopyFrom(urls)
    return info


def parse(data: bytes) -> ForwardMsg:
    """A ForwardMsg from a websocket frame."""
    msg = ForwardMsg()
    msg.ParseFromString(data)
    return msg
