"""A chart saved as one HTML file opens offline: on the Alignment page the heatmap's "Download as
HTML" button, reached and pressed by keyboard, saves a page that, opened from disk with every
network request refused, draws the chart with its tokens, has its name, summary and numbers'
table, and passes the accessibility judge (as the app's page with the button does)."""

from __future__ import annotations

import pytest

from tests.accessibility import access_problems

pytestmark = pytest.mark.browser
SENTENCE = "A black dog runs."


@pytest.fixture
def offline(browser):
    """A tab that can open files only: any other request is refused and noted."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    refused: list[str] = []

    def route(request_route):
        url = request_route.request.url
        if url.startswith(("file:", "data:", "blob:")):
            request_route.continue_()
        else:
            refused.append(url)
            request_route.abort()

    tab.route("**/*", route)
    try:
        yield tab, refused
    finally:
        context.close()


def test_a_chart_saved_as_html_opens_offline(page, app_url, offline, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{app_url}/alignment?lang=en&aln_text={SENTENCE.replace(' ', '+')}")
    heatmap = page.get_by_role("figure", name="Bahdanau (additive)")
    heatmap.wait_for()
    numbers = heatmap.get_by_role("button", name="Show the numbers as a table")
    numbers.focus()
    page.keyboard.press("Tab")  # the next stop after the numbers' button
    # the keyboard's button (the toolbar's, for a pointer, has the same name: below)
    save = heatmap.locator("button").filter(has_text="Download as HTML")
    assert save.evaluate("b => b === document.activeElement")
    assert save.is_visible()  # out of sight until it has the focus, as the numbers' button
    with page.expect_download() as saved:
        page.keyboard.press("Enter")
    download = saved.value
    assert download.suggested_filename.endswith(".html")
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    assert access_problems(page, "en") == []  # the page with its new button passes too
    save.evaluate("b => b.blur()")  # out of sight again
    heatmap.hover()  # a pointer finds the same download in the chart's toolbar
    pointer = heatmap.locator('.modebar-btn[data-title="Download as HTML"]')
    with page.expect_download() as by_pointer:
        pointer.click()
    assert by_pointer.value.suggested_filename == download.suggested_filename

    tab, refused = offline
    tab.goto(path.as_uri())
    tab.locator("#atlas-chart .main-svg").first.wait_for()
    drawn = tab.locator("#atlas-chart").evaluate("c => c.textContent")
    assert "▁black" in drawn and "▁noir" in drawn  # the tokens, drawn by plotly.js
    assert tab.title() == "Bahdanau (additive)"
    assert tab.get_by_role("heading", level=1).inner_text() == "Bahdanau (additive)"
    summary = tab.locator("#atlas-summary").inner_text()
    assert "When the model writes “▁noir”, most weight is on “▁black”" in summary
    table = tab.get_by_role("table").first
    assert table.get_by_role("columnheader", name="▁black").count() == 1
    assert table.get_by_role("rowheader", name="▁noir").count() == 1
    assert tab.evaluate("document.documentElement.lang") == "en"
    assert access_problems(tab, "en") == []
    assert refused == []  # it asked the network for nothing
