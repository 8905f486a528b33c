"""Imports flow one way: pages -> ui -> {serve, viz} and serve -> models; i18n, media and live
(the class store) are pure layers any of them may use. Checked on the source text."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STREAMLIT_ALLOWED = ("app.py", "app_pages/", "ui/")
# serve/ runs the server, it draws nothing: of streamlit it may use the server's runtime only, and
# serve/asgi.py the ASGI application (st.App) it serves the app with
SERVE_STREAMLIT = "streamlit.runtime"
SERVE_ASGI = ("serve/asgi.py", "streamlit.starlette")


def _modules(path: Path) -> set[str]:
    """The full names of the modules a module imports (absolute imports only)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _imports(path: Path) -> set[str]:
    """Top-level package names a module imports."""
    return {name.split(".")[0] for name in _modules(path)}


def _sources() -> list[Path]:
    skip = {".venv", "tests", ".git", "bench"}
    return [p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts)]


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_import_direction(path: Path):
    rel = path.relative_to(ROOT).as_posix()
    imported = _imports(path)
    if "streamlit" in imported and not rel.startswith("serve/"):
        assert rel.startswith(STREAMLIT_ALLOWED), f"{rel} imports streamlit"
    if rel.startswith("viz/"):
        assert "torch" not in imported, f"{rel} imports torch"
        assert not imported & {"ui", "app_pages", "models", "serve"}, f"{rel} imports app layers"
    if rel.startswith(("models/", "media/")):
        forbidden = {"streamlit", "plotly", "altair", "ui", "app_pages", "viz", "serve"}
        assert not imported & forbidden, rel
    if rel.startswith("serve/"):  # serving machinery: below ui/, above models/
        assert not imported & {"ui", "app_pages", "viz", "plotly", "altair", "deploy"}, rel
        streamlit = {m for m in _modules(path) if m.split(".")[0] == "streamlit"}
        if rel == SERVE_ASGI[0]:
            streamlit.discard(SERVE_ASGI[1])
        assert all(m.startswith(SERVE_STREAMLIT + ".") for m in streamlit), f"{rel}: {streamlit}"
    if rel.startswith("i18n/"):  # the message catalogue: pure, every layer may use it
        app_layers = {"ui", "app_pages", "viz", "models", "media", "training", "serve"}
        assert not imported & {"streamlit", "plotly", "altair", "torch", *app_layers}, rel
    if rel.startswith("live/"):  # the class store: pure, the pages reach it through typed calls
        forbidden = {"streamlit", "plotly", "ui", "app_pages", "viz", "models", "serve"}
        assert not imported & forbidden, rel
    if rel.startswith("ui/"):
        assert "app_pages" not in imported, f"{rel} imports app_pages"


UNSAFE_HTML = "unsafe_allow_html" + "=True"  # built, so this file does not contain it


def test_no_unsafe_html_anywhere():
    for path in _sources():
        assert UNSAFE_HTML not in path.read_text(encoding="utf-8"), path
