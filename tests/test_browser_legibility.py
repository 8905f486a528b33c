"""Every chart on every page legible on every screen (issue 13), judged by ``tests.legibility``.

In Chromium, for every page of ``ui/pages.toml`` and home (and the views listed in ``VIEWS``), in
six set-ups (a projector at 1280x720 and a large screen at 1920x1080 in classroom mode, a laptop at
1280x800 and a phone at 390x844 without it; the projector and the laptop again in Chinese), after
the page's default input and, in English, for a page that takes text, after a 46-word sentence
(100 word pieces on the pretrained encoder's Multi-head view): no chart text clipped or
overlapping another, no text under the minimum size, heatmap cells large enough, every token
labelled (``tests/legibility.py`` states the rules), and no error shown. At 1280x720 in classroom
mode the page's main chart also starts on the first screen.

One server for the module (the shipped checkpoints, committed with the repository); one browser
context per set-up, one page load per test. With ``LEGIBILITY_REPORT=<file>`` the problems found
are also written to that file, page by page (never a file of the repository unless named).
"""

from __future__ import annotations

import os
import re
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import plotly
import plotly.graph_objects as go
import pytest

from models.checkpoints import SHIPPED_ROOT
from tests.browser_helpers import served_fixtures, wait_still
from tests.legibility import check_page, main_chart_top, overlap
from ui.registry import PAGES, ROOT
from ui.translation import EXAMPLE_PAIRS, EXAMPLES

pytestmark = pytest.mark.browser
REPORT_ENV = "LEGIBILITY_REPORT"
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'

# 46 words, under the Positional encoding page's 300 characters.
LONG = (
    "The old fisherman and his young grandson walked slowly along the quiet beach at sunrise, "
    "carrying two wooden baskets of fresh bread and ripe apples, while a small brown dog ran "
    "ahead of them and chased the white birds that rested near the cold blue waves."
)
LONG_FR = (
    "Le vieux pêcheur et son jeune petit-fils marchaient lentement le long de la plage "
    "tranquille au lever du soleil, portant deux paniers en bois de pain frais et de pommes "
    "mûres, tandis qu'un petit chien brun courait devant eux et chassait les oiseaux blancs qui "
    "se reposaient près des vagues bleues et froides."
)
# 100 pieces for all-MiniLM-L6-v2, [CLS] and [SEP] included (test_long_inputs checks both counts).
PIECES = LONG + (
    " Later that morning the villagers gathered in the crowded marketplace to exchange their "
    "unusual handmade pottery, embroidered tablecloths and fragrant cardamom biscuits before the "
    "afternoon thunderstorm arrived, soaking everyone and scattering the startled pigeons across "
    "the cathedral square today."
)

# Each page's URL parameter for its text (a page with a text box must be listed: see
# test_every_text_page_is_listed); the pages' other views worth judging, as URL parameters.
TEXT_PARAM = {
    "recurrent": "rc_text",
    "why_attention": "why_text",
    "alignment": "aln_text",
    "local_attention": "loc_text",
    "multi_head": "mh_text",
    "scaling": "sdk_text",
    "positional_encoding": "pe_sentence",
}
REFERENCE_PARAM = {"why_attention": "why_ref", "alignment": "aln_ref"}  # French, for BLEU
WITHOUT_CHARTS = {"", "lab"}  # home; the lab until a run is trained: no chart to wait for
VIEWS = {
    "alignment": [{"aln_mode": "reference"}, {"aln_mode": "compare"}],
    "multi_head": [{"mh_model": "pretrained"}],
}


@dataclass(frozen=True)
class Setup:
    """A screen: its viewport, classroom mode and language."""

    name: str
    width: int
    height: int
    classroom: bool
    lang: str
    main_chart_on_first_screen: bool = False

    def params(self) -> dict[str, str]:
        return {"lang": self.lang, **({"classroom": "true"} if self.classroom else {})}

    def describe(self) -> str:
        mode = "classroom" if self.classroom else "normal"
        return f"{self.width}x{self.height}, {mode}, {self.lang}"


SETUPS = [
    Setup("projector", 1280, 720, True, "en", main_chart_on_first_screen=True),
    Setup("large", 1920, 1080, True, "en"),
    Setup("laptop", 1280, 800, False, "en"),
    Setup("phone", 390, 844, False, "en"),
    Setup("projector-zh", 1280, 720, True, "zh", main_chart_on_first_screen=True),
    Setup("laptop-zh", 1280, 800, False, "zh"),
]


