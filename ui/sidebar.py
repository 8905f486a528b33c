"""The shared sidebar: language, compute device and classroom mode, all kept in the URL."""

from __future__ import annotations

import streamlit as st
import torch

from i18n import LANGUAGES, _, negotiate, set_language, set_language_resolver
from serve.streamlit_private import get_script_run_ctx
from ui.document import document_ui
from ui.url_state import write_params

LANGUAGE_KEY = "lang"  # also the URL parameter name: ?lang=zh
LANGUAGE_LABEL = "语言 · Language"  # in both languages on purpose: findable in either
DEVICE_KEY = "device"  # also the URL parameter name
CLASSROOM_KEY = "classroom"


def initial_language() -> str:
    """The language a new session starts in: the URL's ``?lang=`` when it is one of LANGUAGES,
    else the browser's (``st.context.locale``, e.g. 'zh-CN'), else English."""
    asked = st.query_params.get(LANGUAGE_KEY)
    return asked if asked in LANGUAGES else negotiate(st.context.locale)


def _session_language() -> str | None:
    """The session's language for a context that did not set one (a fragment rerun)."""
    if get_script_run_ctx() is None:
        return None
    chosen = st.session_state.get(LANGUAGE_KEY)
    return chosen if chosen in LANGUAGES else None


def language_ui() -> str:
    """Sidebar select for the language; makes it the language of this run and keeps it in the
    URL as ``?lang=``. Returns its code ('en' or 'zh').

    Not ``bind="query-params"``: a bound selectbox puts its displayed label in the URL
    ('简体中文'), and the URL should say ``lang=zh``. Changing it reruns the page with every other
    widget's value kept (their keys, not their translated labels, identify them)."""
    if st.session_state.get(LANGUAGE_KEY) not in LANGUAGES:
        st.session_state[LANGUAGE_KEY] = initial_language()
    lang = st.sidebar.selectbox(
        LANGUAGE_LABEL, list(LANGUAGES), key=LANGUAGE_KEY, format_func=LANGUAGES.__getitem__
    )
    set_language(lang)
    set_language_resolver(_session_language)
    write_params(**{LANGUAGE_KEY: lang})  # navigating clears the URL's parameters: put it back
    return lang


def available_devices() -> list[str]:
    """'cuda' first when a GPU is present, then 'cpu'."""
    return ["cuda", "cpu"] if torch.cuda.is_available() else ["cpu"]


def device_ui() -> str:
    """Sidebar select for the device; returns a torch.device string ('cuda' or 'cpu')."""
    options = available_devices()
    return st.sidebar.selectbox(
        _("Device"),
        options,
        key=DEVICE_KEY,
        bind="query-params",
        help=_("Models run on the GPU when one is present, else on the CPU."),
    )


def classroom_ui() -> bool:
    """Sidebar toggle for classroom mode (larger page, folded sidebar, colour-blind-safe colours)."""
    return st.sidebar.toggle(
        _("Classroom mode"),
        key=CLASSROOM_KEY,
        bind="query-params",
        help=_(
            "Larger type on the whole page, the sidebar folded away, and a colour-blind-safe "
            "colour scale on every chart: for a projector."
        ),
    )


def current_device() -> str:
    """The device chosen in the sidebar (for pages); falls back to the best available one."""
    chosen = st.session_state.get(DEVICE_KEY)
    return chosen if chosen in available_devices() else available_devices()[0]


def classroom_mode() -> bool:
    """Whether classroom mode is on (for pages and the chart wrapper)."""
    return bool(st.session_state.get(CLASSROOM_KEY, False))


# Classroom mode enlarges the whole page, not only the charts: Streamlit sizes its text, controls,
# tables and formulas in rem, so a larger root font grows them all by CLASSROOM_PAGE_SCALE.
CLASSROOM_PAGE_SCALE = 1.25
CLASSROOM_CSS = (
    f"<style>html{{font-size:{round(16 * CLASSROOM_PAGE_SCALE)}px}}"
    # the page's top padding (6rem) and its title (2.75rem) shrink, so that the main chart comes
    # into the first screen; the page header (75 px, white, over the page) turns transparent and
    # lets clicks through but on its buttons and links (the sidebar's, the running indicator's)
    ".stMainBlockContainer{padding-top:1rem}"
    ".stMainBlockContainer h1{font-size:2.25rem;padding:0.5rem 0}"
    'header[data-testid="stHeader"]{background:transparent}'
    'header[data-testid="stHeader"],header[data-testid="stHeader"] *{pointer-events:none}'
    'header[data-testid="stHeader"] button,header[data-testid="stHeader"] a'
    "{pointer-events:auto}</style>"
)


def classroom_requested() -> bool:
    """Whether this run asks for classroom mode (the widget's value, else the URL's, for code that
    runs before the sidebar is drawn: the page configuration collapses the sidebar)."""
    if CLASSROOM_KEY in st.session_state:
        return bool(st.session_state[CLASSROOM_KEY])
    return st.query_params.get(CLASSROOM_KEY, "").lower() == "true"


def classroom_page_style() -> None:
    """In classroom mode, the page's text, controls, tables and formulas at 1.25x."""
    if classroom_mode():
        st.html(CLASSROOM_CSS)


def sidebar_ui() -> tuple[str, bool]:
    """Render the shared device and classroom controls (the language selector comes first, from
    ``app.main``, before anything is translated); returns (device, classroom)."""
    device = device_ui()
    classroom = classroom_ui()
    classroom_page_style()
    st.sidebar.caption(
        _("Running on **{device}** · torch {version}").format(
            device=device, version=torch.__version__
        )
    )
    document_ui(st.session_state.get(LANGUAGE_KEY, "en"))
    return device, classroom
