"""Every chart on every page legible on every screen, judged by ``tests.legibility``.

In Chromium, for every page of ``ui/pages.toml`` and home (and the views listed in ``VIEWS``), in
seven set-ups (a projector at 1280x720 and a large screen at 1920x1080 in classroom mode, a laptop
at 1280x800 and a phone at 390x844 without it; the projector, the laptop and the phone again in
Chinese), after the page's default input and, in English, for a page that takes text, after a
46-word sentence (100 word pieces on the pretrained encoder's Multi-head view): no chart text
clipped or overlapping another, no text under the minimum size, heatmap cells large enough, every
token labelled (``tests/legibility.py`` states the rules), and no error shown; at the projector,
the laptop and the phone, in both languages, the accessibility judge passes too (``tests/
accessibility.py``: no serious or critical axe-core violation, every chart named and described,
the document's language declared). At 1280x720 in
classroom mode the page's main chart also starts on the first screen; on the pages laid out chart
first (``WHOLE_ON_FIRST_SCREEN``) it lies wholly on it, at 1280x720 and 1920x1080; and no chart
is hidden in part sideways but on a phone, with either input.

One server for the module (the shipped checkpoints, committed with the repository). The set-ups of
one language and mode share a page load (``Setup.load``): the page is judged at the first one's
viewport, then again after the window is resized to each of the others'. The loads go ``TABS`` at
a time (``tests/tab_pool.py``), each test judging its own view. With ``LEGIBILITY_REPORT=<file>``
the problems found are also written to that file, page by page (never a file of the repository
unless named).
"""

from __future__ import annotations

import os
import re
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from models.checkpoints import SHIPPED_ROOT
from tests.accessibility import access_problems
from tests.browser_helpers import served_fixtures, still
from tests.legibility import TOLERANCE, check_page, main_chart_box
from tests.server import SERVER_LOGS
from tests.tab_pool import TabPool, goto, need
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
# pages whose text boxes no chart draws: the class code and the nickname of /join
TEXT_WITHOUT_CHARTS = {"join"}
# The set-ups the accessibility judge (tests/accessibility.py: axe-core, every chart named and
# described, the document's language) also looks at: the projector, the laptop and the phone, in
# both languages (the large screen shows what the projector shows).
ACCESS_JUDGED = {"projector", "laptop", "phone", "projector-zh", "laptop-zh", "phone-zh"}
WITHOUT_CHARTS = {
    "",
    "lab",
    "lessons",
    "join",
}  # home; the lab until trained; lesson list; join form
# Pages laid out chart first in classroom mode: in classroom mode (1280x720 and
# 1920x1080) their main chart is wholly on the first screen with the default input.
WHOLE_ON_FIRST_SCREEN = {entry.url_path for entry in PAGES}
# No chart is hidden in part sideways (in a part that scrolls, or past the page's width) but on a
# phone, on any page and in any of its views, with the default and the 46-word input:
# a map of tokens by tokens (or a figure of stacked plots over the same tokens) wider than its
# column is wrapped in blocks of columns one under the other (viz.wrap: a 46-word sentence has
# 50-60 pieces, at 20 px a cell wider than a projector's 1,080 px column); lines over tokens and
# maps of units by tokens are turned on their side (viz.token_rows, ui.charts.across_or_turned).
VIEWS = {
    "alignment": [{"aln_mode": "reference"}, {"aln_mode": "compare"}],
    "multi_head": [{"mh_model": "pretrained"}],
}


@dataclass(frozen=True)
class Setup:
    """A screen: its viewport, classroom mode and language. The set-ups of one ``load`` (the same
    language and mode: the server draws the same page for them) are judged on one page load, the
    first at its own viewport, the others after the window is resized to theirs, as a person
    turning a phone or moving a window to the projector does (the charts follow their column's
    width in the browser, ``components/atlas-plotly``; nothing the server draws depends on it)."""

    name: str
    width: int
    height: int
    classroom: bool
    lang: str
    main_chart_on_first_screen: bool = False

    @property
    def load(self) -> str:
        return f"{'classroom' if self.classroom else 'normal'}-{self.lang}"

    @property
    def phone(self) -> bool:
        """A phone's screen: there a chart of more tokens than fit may scroll sideways."""
        return self.width < 600

    @property
    def viewport(self) -> dict[str, int]:
        return {"width": self.width, "height": self.height}

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
    Setup("phone-zh", 390, 844, False, "zh"),
]


