"""The bare student page (:mod:`bench.load.bare_join`) as an ASGI application, served as
:mod:`serve.asgi` serves the atlas: Streamlit's routes for :mod:`bench.load.bare_app` and, beside
them, the class's event stream (:mod:`serve.class_events`).

    python -m streamlit run bench/load/bare_asgi.py     # what make load's --bare starts
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# `streamlit run bench/load/bare_asgi.py` puts bench/load/ first on sys.path, where its modules
# would shadow top-level names: everything is imported from the root.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.starlette import App  # noqa: E402  (after the path is right)

from serve.class_events import routes  # noqa: E402
from serve.runtime import before_sessions  # noqa: E402

before_sessions()
app = App(HERE / "bare_app.py", routes=routes())
