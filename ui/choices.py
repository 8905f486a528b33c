"""Choice widgets whose options are shown translated and kept in the URL by a stable id.

A widget bound with ``bind="query-params"`` writes its *displayed* label into the URL: with a
translated ``format_func`` a link would say ``?aln_mode=参考译文`` in Chinese and
``?aln_mode=reference`` in English, and a link copied after switching language would no longer
reproduce the view (the old label is not an option any more, so Streamlit drops it). ``choice_ui``
keeps the id in the URL instead (``?aln_mode=reference`` in both languages), like the language
selector does with ``?lang=``.

    MODES = {"translate": N_("translate"), "reference": N_("reference")}  # id -> label
    score = choice_ui(st.selectbox, _("Score function"), SCORE_LABELS, key="anat_score")
    mode = segmented_ui(c4, _("Mode"), MODES, key="aln_mode")  # required: always an id

Use it for a selectbox, radio or segmented_control (single choice) whose labels are translated;
a choice whose labels are names (models, tokens, numbers) keeps ``bind="query-params"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from i18n import _, current_language
from ui.url_state import url_notice

SHOWN_IN = "_choice_shown_in:"  # + key: the language the widget was last drawn in


def choice_ui(
    widget: Callable[..., Any],
    label: str,
    options: Mapping[str, str],
    *,
    key: str,
    default: str | None = None,
    **kwargs: Any,
) -> str | None:
    """Draw ``widget`` (``st.selectbox``, ``col.segmented_control``, ``st.sidebar.radio``, ...)
    over the ids of ``options`` (id -> English label, marked with ``N_``), each shown as
    ``_(label)``; its value starts from the URL's ``?<key>=<id>`` (else ``default``, else the first
    id) and is written back there by id (left out when it is the default). ``kwargs`` go to the
    widget (help, required, ...). Returns the chosen id (None when a segmented control is
    cleared)."""
    ids = list(options)
    default = ids[0] if default is None else default
    if default not in options:
        raise ValueError(f"{key}: default {default!r} is not one of {ids}")
    if key not in st.session_state:
        asked = st.query_params.get(key)
        if asked is not None and asked not in options:
            url_notice(key)  # a choice the page does not offer: the default, and a notice
        st.session_state[key] = asked if asked in options else default
    elif st.session_state.get(SHOWN_IN + key) != current_language():
        # The browser still holds the label of the old language: setting the value again sends
        # it to the browser, which then shows the new label (a selectbox would keep the old one).
        st.session_state[key] = st.session_state[key]
    st.session_state[SHOWN_IN + key] = current_language()
    value = widget(label, ids, key=key, format_func=lambda option: _(options[option]), **kwargs)
    if value is None or value == default:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != value:
        st.query_params[key] = value
    return value


def segmented_ui(
    where: Any, label: str, options: Mapping[str, str], *, key: str, **kwargs: Any
) -> str:
    """A segmented control in ``where`` (``st`` or a column) that always holds one of ``options``:
    :func:`choice_ui` with ``required=True``. Returns the chosen id, the first one (the default)
    while the control is empty."""
    value = choice_ui(
        where.segmented_control, label, options, key=key, required=True, wrap=True, **kwargs
    )
    return value or next(iter(options))
