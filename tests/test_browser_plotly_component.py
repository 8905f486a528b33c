"""The chart component in real Chromium (tests/plotly_component_app.py): it draws the figure,
updates it in place when the data change (the same DOM nodes, drawn again with Plotly.react), sends
a clicked cell back to Python, lets a chart wider than the column scroll, loads nothing but its
own server's files, keeps the legibility judge's view of the chart, and falls back to
st.plotly_chart, with no error shown, when it is turned off or plotly.js cannot be loaded.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.browser_helpers import CHART, open_tab
from tests.legibility import check_page
from tests.server import streamlit_server
from ui.plotly_component import ENV

pytestmark = pytest.mark.browser
APP = "tests/plotly_component_app.py"
HOST = ".atlas-plotly"  # the component's chart (plotly's .js-plotly-plot inside)
ERRORS = '[data-testid="stException"], [data-testid="stAlert"]'


@contextmanager
def _served(setting: str | None, log: Path) -> Iterator[str]:
    """The test app served with ``ATLAS_PLOTLY_COMPONENT`` = ``setting`` (unset: None)."""
    old = os.environ.pop(ENV, None)
    if setting is not None:
        os.environ[ENV] = setting
    try:
        with streamlit_server(APP, log=log) as (base, _):
            yield base
    finally:
        os.environ.pop(ENV, None)
        if old is not None:
            os.environ[ENV] = old


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _served(None, tmp_path_factory.mktemp("pc_server") / "server.log") as base:
        yield base


@pytest.fixture(scope="module")
def url_off(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _served("0", tmp_path_factory.mktemp("pc_server_off") / "server.log") as base:
        yield base


@pytest.fixture
def tab(browser) -> Iterator[object]:
    with open_tab(browser) as page:
        yield page


def _settled(page) -> None:
    """The script has finished, nothing is stale, and no component chart is still drawing."""
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stApp]')?.dataset.testScriptState"
        " === 'notRunning' && !document.querySelector('[data-stale=true]')"
        f" && [...document.querySelectorAll('{CHART}')].every(c => c.querySelector('.main-svg'))"
        " && !document.querySelector('[data-drawing]')",
        polling=100,
    )


def _ticks(page) -> list[str]:
    return page.locator(f"{CHART} .xtick text").all_text_contents()


def _type(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Words")
    box.fill(text)
    box.press("Enter")


def test_draws_updates_in_place_and_sends_a_click_back(tab, url):
    requests: list[str] = []
    tab.on("request", lambda request: requests.append(request.url))
    tab.goto(url)
    tab.locator(f"{HOST} .main-svg").first.wait_for()
    _settled(tab)
    assert tab.locator(CHART).count() == 1 and tab.locator(f"{HOST} .js-plotly-plot").count() == 1
    assert _ticks(tab) == ["the", "cat", "sat", "down"]
    assert tab.get_attribute(HOST, "data-draws") == "1"
    tab.evaluate(f"document.querySelector('{HOST} .js-plotly-plot').__atlasMark = 'first'")

    _type(tab, "a dog ran far away")
    tab.wait_for_function(f"[...document.querySelectorAll('{CHART} .xtick text')].length === 5")
    _settled(tab)
    assert _ticks(tab) == ["a", "dog", "ran", "far", "away"]
    # the same div, drawn a second time: updated in place, not mounted anew
    assert tab.evaluate(f"document.querySelector('{HOST} .js-plotly-plot').__atlasMark") == "first"
    assert tab.get_attribute(HOST, "data-draws") == "2"

    cell = tab.locator(f"{HOST} .nsewdrag").first.bounding_box()  # the plot area: 5 x 5 cells
    tab.mouse.click(cell["x"] + cell["width"] * 0.3, cell["y"] + cell["height"] * 0.1)
    tab.get_by_text("picked: target: a<br>source: dog").wait_for()  # row "a", column "dog"
    _settled(tab)
    assert tab.evaluate(f"document.querySelector('{HOST} .js-plotly-plot').__atlasMark") == "first"
    assert tab.get_attribute(HOST, "data-draws") == "2"  # same figure: not drawn again
    assert tab.locator(ERRORS).count() == 0
    # plotly.js and the script come from the component's asset folder on the app's own server
    assert f"{url}/_stcore/bidi-components/atlas-plotly.chart/plotly.min.js" in requests
    assert not [r for r in requests if not r.startswith((url, "data:", "blob:"))]


def test_the_toolbar_stays_off_the_title_while_the_cells_are_read(tab, url):
    """Plotly's toolbar showed over the chart's title whenever the pointer was on the
    chart. It shows over the chart's top margin only (where it is), not over the plot."""
    tab.goto(url)
    tab.locator(f"{HOST} .main-svg").first.wait_for()
    _settled(tab)
    plot = tab.locator(f"{HOST} .nsewdrag").first.bounding_box()
    chart = tab.locator(f"{HOST} .js-plotly-plot").first.bounding_box()
    tab.mouse.move(plot["x"] + plot["width"] / 2, plot["y"] + plot["height"] / 2)  # on a cell
    tab.locator(f"{HOST} .hoverlayer .hovertext").first.wait_for()  # the cell's hover label
    tab.wait_for_function(  # (plotly fades the toolbar in and out over 0.3 s)
        f"getComputedStyle(document.querySelector('{HOST} .modebar-group')).opacity === '0'"
    )
    tab.mouse.move(chart["x"] + chart["width"] - 40, chart["y"] + 10)  # the top margin
    tab.wait_for_function(
        f"getComputedStyle(document.querySelector('{HOST} .modebar-group')).opacity === '1'"
    )
    tab.mouse.move(plot["x"] + plot["width"] / 2, plot["y"] + plot["height"] / 2)
    tab.wait_for_function(
        f"getComputedStyle(document.querySelector('{HOST} .modebar-group')).opacity === '0'"
    )


