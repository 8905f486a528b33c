"""Imports flow one way: pages -> ui -> {serve, viz} and serve -> models; i18n, media and live
(the class store) are pure layers any of them may use; training/ and bench/ stand beside the app,
and only tests/ imports tests/. A page imports no other page; no two modules import each other,
even through a function-local import; Streamlit's private modules are imported in one adapter,
``serve/streamlit_private.py``. Checked on the source text of every Python file of the project.

An allow-list below names each existing exception to a rule, with why it is there: it may only
shrink (a listed exception that no longer occurs fails too)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = {".venv", ".git", "node_modules", "__pycache__"}
STREAMLIT_ALLOWED = ("app.py", "app_pages/", "ui/", "bench/")  # bench/ drives apps of its own
# serve/ runs the server, it draws nothing: of streamlit it may use the server's runtime only, and
# serve/asgi.py the ASGI application (st.App) it serves the app with
SERVE_STREAMLIT = "streamlit.runtime"
SERVE_ASGI = ("serve/asgi.py", "streamlit.starlette")
# Streamlit's public modules: ``streamlit`` itself (st.*), the components API and the ASGI entry
# of st.App. Any other ``streamlit.*`` module is private (the tests' AppTest is not checked).
STREAMLIT_PUBLIC = ("streamlit", "streamlit.components.v2", "streamlit.starlette")
STREAMLIT_ADAPTER = "serve/streamlit_private.py"

# Known exceptions, to be removed; each is (importing file, imported module).
KNOWN_PRIVATE_STREAMLIT = {
    # the load clients speak Streamlit's wire protocol (its protobuf messages) to a real server,
    # and compute a component's trigger id as the browser does (bench/load/, not the app)
    ("bench/load/protocol.py", "streamlit.proto.BackMsg_pb2"),
    ("bench/load/protocol.py", "streamlit.proto.Common_pb2"),
    ("bench/load/protocol.py", "streamlit.proto.ForwardMsg_pb2"),
    ("bench/load/protocol.py", "streamlit.proto.WidgetStates_pb2"),
    ("bench/load/live_students.py", "streamlit.proto.ForwardMsg_pb2"),
    ("bench/load/client.py", "streamlit.proto.ForwardMsg_pb2"),
    ("bench/load/client.py", "streamlit.proto.WidgetStates_pb2"),
    ("bench/load/lecture_hall.py", "streamlit.components.v2.bidi_component.main"),
    ("bench/load/lecture_hall.py", "streamlit.proto.ForwardMsg_pb2"),
    ("bench/load/lecture_hall.py", "streamlit.proto.WidgetStates_pb2"),
}
KNOWN_TESTS_IMPORTS = {
    # the lecture-hall load scenario starts a private PostgreSQL cluster with the tests' helper
    ("bench/load/lecture_hall.py", "tests.postgres"),
}
KNOWN_CYCLES = {
    # the store publishes through notify; notify's listener opens the store's backend, imported
    # inside the function that needs it
    frozenset({"live.notify", "live.store"}),
}


@cache
def _python_files() -> tuple[Path, ...]:
    """Every Python file of the project (not the virtual environment's, nor node_modules')."""
    files = []
    for top in ROOT.iterdir():
        if top.name in SKIPPED or top.name.startswith("."):
            continue
        found = top.rglob("*.py") if top.is_dir() else [top] if top.suffix == ".py" else []
        files += [p for p in found if not SKIPPED & set(p.relative_to(ROOT).parts)]
    return tuple(sorted(files))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _import_nodes(path: Path, *, type_checking: bool = True) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, at any depth (in a function too); with
    ``type_checking=False``, not those under ``if TYPE_CHECKING:``, which never run."""
    found = []
    todo: list[ast.AST] = [_tree(path)]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif (
            not type_checking
            and isinstance(node, ast.If)
            and "TYPE_CHECKING" in ast.unparse(node.test)
        ):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return found


def _modules(path: Path) -> set[str]:
    """The full names of the modules a module imports (absolute imports only)."""
    names = set()
    for node in _import_nodes(path):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif node.module and node.level == 0:
            names.add(node.module)
    return names


def _imports(path: Path) -> set[str]:
    """Top-level package names a module imports."""
    return {name.split(".")[0] for name in _modules(path)}


def _sources() -> list[Path]:
    """Every Python file but the tests'."""
    return [p for p in _python_files() if not _rel(p).startswith("tests/")]


def test_no_relative_imports():
    """The rules read module names; a relative import would hide one."""
    for path in _python_files():
        relative = [n for n in _import_nodes(path) if isinstance(n, ast.ImportFrom) and n.level]
        assert not relative, f"{_rel(path)} imports relatively (line {relative[0].lineno})"


