"""The message catalogue: English and Simplified Chinese through gettext (Babel).

Pure Python (no streamlit), so ``viz/`` and ``models/`` may use it as well as ``ui/`` and the pages.
The catalogues are ``locale/<lang>/LC_MESSAGES/messages.po``, built by ``python -m i18n.build``
from the code and ``locale/zh/fragments/*.po`` (see docs/translating.md); they are read once per
process, on first use, with ``babel.messages.pofile.read_po``.

The current language lives in a ``ContextVar``: Streamlit runs every script run of a session on
its own thread, and the ui layer calls ``set_language`` at the start of each run. A thread that
never set it (a fragment rerun, a worker thread) asks the resolver registered with
``set_language_resolver`` (the ui layer's: the session's choice), else gets English.

    from i18n import _, ngettext, N_

    st.caption(_("{n} tokens in the source").format(n=len(tokens)))
    st.caption(ngettext("{n} head", "{n} heads", n).format(n=n))
    TITLE = N_("Scores")        # marks a constant for extraction; translate it where it is shown:
    fig = bars(..., title=_(TITLE))
"""

from __future__ import annotations

import contextlib
import gettext
import io
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LANGUAGES = {"en": "English", "zh": "简体中文"}  # code -> its own name, as the selector shows it
DEFAULT_LANGUAGE = "en"  # the language of the message ids
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "messages"

_language: ContextVar[str | None] = ContextVar("atlas_language", default=None)
_resolver: Callable[[], str | None] | None = None
_catalogues: dict[tuple[Path, str], gettext.NullTranslations] = {}
_lock = threading.Lock()


def negotiate(tag: str | None) -> str:
    """The supported language for a browser locale such as 'zh-CN', 'zh_Hans_CN' or 'en-GB';
    any Chinese tag gives 'zh', anything unknown or missing gives English."""
    primary = str(tag or "").strip().replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else DEFAULT_LANGUAGE


def _checked(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; expected one of {sorted(LANGUAGES)}")
    return lang


def set_language(lang: str) -> None:
    """Make ``lang`` ('en' or 'zh') the language of this thread/context."""
    _language.set(_checked(lang))


def set_language_resolver(resolver: Callable[[], str | None] | None) -> None:
    """Register where a context that never called ``set_language`` finds its language (the ui
    layer registers one that reads the Streamlit session). None unregisters."""
    global _resolver
    _resolver = resolver


def current_language() -> str:
    """The language of this context: set_language's, else the resolver's, else English."""
    lang = _language.get()
    if lang is None and _resolver is not None:
        lang = _resolver()
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


@contextlib.contextmanager
def use_language(lang: str) -> Iterator[None]:
    """Run a block in ``lang`` and restore the previous language after it (tests, exports)."""
    token = _language.set(_checked(lang))
    try:
        yield
    finally:
        _language.reset(token)


def load_catalogue(lang: str, locale_dir: Path = LOCALE_DIR) -> gettext.NullTranslations:
    """The translations of ``lang`` read from ``<locale_dir>/<lang>/LC_MESSAGES/messages.po``
    (cached per process). A missing file gives untranslated (English) messages."""
    key = (locale_dir, _checked(lang))
    with _lock:
        if key not in _catalogues:
            _catalogues[key] = _read(locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po", lang)
        return _catalogues[key]


def _read(path: Path, lang: str) -> gettext.NullTranslations:
    if not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # fuzzy entries are left out, as msgfmt does
    buffer.seek(0)
    return Translations(fp=buffer, domain=DOMAIN)


def clear_cache() -> None:
    """Forget the loaded catalogues (tests that rebuild them)."""
    with _lock:
        _catalogues.clear()


def _(message: str) -> str:
    """``message`` in the current language."""
    return load_catalogue(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the current language (Chinese has one form)."""
    return load_catalogue(current_language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, disambiguated by ``context`` (msgctxt) where the same
    English needs two translations."""
    return load_catalogue(current_language()).pgettext(context, message)


def N_(message: str) -> str:
    """Mark a constant for extraction without translating it (translate it with ``_`` when shown)."""
    return message


__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "_",
    "clear_cache",
    "current_language",
    "load_catalogue",
    "negotiate",
    "ngettext",
    "pgettext",
    "set_language",
    "set_language_resolver",
    "use_language",
]
