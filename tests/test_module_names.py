"""Every name a project file reads off one of the project's own modules exists there: ``from
bench.load import protocol`` then ``protocol.element_type_of(msg)`` is checked against the module
itself. A rename that misses a reader (``protocol.element_kind`` left in a function that runs only
under load) fails here, not in a scenario minutes into a run. Imports by name (``from m import
x``) fail when the file is imported, and the suite imports every file; attribute reads inside
functions do not, hence this test.

Read from the source text (``ast``) of every Python file of the project; the modules are imported
to look the names up (a name a module makes at import time counts, as Python would find it)."""

from __future__ import annotations

import ast
import importlib
import importlib.util

from tests.test_imports import _python_files, _rel

PACKAGES = ("app_pages", "bench", "deploy", "i18n", "live", "media", "models", "serve")
PACKAGES += ("training", "ui", "viz", "tests")


def _is_project_module(name: str) -> bool:
    return name.split(".")[0] in PACKAGES


def _is_module(name: str) -> bool:
    """``name`` is a module (``from a import b``: b may be a module or a name in a)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _module_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> project module, for ``import a.b as c`` and ``from a import b`` where
    ``a.b`` is a module of the project (a module-level import, or one inside a function)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and _is_project_module(alias.name):
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if _is_project_module(full) and _is_module(full):
                    aliases[alias.asname or alias.name] = full
    return aliases


def _reads(tree: ast.Module, aliases: dict[str, str]) -> list[tuple[int, str, str]]:
    """(line, module, name) for each ``alias.name`` read in ``tree``."""
    return [
        (node.lineno, aliases[node.value.id], node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in aliases
    ]


def test_every_name_read_off_a_project_module_exists():
    missing, checked = [], 0
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        aliases = _module_aliases(tree)
        for line, module_name, attr in _reads(tree, aliases):
            checked += 1
            module = importlib.import_module(module_name)
            if not hasattr(module, attr):
                missing.append(f"{_rel(path)}:{line}: {module_name}.{attr}")
    assert checked > 300  # the project reads about 390 names off its modules: the walk found them
    assert not missing, "names read off modules that do not have them:\n" + "\n".join(missing)


def test_a_missing_name_is_found():
    # the check finds what it is for: a renamed function still read through its module
    source = (
        "from bench.load import protocol\n\ndef f(msg):\n    return protocol.element_kind(msg)\n"
    )
    tree = ast.parse(source)
    aliases = _module_aliases(tree)
    assert aliases == {"protocol": "bench.load.protocol"}
    reads = _reads(tree, aliases)
    assert reads == [(4, "bench.load.protocol", "element_kind")]
    module = importlib.import_module("bench.load.protocol")
    assert not hasattr(module, "element_kind") and hasattr(module, "element_type_of")


def test_an_aliased_import_is_followed():
    source = "import bench.load.protocol as p\np.x\n"
    assert _module_aliases(ast.parse(source)) == {"p": "bench.load.protocol"}
