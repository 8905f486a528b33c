"""The chart component's files: where Streamlit serves them from, and plotly.js among them.

Streamlit serves an installed component's ``asset_dir`` under
``/_stcore/bidi-components/<NAME>/<file>``. The component's script (``assets/chart.js``) loads
plotly.js from the same folder by a relative URL, so plotly.js is fetched once per page and cached,
never inlined in a message. That copy is plotly's cartesian bundle (``plotly.js-cartesian-dist-min``,
pinned in ``package.json`` and ``package-lock.json``, installed by ``make setup`` with ``npm ci``):
it holds every trace type the atlas draws (heatmap, scatter, bar, image) in a third of the full
bundle's size, which a school laptop parses on every first visit (docs/performance.md). Its
version must be the one plotly.py's figures are written for (the ``plotly`` package's own
bundle). Nothing is fetched from the network at run time.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

NAME = "atlas-plotly.chart"  # "<project name>.<component name>", as Streamlit registers it
HERE = Path(__file__).resolve().parent
ASSETS = HERE / "assets"
SCRIPT = "chart.js"  # relative to ASSETS
PLOTLY_JS = ASSETS / "plotly.min.js"
BUNDLE = HERE.parent / "node_modules" / "plotly.js-cartesian-dist-min" / "plotly-cartesian.min.js"
# The trace types the atlas's figures use; the bundle must define each (tests/test_chart_bundle.py).
TRACES = ("bar", "heatmap", "histogram", "image", "scatter")
_VERSION = re.compile(rb"plotly\.js(?: \([a-z -]+\))? v(\d+\.\d+\.\d+)")


def bundle_version(path: Path) -> str:
    """The plotly.js version a bundle's header names ('' when it names none)."""
    with path.open("rb") as file:
        found = _VERSION.search(file.read(400))
    return found.group(1).decode() if found else ""


def plotly_py_version() -> str:
    """The plotly.js version the installed ``plotly`` package writes its figures for."""
    from plotly.offline import get_plotlyjs_version

    return get_plotlyjs_version()


def ensure_plotly_js() -> Path:
    """Copy the cartesian bundle next to the component's script when it is missing or differs in
    size (upgraded); returns the copy. Raises ``OSError`` when the bundle is not installed (`make
    setup` runs ``npm ci``) and ``RuntimeError`` when its version is not plotly.py's: the app then
    falls back to ``st.plotly_chart``."""
    if not BUNDLE.is_file():
        raise FileNotFoundError(f"{BUNDLE} is missing: run `make setup` (npm ci in {HERE.parent})")
    if bundle_version(BUNDLE) != plotly_py_version():
        raise RuntimeError(
            f"{BUNDLE.name} is plotly.js {bundle_version(BUNDLE)}, plotly.py writes figures for "
            f"{plotly_py_version()}: pin the same version in {HERE.parent / 'package.json'}"
        )
    if not PLOTLY_JS.is_file() or PLOTLY_JS.stat().st_size != BUNDLE.stat().st_size:
        partial = PLOTLY_JS.with_suffix(".partial")
        shutil.copyfile(BUNDLE, partial)
        partial.replace(PLOTLY_JS)  # atomic: a server never serves half a file
    return PLOTLY_JS
