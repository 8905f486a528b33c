"""The chart component's browser modules (``components/atlas-plotly/atlas_plotly/assets``) run in
node, for unit tests of their pure functions: ``run_exports(source, calls, tmp_path)`` imports the
module (copied into ``tmp_path`` with the modules next to it, which it may import) and returns each
call's result, read back from JSON.

A call is ``{"fn": name, "args": [...]}``: the module's export ``name`` called with the args. An
arg ``{"$js": "<expression>"}`` is that JavaScript expression's value instead (a Map, a function,
a fake plotly div), evaluated where the module is ``mod``: ``{"$js": "mod.geometry({...})"}``.
In the results, Maps and Sets come back as lists of their entries; as in JSON, ``undefined`` in a
list, NaN and the infinities come back as None and -0 as 0.

Without node the tests skip (``needs_node``), or fail under ``CI=true``
(``tests/requirements_env.need``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.requirements_env import IN_CI, need

ASSETS = Path(__file__).resolve().parents[1] / "components/atlas-plotly/atlas_plotly/assets"
NODE_MISSING = "node is not installed (apt-get install nodejs)"

# a mark for tests that need node: skips without it, but never under CI (run_exports fails there)
needs_node = pytest.mark.skipif(shutil.which("node") is None and not IN_CI, reason=NODE_MISSING)

_SCRIPT = """
import * as mod from %s;
const arg = (a) => (a && typeof a === "object" && typeof a.$js === "string" ? eval(a.$js) : a);
const plain = (key, v) => (v instanceof Map || v instanceof Set ? [...v] : v);
const calls = JSON.parse(process.argv[1]);
console.log(JSON.stringify(calls.map((c) => mod[c.fn](...c.args.map(arg))), plain));
"""


def run_exports(source: Path, calls: list[dict], tmp_path: Path) -> list:
    """Run ``source``'s exported functions in node: each call {fn, args} -> its result."""
    need(shutil.which("node") is not None, NODE_MISSING)
    # the module with the modules next to it (it may import them: link.js imports pointer.js),
    # in a folder whose package.json makes node read them as ES modules (not CommonJS)
    for sibling in source.parent.glob("*.js"):
        if not sibling.name.endswith(".min.js"):  # not plotly.js's bundle
            shutil.copyfile(sibling, tmp_path / sibling.name)
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    module = tmp_path / source.name
    script = _SCRIPT % json.dumps(module.as_uri())
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps(calls)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if out.returncode:
        raise AssertionError(f"node failed on {source.name}:\n{out.stderr}")
    return json.loads(out.stdout)
