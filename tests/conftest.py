"""Session fixtures for browser tests (one Streamlit server, one headless Chromium), the folder
screenshots go to, and the markers `make test-fast` and `make screenshots` select on."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

# Under pytest-xdist (`make test` runs the suite on several workers) each worker is a process of its
# own: one OpenMP thread each, so that the workers share the cores instead of fighting for them.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # after the thread setting above (torch reads it once, on import)
from hypothesis import is_hypothesis_test

from models.checkpoints import CHECKPOINTS_ENV, SHIPPED_ROOT
from tests.browser_context import launch_shared
from tests.requirements_env import need
from tests.server import CHROMIUM, ROOT, served_with
from ui.plotly_component import ENV as PLOTLY_COMPONENT_ENV
from viz.figure import VALIDATE_ENV

# Every figure builder runs in this suite (and in the servers it starts): plotly validates each
# figure here, so a misspelt property fails a test; the app itself takes figures as built.
os.environ.setdefault(VALIDATE_ENV, "1")


def _scan_installed_components_once() -> None:
    """Every AppTest run starts a runtime of its own, which scans every installed distribution's
    metadata for Streamlit components (about 1,070 here): 0.31 s of an AppTest run's 0.50 s
    (cProfile of tests/test_security_fuzz.py's links). The installed packages do not change
    during a test session, so the scan is made once per process and its result given again."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    found: dict[str, list] = {}

    def scanned(max_workers: int | None = None) -> list:
        if "manifests" not in found:
            found["manifests"] = scan(max_workers)
        return list(found["manifests"])

    manifest_scanner.scan_component_manifests = scanned


_scan_installed_components_once()


def _compile_scripts_once() -> None:
    """Every AppTest run compiles the scripts it runs again (a new ScriptCache per run, with
    Streamlit's "magic" rewrite of the syntax tree), most of a short run's time; a served app
    compiles each script once. Here too, once per test process: keyed by the script's path,
    modification time and size, so that a script a test writes or changes is compiled again."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    compiled: dict[tuple[str, int, int], object] = {}

    class CompiledOnce(ScriptCache):
        def get_bytecode(self, script_path: str):
            path = os.path.abspath(script_path)
            stat = os.stat(path)
            key = (path, stat.st_mtime_ns, stat.st_size)
            if key not in compiled:
                compiled[key] = super().get_bytecode(script_path)
            return compiled[key]

    app_test.ScriptCache = CompiledOnce
    local_script_runner.ScriptCache = CompiledOnce


_compile_scripts_once()

# Where the browser tests save their screenshots: a temporary folder, unless this variable names
# a folder (relative to the repository); `make screenshots` points it at docs/screenshots.
SCREENSHOTS_ENV = "ATLAS_SCREENSHOTS"
# What makes a test slow: a marker (a browser, the shipped checkpoints, ../shared/data), a browser
# test file, a file that trains or loads a real model without such a marker (the training smoke
# tests, the Training lab's live jobs, all-MiniLM-L6-v2), or many generated inputs (hypothesis).
SLOW_MARKERS = ("browser", "checkpoints", "data")
SLOW_FILES = (
    "test_training_smoke.py",
    "test_lab_jobs.py",
    "test_lab_page.py",
    "test_pretrained.py",
)


# With this variable naming a file, each test's worker, start and end (seconds since the epoch,
# set-up and tear-down included) are appended to it, a line each: where a run's time goes, worker
# by worker (docs/development.md, "How long make test takes").
TIMELINE_ENV = "ATLAS_TEST_TIMELINE"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    start = time.time()
    yield
    timeline = os.environ.get(TIMELINE_ENV)
    if timeline:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(timeline, "a", encoding="utf-8") as file:  # one short append: whole lines
            file.write(f"{worker}\t{start:.2f}\t{time.time():.2f}\t{item.nodeid}\n")


def _is_slow(item: pytest.Item) -> bool:
    name = item.path.name
    return (
        name.startswith("test_browser")
        or name in SLOW_FILES
        or any(item.get_closest_marker(marker) for marker in SLOW_MARKERS)
        or is_hypothesis_test(getattr(item, "obj", None))
    )


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (``--dist loadgroup``)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` (left out by `make test-fast`) and ``screenshot`` (run by `make screenshots`).
    And group the tests for `make test`'s workers (pytest-xdist, ``--dist loadgroup``): a test
    module is one group, run by one worker, so that its module-scoped fixtures (a server, a trained
    model) are made once; a module may split itself with ``xdist_group`` marks of its own (the
    legibility sweep: a group per screen set-up)."""
    loadgroup = getattr(items[0].config.option, "loadgroup", False) if items else False
    for item in items:
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
        if loadgroup and "@" not in item.nodeid:
            _grouped(item)
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)
        if "screenshots" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.screenshot)
    if loadgroup:
        items[:] = _slow_groups_first(items)


def _group_of(item: pytest.Item) -> str:
    return "_".join(sorted({str(mark.args[0]) for mark in item.iter_markers("xdist_group")}))