@pytest.mark.parametrize("path", _sources(), ids=_rel)
def test_import_direction(path: Path):
    rel = _rel(path)
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
        if rel != STREAMLIT_ADAPTER:
            assert all(m.startswith(SERVE_STREAMLIT + ".") for m in streamlit), (
                f"{rel}: {streamlit}"
            )
    if rel.startswith("i18n/"):  # the message catalogue: pure, every layer may use it
        app_layers = {"ui", "app_pages", "viz", "models", "media", "training", "serve"}
        assert not imported & {"streamlit", "plotly", "altair", "torch", *app_layers}, rel
    if rel.startswith("live/"):  # the class store: pure, the pages reach it through typed calls
        forbidden = {"streamlit", "plotly", "ui", "app_pages", "viz", "models", "serve"}
        assert not imported & forbidden, rel
    if rel.startswith("ui/"):
        assert "app_pages" not in imported, f"{rel} imports app_pages"
    if rel.startswith("training/"):  # writes checkpoints from data: no app, no server, no bench
        forbidden = {"streamlit", "plotly", "altair", "ui", "app_pages", "viz", "serve", "live"}
        assert not imported & {*forbidden, "bench", "deploy"}, f"{rel}: {imported & forbidden}"
    if not rel.startswith("bench/"):  # the bench measures the app; nothing in the app uses it
        assert "bench" not in imported, f"{rel} imports bench"


def _tests_imports() -> set[tuple[str, str]]:
    return {
        (_rel(path), module)
        for path in _sources()
        for module in _modules(path)
        if module.split(".")[0] == "tests"
    }


def test_only_tests_import_tests():
    """bench/ and the app share helpers with the tests from their own folders, never from
    tests/ (the tests import those from there)."""
    found = _tests_imports()
    assert found <= KNOWN_TESTS_IMPORTS, sorted(found - KNOWN_TESTS_IMPORTS)
    assert KNOWN_TESTS_IMPORTS <= found, f"no longer imported, drop: {KNOWN_TESTS_IMPORTS - found}"


def test_no_page_imports_another_page():
    """A module under app_pages/<page>/ imports nothing of another page: what two pages share
    belongs in ui/."""
    for path in _python_files():
        parts = path.relative_to(ROOT).parts
        if parts[0] != "app_pages" or len(parts) < 3:
            continue
        page = parts[1]
        others = {
            m for m in _modules(path) if m.startswith("app_pages.") and m.split(".")[1] != page
        }
        assert not others, f"{_rel(path)} imports another page: {sorted(others)}"


def _private_streamlit() -> set[tuple[str, str]]:
    return {
        (_rel(path), module)
        for path in _sources()
        for module in _modules(path)
        if module.split(".")[0] == "streamlit"
        and module not in STREAMLIT_PUBLIC
        and _rel(path) != STREAMLIT_ADAPTER
    }


def test_streamlit_private_api_only_in_the_adapter():
    """Only serve/streamlit_private.py imports Streamlit's private modules (its test,
    tests/test_streamlit_private.py, names each symbol): an upgrade that moves one fails in one
    place."""
    found = _private_streamlit()
    assert found <= KNOWN_PRIVATE_STREAMLIT, sorted(found - KNOWN_PRIVATE_STREAMLIT)
    assert KNOWN_PRIVATE_STREAMLIT <= found, (
        f"no longer imported, drop: {KNOWN_PRIVATE_STREAMLIT - found}"
    )


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    """Module -> the project's modules it imports at run time (anywhere in the module, in a
    function too; ``if TYPE_CHECKING:`` imports left out). ``from a import b`` is an edge to the
    module ``a.b`` where there is one, else to ``a``."""
    modules = {_module_name(p): p for p in _python_files() if "-" not in _rel(p)}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for node in _import_nodes(path, type_checking=False):
            if isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            elif node.module and node.level == 0:
                wanted = [
                    f"{node.module}.{a.name}"
                    if f"{node.module}.{a.name}" in modules
                    else node.module
                    for a in node.names
                ]
            else:
                continue
            for target in wanted:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [frozenset({"a", "b", "c"})]


def test_no_import_cycles():
    """No two of the project's modules import each other, directly or round a loop, even through
    an import inside a function (which hides the cycle from the interpreter, not from a reader)."""
    found = set(_cycles(_graph()))
    assert found <= KNOWN_CYCLES, [sorted(c) for c in found - KNOWN_CYCLES]
    assert KNOWN_CYCLES <= found, f"no longer a cycle, drop: {KNOWN_CYCLES - found}"


UNSAFE_HTML = "unsafe_allow_html" + "=True"  # built, so this file does not contain it


def test_no_unsafe_html_anywhere():
    for path in _sources():
        assert UNSAFE_HTML not in path.read_text(encoding="utf-8"), path