def test_no_toolbar_on_a_phone(tab, url):
    """On a phone plotly's toolbar covered the charts' titles (a tap on the top margin shows it,
    and a narrow chart's title spans that margin): on a narrow screen there is none, on the top
    margin either; a wide screen keeps it."""
    tab.set_viewport_size({"width": 390, "height": 844})
    tab.goto(url)
    tab.locator(f"{HOST} .main-svg").first.wait_for()
    _settled(tab)
    chart = tab.locator(f"{HOST} .js-plotly-plot").first.bounding_box()
    tab.mouse.move(chart["x"] + chart["width"] - 40, chart["y"] + 10)  # the top margin
    tab.wait_for_function(  # not laid out at all: no button takes any room over the title
        f"[...document.querySelectorAll('{HOST} .modebar-btn')]"
        ".every(b => !b.getClientRects().length)",
        timeout=5_000,
    )
    tab.set_viewport_size({"width": 1280, "height": 800})
    tab.wait_for_function(
        f"getComputedStyle(document.querySelector('{HOST} .modebar-container')).display !== 'none'"
    )


def _wide_chart(tab, url: str, wide: str):
    """The test app's second chart (``?wide=...``) at 900 px, drawn and still."""
    tab.set_viewport_size({"width": 900, "height": 1000})
    tab.goto(f"{url}/?wide={wide}")
    tab.wait_for_function(f"document.querySelectorAll('{HOST} .js-plotly-plot').length === 2")
    _settled(tab)
    return tab.locator(HOST).nth(1)


def test_a_wide_chart_scrolls_and_the_judge_sees_every_chart(tab, url):
    wide = _wide_chart(tab, url, "1")
    sizes = wide.evaluate("h => [h.scrollWidth, h.clientWidth, getComputedStyle(h).overflowX]")
    assert sizes[0] >= 1600 > sizes[1] and sizes[2] == "auto", sizes
    assert tab.locator(f"{HOST} .js-plotly-plot").count() == 2
    assert check_page(tab, classroom=False) == []


def test_a_wide_map_of_tokens_is_wrapped_instead(tab, url):
    """The same 1,600 px map with its columns labelled by tokens is wrapped in blocks
    of columns one under the other (viz.wrap): nothing scrolls, every column keeps its label."""
    wide = _wide_chart(tab, url, "tokens")
    sizes = wide.evaluate("h => [h.scrollWidth, h.clientWidth]")
    assert sizes[0] <= sizes[1] + 1, sizes
    assert wide.locator(".cartesianlayer > .subplot").count() >= 2
    ticks = wide.locator(".xaxislayer-above text").all_text_contents()  # .xtick, .x2tick, ...
    assert sorted(set(ticks)) == sorted(f"w{i}" for i in range(80))
    assert check_page(tab, classroom=False) == []


def test_turned_off_it_is_st_plotly_chart(tab, url_off):
    tab.goto(url_off)
    tab.locator(f"{CHART} .main-svg").first.wait_for()
    _settled(tab)
    assert tab.locator(HOST).count() == 0 and tab.locator(CHART).count() == 1
    assert _ticks(tab) == ["the", "cat", "sat", "down"]
    assert tab.locator(ERRORS).count() == 0


def test_without_plotly_js_it_falls_back_with_no_error(tab, url):
    """plotly.js cannot be loaded: the chart asks Python to fall back, and st.plotly_chart draws it."""
    tab.route("**/plotly.min.js", lambda route: route.abort())
    tab.goto(url)
    tab.locator('[data-testid="stPlotlyChart"]:not(.atlas-plotly) .main-svg').first.wait_for()
    _settled(tab)
    assert tab.locator(HOST).count() == 0 and _ticks(tab) == ["the", "cat", "sat", "down"]
    assert tab.locator(ERRORS).count() == 0
    assert tab.get_by_text("BidiComponent Error").count() == 0
