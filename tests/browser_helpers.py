"""Helpers shared by the browser tests of the model pages: the checkpoints a server reads (the
shipped ones, or tiny random-weight ones standing in), the ``url`` and ``tab`` fixtures of a server
pointed at them, a screenshot, the wait for a settled page, and what the pages in Chinese are
checked for (English left visible, missing-glyph boxes, a language switch)."""

from __future__ import annotations

import concurrent.futures
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.browser import CHART, wait_settled  # noqa: F401 (the browser tests import them here)
from models.checkpoints import CHECKPOINTS_ENV, SHIPPED_ROOT
from tests.server import served_with
from tests.tab_pool import Wait
from tests.test_i18n_app import english_words
from ui.sidebar import LANGUAGE_LABEL

# Streamlit's own chrome, English in every language (docs/translating.md, "What cannot be
# translated"): the file uploader's texts (and its "Add files" button's hidden "add icon"), the
# text box's hint and the keyboard users' skip link.
STREAMLIT_CHROME = re.compile(
    r"Drag and drop file here|Browse files|Limit \d+MB per file|add icon|Press Enter to apply"
    r"|Skip to main content"
)
# Material icons: a ligature's name ("home") as text; an alert's icon (st.info(icon=...)) too
ICONS = '[data-testid="stIconMaterial"], [data-testid="stAlertDynamicIcon"]'
MISSING_GLYPHS = ("\u25a1", "\ufffd")  # the box a missing glyph becomes; the replacement character
RESIZED_MS = 500  # after a resize: how long the charts' drawn sizes hold still before a screenshot