@dataclass(frozen=True)
class Case:
    """One view of one page: its URL path, its parameters, and which input it shows."""

    page: str  # the url_path ('' for home)
    view: dict[str, str] = field(default_factory=dict)
    long: bool = False

    def name(self) -> str:
        view = ",".join(f"{k}={v}" for k, v in self.view.items())
        return f"{self.page or 'home'}{f'[{view}]' if view else ''}"

    def params(self) -> dict[str, str]:
        """The view's parameters and, for the long input, the page's text (and reference)."""
        params = dict(self.view)
        if self.long:
            pretrained = self.view.get("mh_model") == "pretrained"
            params[TEXT_PARAM[self.page]] = PIECES if pretrained else LONG
            if self.page in REFERENCE_PARAM:
                params[REFERENCE_PARAM[self.page]] = LONG_FR
        elif self.page == "alignment" and self.view.get("aln_mode") == "reference":
            params["aln_ref"] = EXAMPLE_PAIRS[EXAMPLES[0]]  # the default sentence's reference
        return params

    def shown_params(self) -> str:
        """The parameters as a person would retype them, the long texts abbreviated."""
        named = {LONG: "<LONG: 46 words>", PIECES: "<PIECES: 100 pieces>", LONG_FR: "<LONG_FR>"}
        return "&".join(f"{k}={named.get(v, v)}" for k, v in self.params().items())


def _cases() -> list[Case]:
    cases = [Case("")]
    for entry in PAGES:
        if not entry.exists():
            continue
        for view in [{}, *VIEWS.get(entry.url_path, [])]:
            cases.append(Case(entry.url_path, view))
            if entry.url_path in TEXT_PARAM:
                cases.append(Case(entry.url_path, view, long=True))
    return cases


CASES = _cases()
# In Chinese the default input only: the long input's labels are the same tokens in both languages.
RUNS = [(s, c) for s in SETUPS for c in CASES if s.lang == "en" or not c.long]


@pytest.fixture(scope="module")
def checkpoints() -> Path:
    """The shipped checkpoints (committed): the charts a person sees are the trained models'."""
    return SHIPPED_ROOT


url, _tab = served_fixtures("streamlit_legibility", 180_000)


class Tabs:
    """One browser context (and tab) per set-up, the previous one closed when the set-up
    changes; the problems found, for ``$LEGIBILITY_REPORT``; the time spent."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.setup: Setup | None = None
        self.context = None
        self.page = None
        self.found: dict[str, list[str]] = {}
        self.runs = 0
        self.start = time.monotonic()

    def tab(self, setup: Setup):
        if setup != self.setup:
            self.close()
            viewport = {"width": setup.width, "height": setup.height}
            self.context = self.browser.new_context(viewport=viewport)
            self.page = self.context.new_page()
            self.page.set_default_timeout(180_000)
            self.setup = setup
        return self.page

    def close(self) -> None:
        if self.context is not None:
            self.context.close()
        self.context = self.page = self.setup = None

    def write_report(self, path: Path) -> None:
        elapsed = time.monotonic() - self.start
        lines = [
            f"Legibility check: {len(self.found)} of {self.runs} page views with problems "
            f"({elapsed:.0f} s)"
        ]
        for where, problems in sorted(self.found.items()):
            lines += ["", f"{where}: {len(problems)} problems", *(f"  {p}" for p in problems)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def tabs(browser) -> Iterator[Tabs]:
    tabs = Tabs(browser)
    yield tabs
    tabs.close()
    report = os.environ.get(REPORT_ENV)
    if report:
        tabs.write_report(Path(report))
    print(f"\nlegibility: {tabs.runs} page views in {time.monotonic() - tabs.start:.0f} s")


def _open(page, base: str, setup: Setup, case: Case) -> list[str]:
    """Load the case's page and wait until it is still; [] or the problem that no chart came
    where the page draws charts (nothing would be judged)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # with the browser fixture

    query = urllib.parse.urlencode({**setup.params(), **case.params()})
    page.goto(f"{base}/{case.page}?{query}")
    wait_still(page, quiet_ms=1000)
    if case.page in WITHOUT_CHARTS or page.locator(".js-plotly-plot").count():
        return []
    try:
        wait_still(page, quiet_ms=1000, least=1, timeout_ms=30_000)
    except PlaywrightTimeout:
        return ["no chart drawn, 30 s after the page was still: nothing could be judged"]
    return []


