"""The atlas as an ASGI application: Streamlit's own routes for ``app.py`` (``st.App``, served by
uvicorn as ``streamlit run`` serves any app) and, beside them, the app's own routes
(:mod:`serve.class_events`: the live class's event stream).

    python -m streamlit run serve/asgi.py --server.port 8501     # what make run and serve/launch do

Streamlit finds the ``App`` below and serves it; every ``--server.*`` option and
``.streamlit/config.toml`` apply as to ``streamlit run app.py``. Served as ``app.py`` alone (an
older launcher), the pages work the same and the students' pages poll slowly instead of listening.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# `streamlit run serve/asgi.py` puts serve/ first on sys.path, where its modules would shadow
# top-level names (cache, memory, runtime): the app imports them as serve.* from the root.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.starlette import App  # noqa: E402  (after the path is right)

from serve.class_events import routes  # noqa: E402
from serve.runtime import before_sessions  # noqa: E402

before_sessions()  # in this thread, once: shared imports, the theme read once, reconnected pages
app = App(ROOT / "app.py", routes=routes())