@dataclass(frozen=True)
class Case:
    """One view of one page: its URL path, its parameters, and which input it shows."""

    page: str  # the url_path ('' for home)
    view: dict[str, str] = field(default_factory=dict)
    long: bool = False

    @property
    def key(self) -> tuple[str, bool]:
        """What tells two cases apart (a case is not hashable: its view is a dict)."""
        return self.name(), self.long

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
TABS = 2  # page loads at once (tests/tab_pool.py), per load (one xdist group each)
TEST = "test_every_chart_is_legible"


def _id(setup: Setup, case: Case) -> str:
    return f"{setup.name}-{case.name()}-{'long' if case.long else 'default'}"


Result = tuple[str, list[str]]  # (where, problems) of one view
CaseKey = tuple[str, bool]  # Case.key


class Sweep:
    """The page views of the tests collected, one page load per load and case, ``TABS`` loads at
    a time (one browser tab per load and pool slot); the problems found, for
    ``$LEGIBILITY_REPORT``; the time spent."""

    def __init__(
        self, browser, loads: dict[str, dict[CaseKey, tuple[Case, list[Setup]]]], job
    ) -> None:
        self.browser = browser
        self.pool = TabPool(self._open_tab, width=TABS)
        self.loads = loads  # per load, its cases (and their set-ups) not yet queued, in order
        self.job = job  # (case, set-ups) -> the pool's job for one load: {set-up name: Result}
        self.done: dict[tuple[str, CaseKey], dict[str, Result] | Exception] = {}
        self.found: dict[str, list[str]] = {}
        self.runs = 0
        self.start = time.monotonic()

    def result(self, setup: Setup, case: Case) -> Result:
        """(where, problems) of one view; its load's page loads are queued first if they are not."""
        for queued, setups in self.loads.pop(setup.load, {}).values():
            self.pool.add((setup.load, queued.key), setup.load, self.job(queued, setups))
        key = (setup.load, case.key)
        if key not in self.done:
            try:
                self.done[key] = self.pool.result(key)
            except Exception as error:  # the load failed: each of its set-ups' tests says so
                self.done[key] = error
        done = self.done[key]
        if isinstance(done, Exception):
            raise done
        return done.pop(setup.name)

    def _open_tab(self, load: str):
        # a tab of any size: each job sets its set-ups' viewports (_open, _resize)
        context = self.browser.new_context()
        page = context.new_page()
        page.set_default_timeout(180_000)
        return page, context.close

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
def sweep(browser, url, server_log, request: pytest.FixtureRequest) -> Iterator[Sweep]:
    """The views of ``test_every_chart_is_legible``, queued a load at a time in the tests' order
    (each load is one xdist group, run by one worker): each test waits for its own view while the
    next page loads of its group go on in the other tabs."""
    loads: dict[str, dict[CaseKey, tuple[Case, list[Setup]]]] = {}
    for item in request.session.items:
        if item.module is request.module and getattr(item, "originalname", "") == TEST:
            setup, case = item.callspec.params["setup"], item.callspec.params["case"]
            loads.setdefault(setup.load, {}).setdefault(case.key, (case, []))[1].append(setup)
    sweep = Sweep(browser, loads, lambda case, setups: _load(url, server_log, case, setups))
    yield sweep
    sweep.pool.close()
    report = os.environ.get(REPORT_ENV)
    if report:
        sweep.write_report(Path(report))
    print(f"\nlegibility: {sweep.runs} page views in {time.monotonic() - sweep.start:.0f} s")


def _open(page, base: str, setup: Setup, case: Case):
    """Load the case's page at ``setup``'s viewport and wait until it is still (``yield from``,
    in a pool's job)."""
    page.set_viewport_size(setup.viewport)
    query = urllib.parse.urlencode({**setup.params(), **case.params()})
    yield from goto(page, f"{base}/{case.page}?{query}")
    need((yield still(page, quiet_ms=1000, timeout_ms=180_000)), "the page to be still")


def _resize(page, setup: Setup):
    """Resize the window to ``setup``'s viewport and wait until every chart is drawn at its new
    size (``yield from``)."""
    page.set_viewport_size(setup.viewport)
    redrawn = yield still(page, quiet_ms=600, sized=True)
    need(redrawn, f"the charts redrawn at {setup.describe()}")