def _slow_groups_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items with their groups in the order the workers should take them (`make test` passes
    ``--no-loadscope-reorder``, so xdist keeps it): the groups holding a slow test first, more tests
    first, then the quick groups, which fill the workers' last minutes. By the number of tests
    alone (xdist's own order) a one-test group of a minute (two replicas and a browser) came last
    and ran alone at the end."""
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        groups.setdefault(_group_of(item), []).append(item)
    slow = {
        n for n, members in groups.items() if any(i.get_closest_marker("slow") for i in members)
    }
    order = sorted(groups, key=lambda name: (name not in slow, -len(groups[name])))
    return [item for name in order for item in groups[name]]


def _grouped(item: pytest.Item) -> None:
    """Put the item's group at the end of its id ("...::test_x[1]@group"): the scheduler of
    ``--dist loadgroup`` reads the group there. xdist 3.8 writes it to ``item._nodeid``, which
    pytest 9.2 no longer reads (an item's id is a structured ``NodeId`` in ``item._id``): without
    this, every test went to whichever worker was free, and a module's server or trained model
    was made again on each worker that ran one of its tests."""
    grouped = f"{item.nodeid}@{_group_of(item)}"
    if hasattr(item, "_id"):  # pytest 9.2 and later
        item._id = type(item._id).parse(grouped)
    else:
        item._nodeid = grouped


def _need_chromium() -> None:
    """Chromium and the Playwright package, or skip (fail under CI)."""
    need(Path(CHROMIUM).exists(), f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    need(
        importlib.util.find_spec("playwright") is not None,
        "the playwright Python package is not installed (requirements-dev.txt)",
    )


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory):
    """``streamlit run app.py`` on a free port, reading the shipped checkpoints; yields its base
    URL once /_stcore/health is ok. The one server of every browser test module whose
    ``checkpoints`` are the shipped ones (``tests/browser_helpers.py``, ``served_fixtures``)."""
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with served_with(CHECKPOINTS_ENV, SHIPPED_ROOT, log) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (a worker's), whose contexts are tabs of one shared
    persistent context (``tests/browser_context.py``: a page gets its JavaScript compiled from
    V8's code cache)."""
    _need_chromium()
    from playwright.sync_api import sync_playwright

    # The profile in memory where the machine has a tmpfs: Chromium writes its caches there as it
    # goes, and on the 2-core machine's disk two workers' writes slowed each other (12 chart
    # pages, two browsers at once: 104 s each with the profile on disk, 85 s on /dev/shm).
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(
        prefix="atlas-chromium-", dir=shm if shm.is_dir() else None
    ) as folder:
        with sync_playwright() as playwright:
            shared = launch_shared(playwright, Path(folder))
            yield shared
            shared.close()


@pytest.fixture
def page(browser, app_url):
    """A fresh browser page (own context) per test."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(120_000)  # generous: the CI box may be busy (2 cores, training)
    yield page
    context.close()


@pytest.fixture()
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh class store (SQLite in the test's folder) for one test: the app's cached store is
    opened again on that folder, as the pages open it."""
    from app_pages.lessons import class_shared
    from live.store import open_store

    monkeypatch.setenv("ATLAS_CLASS_DIR", str(tmp_path))
    monkeypatch.delenv("ATLAS_CLASS_DB", raising=False)
    class_shared._open.clear()
    store = open_store()
    yield store
    store.close()
    class_shared._open.clear()


@pytest.fixture
def tiny(tiny_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$ATLAS_CHECKPOINTS`` pointed, for one test, at the test module's ``tiny_root`` fixture
    (tiny random-weight checkpoints), which it returns."""
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tiny_root))
    return tiny_root


@pytest.fixture(params=["component", "fallback"])
def chart_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way a chart is drawn, for one test run twice: "component" (the chart component, as
    in a served app and by default under AppTest) and "fallback" (st.plotly_chart,
    ``ATLAS_PLOTLY_COMPONENT=0``). The test reads either with ``tests/app_helpers.py``'s
    ``charts`` and may check the path with its ``check_path``."""
    if request.param == "fallback":
        monkeypatch.setenv(PLOTLY_COMPONENT_ENV, "0")
    else:
        need(importlib.util.find_spec("atlas_plotly") is not None, "atlas-plotly: run `make setup`")
        monkeypatch.delenv(PLOTLY_COMPONENT_ENV, raising=False)
    return request.param


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder screenshots are saved in: a temporary one, so that tests never rewrite committed
    files; ``$ATLAS_SCREENSHOTS`` when set (`make screenshots`: docs/screenshots)."""
    folder = os.environ.get(SCREENSHOTS_ENV)
    if not folder:
        return tmp_path_factory.mktemp("screenshots")
    path = ROOT / folder
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(autouse=True)
def _main_module_restored():
    """AppTest runs a script as ``__main__`` and leaves ``sys.modules["__main__"]`` pointing at its
    temporary file; a worker process started later (the training lab's) would run that file again
    on start-up (multiprocessing re-imports the parent's main module). Put the real one back."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main
