"""The chart component's files: where Streamlit serves them from, and plotly.js among them.

Streamlit serves an installed component's ``asset_dir`` under
``/_stcore/bidi-components/<NAME>/<file>``. The component's script (``assets/chart.js``) loads
plotly.js from the same folder by a relative URL, so plotly.js is fetched once per page and cached,
never inlined in a message. That copy is the ``plotly`` package's own bundle (the version that
plotly.py's figures are written for), copied here by :func:`ensure_plotly_js` rather than
committed; nothing is fetched from the network.
"""

from __future__ import annotations

import shutil
from pathlib import Path

NAME = "atlas-plotly.chart"  # "<project name>.<component name>", as Streamlit registers it
ASSETS = Path(__file__).resolve().parent / "assets"
SCRIPT = "chart.js"  # relative to ASSETS
PLOTLY_JS = ASSETS / "plotly.min.js"


def plotly_bundle() -> Path:
    """The plotly.js bundle inside the installed ``plotly`` package."""
    import plotly

    return Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"


def ensure_plotly_js() -> Path:
    """Copy the ``plotly`` package's plotly.js next to the component's script when it is missing
    or differs in size (plotly upgraded); returns the copy. Raises ``OSError`` when the folder is
    not writable and no copy is there (the app then falls back to ``st.plotly_chart``)."""
    source = plotly_bundle()
    if not PLOTLY_JS.is_file() or PLOTLY_JS.stat().st_size != source.stat().st_size:
        partial = PLOTLY_JS.with_suffix(".partial")
        shutil.copyfile(source, partial)
        partial.replace(PLOTLY_JS)  # atomic: a server never serves half a file
    return PLOTLY_JS