@contextmanager
def open_tab(browser, timeout_ms: int = 120_000) -> Iterator[object]:
    """A page in its own browser context (1400 x 1000), closed afterwards."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    try:
        yield page
    finally:
        context.close()


def is_shipped(name: str) -> bool:
    """The checkpoint ``name`` (``seq2seq-bahdanau``, ``show-attend-tell``...) has been trained and
    shipped."""
    return (SHIPPED_ROOT / name / "model.safetensors").is_file()


def transformers_shipped() -> bool:
    """Both Transformer checkpoints are shipped (their cards are written when training ends)."""
    return all(
        (SHIPPED_ROOT / f"transformer-{p}" / "card.json").is_file()
        for p in ("sinusoidal", "learned")
    )


def shipped_root(names: Iterable[str]) -> Path | None:
    """``SHIPPED_ROOT`` when every checkpoint in ``names`` is shipped (a module's ``url`` is then
    the session's one server), else None (the module links or builds its own root)."""
    return SHIPPED_ROOT if all(is_shipped(name) for name in names) else None


def link_checkpoints(root: Path, names: Iterable[str], tiny: Path | None) -> Path:
    """``root`` with a link per checkpoint in ``names``: the shipped one where it exists, else the
    one of that name in ``tiny``."""
    for name in names:
        (root / name).symlink_to(SHIPPED_ROOT / name if is_shipped(name) else tiny / name)
    return root


def checkpoints_fixture(shipped: Callable[[], bool], build: Callable[[Path], Path], folder: str):
    """A module-scoped ``checkpoints`` fixture: ``SHIPPED_ROOT`` when ``shipped()``, else what
    ``build`` writes into a fresh temporary ``folder`` (tiny random-weight checkpoints)."""

    @pytest.fixture(scope="module")
    def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
        if shipped():
            return SHIPPED_ROOT
        return build(tmp_path_factory.mktemp(folder))

    return checkpoints


def served_fixtures(log_folder: str, timeout_ms: int = 120_000):
    """The fixtures ``url`` (module-scoped: app.py served with ``$ATLAS_CHECKPOINTS`` = the
    module's ``checkpoints`` fixture, its log in a temporary ``log_folder``; the session's one
    server, ``app_url``, when those are the shipped checkpoints) and ``tab`` (a fresh tab per
    test, ``timeout_ms`` for each wait). In a test module: ``url, tab = served_fixtures(...)``."""

    @pytest.fixture(scope="module")
    def url(checkpoints: Path, request: pytest.FixtureRequest) -> Iterator[str]:
        if checkpoints == SHIPPED_ROOT:  # what the session's server reads: no server of its own
            yield request.getfixturevalue("app_url")
            return
        log = request.getfixturevalue("tmp_path_factory").mktemp(log_folder) / "server.log"
        with served_with(CHECKPOINTS_ENV, checkpoints, log) as base:
            yield base

    @pytest.fixture
    def tab(browser, url: str) -> Iterator[object]:
        with open_tab(browser, timeout_ms) as page:
            yield page

    return url, tab


def shoot(page, path: Path, height: int) -> None:
    """Screenshot the whole app: Streamlit scrolls inside its own container, so grow the viewport
    to ``height`` (then back to 1000)."""
    page.set_viewport_size({"width": 1400, "height": height})
    wait_still(page, quiet_ms=RESIZED_MS, sized=True)  # plotly has drawn each chart to its new size
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": 1400, "height": 1000})


# Settled: the script is not running (stApp's data-test-script-state), nothing is stale, every
# chart element (``CHART``: st.plotly_chart's, and the chart component's, ui/plotly_component.py)
# holds a drawn plotly chart (layout and SVG), there are at least ``least`` charts, and the number
# of charts and of their SVG texts (with ``sized``: and the size each chart is drawn at, plotly's
# and its element's) has not changed for ``quiet`` ms.
_STILL = """([quiet, least, box, sized]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const drawn = gd => !!(gd && gd._fullLayout && gd.querySelector('.main-svg'));
  const charts = [...document.querySelectorAll('.js-plotly-plot')];
  const boxes = [...document.querySelectorAll(box)];
  const idle = app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-stale="true"]') && charts.length >= least
    && charts.every(drawn) && boxes.every(b => drawn(b.querySelector('.js-plotly-plot')));
  const size = gd => { const r = gd.getBoundingClientRect(), fl = gd._fullLayout || {};
    return [fl.width, fl.height, Math.round(r.width), Math.round(r.height)].join('x'); };
  const sig = charts.length + ':' + document.querySelectorAll('.js-plotly-plot svg text').length
    + (sized ? ':' + charts.map(size).join(',') : '');
  const now = Date.now(), last = window.__atlasStill;
  if (!idle) { window.__atlasStill = null; return false; }
  if (!last || last.sig !== sig) { window.__atlasStill = {sig, since: now}; return false; }
  return now - last.since >= quiet;
}"""


def wait_still(
    page,
    quiet_ms: int = 1500,
    least: int = 0,
    timeout_ms: float | None = None,
    sized: bool = False,
) -> None:
    """Like :func:`wait_settled` for a page whose number of charts is not known in advance: the
    script has finished, nothing is stale, every chart element has drawn its chart (at least
    ``least`` of them), and nothing was added to or removed from the charts for ``quiet_ms``
    (``sized``: nor has any chart been drawn at another size, as after a resize).
    ``timeout_ms``: the page's default timeout unless given."""
    page.evaluate("window.__atlasStill = null")
    arg = [quiet_ms, least, CHART, sized]
    page.wait_for_function(_STILL, arg=arg, polling=100 if sized else 250, timeout=timeout_ms)


def still(
    page, quiet_ms: int = 1500, least: int = 0, timeout_ms: float = 120_000, sized: bool = False
) -> Wait:
    """:func:`wait_still` as a wait for a :class:`tests.tab_pool.TabPool` job: ``ok = yield
    still(page)`` (True once the page is still, False after ``timeout_ms``)."""
    page.evaluate("window.__atlasStill = null")
    return Wait(
        _STILL, [quiet_ms, least, CHART, sized], timeout_ms, polling_ms=100 if sized else 250
    )


# The element is where it was the animation frame before (polled every frame): scrolling is over.
_HELD = """el => { const top = el.getBoundingClientRect().top, held = el.__atlasTop === top;
  el.__atlasTop = top; return held; }"""


def scroll_to(page, locator) -> None:
    """Scroll ``locator`` into view and wait until it holds its place on screen."""
    locator.scroll_into_view_if_needed()
    handle = locator.element_handle()
    handle.evaluate("el => { delete el.__atlasTop; }")
    page.wait_for_function(_HELD, arg=handle, polling="raf")


def shown_texts(page) -> list[str]:
    """What a person reads on the page: the app's visible text (main area and sidebar; Streamlit's
    own chrome and the sidebar's bilingual language label taken out), then every SVG text node of
    its plotly charts (titles, axes, ticks, legends, slider and button labels)."""
    text = page.locator('[data-testid="stApp"]').inner_text()
    text = STREAMLIT_CHROME.sub(" ", text).replace(LANGUAGE_LABEL, " ")
    icons = set(page.locator(ICONS).all_inner_texts())  # each on a line of its own
    text = "\n".join(line for line in text.splitlines() if line.strip() not in icons)
    # a multi-line SVG text is one <tspan> per line: read its lines apart, as a person does (the
    # page's inner text glues them: "▁chien" + "p_t = 1.00" would read "▁chienp_t = 1.00")
    pairs = page.locator(f"{CHART} .main-svg text").evaluate_all(
        "nodes => nodes.map(n => { const lines = n.querySelectorAll('tspan.line');"
        " return [n.textContent, lines.length ? [...lines].map(l => l.textContent).join(' ')"
        " : n.textContent]; })"
    )
    for glued, spaced in pairs:
        if glued != spaced:
            text = text.replace(glued, spaced)
    return [text, *(spaced for __, spaced in pairs)]


def english_left(texts: Iterable[str], allowed: Iterable[str] = ()) -> set[str]:
    """The English words (``tests.test_i18n_app.english_words``) in ``texts`` other than the
    ``allowed`` ones: the tokens and names a test lists precisely for its page."""
    kept = {word.lower() for word in allowed}
    return {word for text in texts for word in english_words(text) if word.lower() not in kept}


def glyph_boxes(texts: Iterable[str]) -> list[str]:
    """The texts that show a missing-glyph box or a replacement character."""
    return [text for text in texts if any(mark in text for mark in MISSING_GLYPHS)]


def assert_chinese(texts: list[str], allowed: Iterable[str] = ()) -> None:
    """No English word beyond ``allowed`` in ``texts`` (``english_left``) and no missing-glyph
    box."""
    assert not english_left(texts, allowed), sorted(english_left(texts, allowed))
    assert not glyph_boxes(texts), glyph_boxes(texts)


def switch_language(page, name: str, code: str) -> None:
    """Pick ``name`` ('English', '简体中文') in the sidebar's language select; wait for ``?lang=code``
    and for the rerun to finish: no element left from the run before (Streamlit marks those
    ``data-stale``), so every chart shows the new language."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator('[data-testid="stSelectbox"]', has_text=LANGUAGE_LABEL).click()
    page.get_by_role("option", name=name, exact=True).click()
    page.wait_for_url(f"**lang={code}**")
    page.wait_for_function(
        "!document.querySelector('[data-stale=true], [data-testid=stStatusWidget]')",
        polling=200,
    )


_PLOTLY_MARKUP = re.compile(r"%\{[^}]*\}|<[^>]*>")  # %{y:.2f}, <br>, <extra></extra>


def chart_hover_texts(page) -> list[str]:
    """What the plotly charts show on hover, read from their data (a hover draws one label at a
    time): each trace's hovertemplate, hovertext and string customdata, plotly's markup removed."""
    raw = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(gd => (gd.data || [])"
        ".flatMap(t => [t.hovertemplate, t.hovertext, t.customdata].flat(3)))"
        ".filter(s => typeof s === 'string')"
    )
    return [_PLOTLY_MARKUP.sub(" ", text) for text in raw]


def in_own_thread(function, *args):
    """``function(*args)`` in a thread of its own: Playwright's sync API, used by the browser
    tests that may run earlier in this process, leaves an event loop running in the main thread,
    and asyncio.run() refuses to start inside it."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args).result()