@pytest.fixture(scope="module")
def server_log(url: str, tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The served app's log (``served_fixtures`` writes it under ``streamlit_legibility*``)."""
    return next(tmp_path_factory.getbasetemp().glob("streamlit_legibility*/server.log"), None)


def _logged(log: Path | None, error_id: str) -> str:
    """The last line of the traceback the server logged under ``error_id`` ('' if none)."""
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines() if log else []
    start = next((i for i, line in enumerate(lines) if f"error {error_id} " in line), None)
    if start is None:
        return ""
    record = []
    for line in lines[start + 1 :]:
        if re.match(r"\d{4}-\d\d-\d\d |error [0-9a-f]{8} on page", line):  # the next record
            break
        if line.strip() and not line[0].isspace():  # not a frame of the traceback
            record.append(line.strip())
    return record[-1] if record else ""


def _errors(page, log: Path | None) -> list[str]:
    """The errors the page shows (an exception, or ``ui.errors``' sentence with its id, then
    what the server logged under that id)."""
    problems = []
    for text in page.locator(ERRORS).all_inner_texts():
        error_id = re.search(r"\b[0-9a-f]{8}\b", text)
        logged = _logged(log, error_id.group()) if error_id else ""
        problems.append(f"the page shows an error: {logged or ' '.join(text.split())[:200]!r}")
    return problems


def _first_screen(page, setup: Setup) -> list[str]:
    if not setup.main_chart_on_first_screen:
        return []
    top = main_chart_top(page)
    if top is None or 0 <= top < setup.height:
        return []
    return [f"main chart starts at {top:.0f} px, below the first screen ({setup.height} px)"]


def _problems(page, setup: Setup, log: Path | None) -> list[str]:
    return [
        *_errors(page, log),
        *_first_screen(page, setup),
        *check_page(page, classroom=setup.classroom),
    ]


@pytest.mark.parametrize(
    ("setup", "case"),
    RUNS,
    ids=[f"{s.name}-{c.name()}-{'long' if c.long else 'default'}" for s, c in RUNS],
)
def test_every_chart_is_legible(tabs, url, server_log, setup: Setup, case: Case):
    page = tabs.tab(setup)
    missing = _open(page, url, setup, case)
    tabs.runs += 1
    problems = missing + _problems(page, setup, server_log)
    if problems:  # a chart caught mid-redraw? Judge again once the page has been still a while
        wait_still(page, quiet_ms=1000)
        problems = missing + _problems(page, setup, server_log)
    where = (
        f"{case.name()} ({'long' if case.long else 'default'} input) at {setup.describe()}"
        f" · /{case.page}?{case.shown_params()}"
    )
    if problems:
        tabs.found[where] = problems
    assert not problems, f"{where}: {len(problems)} problems\n" + "\n".join(problems)


# ------------------------------------------------------------ the lists above stay true


def test_every_text_page_is_listed():
    """A page with a text box has its URL parameter in TEXT_PARAM (else its long input would
    silently go unjudged), and every listed parameter appears in its page's code."""
    for entry in PAGES:
        if not entry.exists():
            continue
        source = (ROOT / entry.file).read_text(encoding="utf-8")
        takes_text = "sentence_ui(" in source or "text_input(" in source
        assert takes_text == (entry.url_path in TEXT_PARAM), entry.file
        if takes_text:
            param = TEXT_PARAM[entry.url_path]
            prefix = param.removesuffix("text")
            assert f'"{param}"' in source or f'sentence_ui("{prefix}"' in source, param


def test_long_inputs():
    """46 words; 100 pieces for the pretrained encoder, [CLS] and [SEP] included."""
    from models.transformer.pretrained import PretrainedEncoder

    assert len(LONG.split()) == 46 and len(LONG) <= 300
    assert len(PretrainedEncoder.load().attend(PIECES).tokens) == 100


def test_logged_finds_the_exception_of_an_error_id(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(
        "2026-12-01 07:20:25.941 Uvicorn server started\n"
        "error 0fc4a558 on page why_attention\nTraceback (most recent call last):\n"
        '  File "app_pages/why_attention.py", line 9, in <module>\n    main()\n'
        "ValueError: 3 labels for 4 columns\n"
        "error 1e710274 on page lab\nTraceback (most recent call last):\n"
        "KeyError: 'lab_runs'\n",
        encoding="utf-8",
    )
    assert _logged(log, "0fc4a558") == "ValueError: 3 labels for 4 columns"
    assert _logged(log, "1e710274") == "KeyError: 'lab_runs'"
    assert _logged(log, "deadbeef") == "" and _logged(None, "0fc4a558") == ""


# ------------------------------------------------------------ the judge itself


def test_overlap_of_rotated_boxes():
    square = (0, 0, 10, 0, 10, 10, 0, 10)
    assert overlap(square, (5, 5, 15, 5, 15, 15, 5, 15)) == pytest.approx(5)
    assert overlap(square, (11, 0, 21, 0, 21, 10, 11, 10)) == 0
    diamond = (15, 5, 20, 10, 15, 15, 10, 10)  # apart, though its hull meets the square's
    assert overlap((0, 0, 10, 0, 10, 10, 0, 10), diamond) == 0
    assert overlap(square, (9, 9, 14, 4, 19, 9, 14, 14)) > 0


PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
WORDS = re.findall(r"\w+", LONG)


def _plot(page, *figures: go.Figure) -> None:
    """Draw ``figures`` with plotly.js in an empty page, one div each."""
    page.set_content("".join(f'<div id="c{i}"></div>' for i in range(len(figures))))
    page.add_script_tag(path=str(PLOTLY_JS))
    specs = [fig.to_plotly_json() for fig in figures]
    page.evaluate(
        "async (specs) => { for (const [i, f] of specs.entries())"
        " await Plotly.newPlot('c' + i, f.data, f.layout); }",
        [{"data": s["data"], "layout": s["layout"]} for s in specs],
    )


@pytest.fixture
def blank(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    try:
        yield context.new_page()
    finally:
        context.close()


def _bars(labels: list[str], **layout) -> go.Figure:
    fig = go.Figure(go.Bar(x=labels, y=list(range(1, len(labels) + 1))))
    return fig.update_layout(width=700, height=400, title="bars", **layout)


def test_judge_passes_a_legible_chart(blank):
    _plot(blank, _bars(["short", "medium", "long"], margin={"t": 60, "b": 60, "l": 60, "r": 20}))
    assert check_page(blank, classroom=False) == []
    problems = check_page(blank, classroom=True)  # plotly's 12 px: under classroom's 16
    assert problems and all("classroom minimum 16" in p or "under 16 px" in p for p in problems)


def test_judge_finds_clipped_overlapping_small_and_dropped_labels(blank):
    clipped = _bars(["a"], margin={"t": 0, "b": 60, "l": 60, "r": 20})
    crowded = _bars(WORDS, xaxis={"tickmode": "array", "tickvals": WORDS, "tickangle": 0})
    tiny = _bars(["a", "b"], xaxis={"tickfont": {"size": 8}})
    dropped = _bars([f"w{i}" for i in range(200)])
    _plot(blank, clipped, crowded, tiny, dropped)
    problems = "\n".join(check_page(blank, classroom=False))
    assert re.search(r"chart 1 'bars': title 'bars' clipped at top by \d+ px", problems), problems
    assert re.search(r"chart 2 'bars': xtick '\w+' overlaps xtick '\w+'", problems), problems
    assert "chart 3 'bars': xtick 'a' drawn at 8.0 px (minimum 11)" in problems, problems
    assert re.search(r"chart 4 'bars': x axis draws \d+ tick labels for 200 categor", problems)


def test_judge_measures_heatmap_cells_along_token_axes(blank):
    tokens = WORDS[:30]
    fig = go.Figure(go.Heatmap(z=[[0.5] * 30] * 30, x=list(range(30)), y=list(range(30))))
    fig.update_layout(width=400, height=400, margin={"t": 20, "b": 20, "l": 20, "r": 20})
    numeric = go.Figure(fig)  # positions: no label per cell, no minimum
    fig.update_xaxes(tickmode="array", tickvals=list(range(30)), ticktext=tokens)
    _plot(blank, numeric, fig)
    cells = [p for p in check_page(blank, classroom=False) if "cells" in p]
    assert len(cells) == 1 and cells[0].startswith("chart 2"), cells
    assert re.search(r"cells \d+\.\d px wide for 30 columns \(minimum 14\)", cells[0]), cells
