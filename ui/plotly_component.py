"""The chart component behind ``ui.charts.plotly_chart``: a figure that updates in place.

Streamlit 1.67 gives an ``st.plotly_chart`` a new identity whenever its figure changes, so every
change unmounts the chart and draws it anew (``Plotly.newPlot``). The component
(``components/atlas-plotly``, a Streamlit components-v2 component) is mounted with the chart's
stable ``key``, keeps its plotly div, and draws each new figure with ``Plotly.react`` on it.

- **Payload.** Only ``data=`` carries the figure: the bytes of one JSON object ``{figure, config,
  select, minWidth}`` (the figure's frames included: plotly's own play buttons work), built from the figure's plain dict (``Figure.to_dict``, made legible by
  ``ui.charts.legible``) with ``json.dumps``, without plotly's validating encoder.
- **Template.** Figures built in the app carry Streamlit's "streamlit" plotly template, whose
  colours are placeholders that only ``st.plotly_chart`` fills in (they would draw black). The
  component sends that template with the placeholders filled as ``st.plotly_chart(theme=None)``
  fills them, so a chart looks the same either way.
- **Assets.** plotly.js (the ``plotly`` package's bundle) and the script are files in the
  component's asset folder, served by Streamlit and cached by the browser; never inlined.
- **Events.** With ``on_select``, a click on a point sends ``{"selection": {"points": [...]}}``
  back (the trigger ``selection``): ``st.session_state[key]`` then reads as it does for
  ``st.plotly_chart``'s single-point selection, and ``on_select`` runs.
- **Fallback.** ``ATLAS_PLOTLY_COMPONENT=0`` turns the component off. Otherwise it is on, under
  AppTest too (whose element tree holds the component's payload: tests read either path's charts
  with ``tests/app_helpers.py``'s ``charts``). It is also off when the package is not
  installed or cannot be registered (logged once), and for the rest of a session whose browser
  reported that it could not draw one (the trigger ``failed``).
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Callable

import streamlit as st

ENV = "ATLAS_PLOTLY_COMPONENT"
FAILED = "atlas_plotly_failed"  # session state: this browser could not draw a component chart
# Plotly's modebar without the box and lasso select buttons, as st.plotly_chart shows it.
REMOVED_BUTTONS = ["lasso2d", "select2d"]
_LOG = logging.getLogger(__name__)

# The colours st.plotly_chart(theme=None) puts in place of the "streamlit" template's
# placeholders (#000001 ... #000040): plotly's own defaults (Streamlit's PlotlyChart frontend).
_CATEGORICAL = "#636efa #EF553B #00cc96 #ab63fa #FFA15A #19d3f3 #FF6692 #B6E880 #FF97FF #FECB52"
_SEQUENTIAL = "#0d0887 #46039f #7201a8 #9c179e #bd3786 #d8576b #ed7953 #fb9f3a #fdca26 #f0f921"
_DIVERGING = "#8e0152 #c51b7d #de77ae #f1b6da #fde0ef #e6f5d0 #b8e186 #7fbc41 #4d9221 #276419"
_OTHERS = "#3D9970 #FF4136 #4499FF #B2B5BE #2a3f5f #2a3f5f #EBF0F8 white #C8D4E3"


def _placeholder_colours() -> dict[str, str]:
    """'#0000NN' -> the colour st.plotly_chart(theme=None) draws it with."""
    # #000031 is not used; #000032 on are the other colours
    colours = [*_CATEGORICAL.split(), *_SEQUENTIAL.split(), *_DIVERGING.split(), ""]
    colours += _OTHERS.split()
    return {f"#{n:06d}": c for n, c in enumerate(colours, start=1) if c}


@functools.cache
def _templates() -> tuple[dict | None, dict | None]:
    """(the "streamlit" template as figures carry it, the same with its colours filled in)."""
    import plotly.io as pio

    if "streamlit" not in pio.templates:
        return None, None
    raw = pio.templates["streamlit"].to_plotly_json()
    text = json.dumps(raw)
    for placeholder, colour in _placeholder_colours().items():
        text = text.replace(f'"{placeholder}"', json.dumps(colour))
    return raw, json.loads(text)


def _under_apptest() -> bool:
    """Whether the script runs under AppTest (whose runtime is a stand-in)."""
    from serve.streamlit_private import Runtime

    return Runtime.exists() and type(Runtime.instance()) is not Runtime


def wanted() -> bool:
    """Whether this chart should go through the component (see the module docstring): off where
    ``ATLAS_PLOTLY_COMPONENT=0`` or this session's browser could not draw one, else on (served or
    under AppTest)."""
    return os.environ.get(ENV, "").strip() != "0" and not st.session_state.get(FAILED)


@functools.cache
def _mount() -> Callable | None:
    """The component's mount function, or None when it cannot be had (logged once)."""
    try:
        import atlas_plotly

        atlas_plotly.ensure_plotly_js()
        return st.components.v2.component(
            atlas_plotly.NAME, js=atlas_plotly.SCRIPT, isolate_styles=False
        )
    except Exception:  # not installed, not writable, not registered: st.plotly_chart instead
        _LOG.warning("chart component unavailable; charts use st.plotly_chart", exc_info=True)
        return None


def _failed() -> None:
    """Callback: the browser could not draw a chart; the session's charts fall back."""
    st.session_state[FAILED] = True


def payload(spec: dict, config: dict, *, select: bool, behaviours: dict | None = None) -> bytes:
    """The bytes the component draws: the legible figure ``spec`` (a plain dict, changed in
    place: its template filled in, its ``layout.width`` taken out and sent as the least width it
    is drawn at, scrolling sideways on a narrower column), the plotly ``config``, and whether
    clicks are sent back; ``behaviours``: options for the script's behaviour modules (play, drag,
    link: ``{name: options}``, plain JSON), which run in the browser only."""
    layout = spec.setdefault("layout", {})
    width = layout.pop("width", None)
    raw, filled = _templates()
    if raw is not None and layout.get("template") == raw:
        layout["template"] = filled
    message = {
        "figure": {"data": spec.get("data", []), "layout": layout, "frames": spec.get("frames")},
        "config": config | {"modeBarButtonsToRemove": REMOVED_BUTTONS},
        "select": select,
        "minWidth": width,
        "behaviours": behaviours or {},
    }
    try:
        return json.dumps(message, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError):  # numpy values or NaN: plotly's encoder (NaN -> null)
        from plotly.io.json import to_json_plotly

        return to_json_plotly(message).encode()


def show(
    data: bytes,
    *,
    key: str | None,
    on_select: Callable[[], None] | None,
    on_trigger: dict[str, Callable[[], None]] | None = None,
) -> bool:
    """Mount the component with ``data`` under ``key``; False (nothing shown) when it cannot be
    had, so that the caller shows ``st.plotly_chart`` instead. ``on_trigger``: ``{trigger name:
    callback}`` for the triggers a behaviour sends (e.g. ``"drag"``); the callback reads the value
    from ``st.session_state[key]``."""
    mount = _mount()
    if mount is None:
        return False
    callbacks = {"on_failed_change": _failed}
    if on_select is not None:
        callbacks["on_selection_change"] = on_select
    for name, callback in (on_trigger or {}).items():
        callbacks[f"on_{name}_change"] = callback
    try:
        mount(key=key, data=data, **callbacks)
    except Exception:  # e.g. registration lost: the chart is still shown, by st.plotly_chart
        _LOG.warning("chart component failed to mount; st.plotly_chart instead", exc_info=True)
        return False
    return True