def _drawn(page, case: Case):
    """[] or the problem that no chart came where the page draws charts (nothing would be
    judged; ``yield from``)."""
    if case.page in WITHOUT_CHARTS or page.locator(".js-plotly-plot").count():
        return []
    if not (yield still(page, quiet_ms=1000, least=1, timeout_ms=30_000)):
        return ["no chart drawn, 30 s after the page was still: nothing could be judged"]
    return []


@pytest.fixture(scope="module")
def server_log(url: str) -> Path | None:
    """The served app's log (``tests.server`` notes where each server writes its own)."""
    return SERVER_LOGS.get(url)


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


def _first_screen(page, setup: Setup, case: Case) -> list[str]:
    whole = setup.classroom and case.page in WHOLE_ON_FIRST_SCREEN and not case.long
    if not (setup.main_chart_on_first_screen or whole):
        return []
    box = main_chart_box(page)
    if box is None:
        return []
    top, bottom = box
    if whole and (top < -TOLERANCE or bottom > setup.height + TOLERANCE):
        return [
            f"main chart spans {top:.0f}-{bottom:.0f} px: not wholly on the first screen "
            f"({setup.height} px)"
        ]
    if 0 <= top < setup.height:
        return []
    return [f"main chart starts at {top:.0f} px, below the first screen ({setup.height} px)"]


def _problems(page, setup: Setup, case: Case, log: Path | None) -> list[str]:
    return [
        *_errors(page, log),
        *_first_screen(page, setup, case),
        *check_page(page, classroom=setup.classroom, sideways_ok=setup.phone),
        *(access_problems(page, setup.lang) if setup.name in ACCESS_JUDGED else []),
    ]


def _load(base: str, log: Path | None, case: Case, setups: list[Setup]):
    """The pool's job for one page load, judged at each of ``setups`` (one load's, in order):
    {set-up name: (where, its problems)}."""

    def job(page):
        results: dict[str, Result] = {}
        for n, setup in enumerate(setups):
            if n == 0:
                yield from _open(page, base, setup, case)
            else:
                yield from _resize(page, setup)
            missing = yield from _drawn(page, case)
            problems = missing + _problems(page, setup, case, log)
            if problems:  # caught mid-redraw? Judge again once the page has been still a while
                need((yield still(page, quiet_ms=1000, sized=True)), "the page to be still")
                problems = missing + _problems(page, setup, case, log)
            where = (
                f"{case.name()} ({'long' if case.long else 'default'} input) at "
                f"{setup.describe()} · /{case.page}?{case.shown_params()}"
            )
            results[setup.name] = (where, problems)
        return results

    return job


@pytest.mark.parametrize(
    ("setup", "case"),
    [
        pytest.param(s, c, id=_id(s, c), marks=pytest.mark.xdist_group(f"legibility-{s.load}"))
        for s, c in RUNS
    ],
)
def test_every_chart_is_legible(sweep, setup: Setup, case: Case):
    where, problems = sweep.result(setup, case)
    sweep.runs += 1
    if problems:
        sweep.found[where] = problems
    assert not problems, f"{where}: {len(problems)} problems\n" + "\n".join(problems)


# ------------------------------------------------------------ the lists above stay true


def test_every_text_page_is_listed():
    """A page with a text box has its URL parameter in TEXT_PARAM (else its long input would
    silently go unjudged), and every listed parameter appears in its page's code (its script,
    and its controls' module where it has one)."""
    for entry in PAGES:
        if not entry.exists():
            continue
        script = ROOT / entry.file
        files = [script, script.with_name("controls.py")]
        source = "\n".join(f.read_text(encoding="utf-8") for f in files if f.is_file())
        takes_text = "sentence_ui(" in source or "text_input(" in source
        takes_text &= entry.url_path not in TEXT_WITHOUT_CHARTS
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
        '  File "app_pages/why_attention/why_attention.py", line 9, in <module>\n    main()\n'
        "ValueError: 3 labels for 4 columns\n"
        "error 1e710274 on page lab\nTraceback (most recent call last):\n"
        "KeyError: 'lab_runs'\n",
        encoding="utf-8",
    )
    assert _logged(log, "0fc4a558") == "ValueError: 3 labels for 4 columns"
    assert _logged(log, "1e710274") == "KeyError: 'lab_runs'"
    assert _logged(log, "deadbeef") == "" and _logged(None, "0fc4a558") == ""
