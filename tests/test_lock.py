"""The lock files `make` installs agree with the requirement files they are compiled from
(`make lock`), and hold no CUDA build of torch."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"requirements.txt": "requirements.lock", "requirements-dev.txt": "requirements-dev.lock"}


def _lines(path: Path) -> list[str]:
    """Requirement lines, without comments, blank lines and options such as ``-r``."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("-")]


def _pins(lock: Path) -> dict[str, str]:
    """Package name -> the exact version the lock installs."""
    pins = {}
    for line in _lines(lock):
        name, version = line.split("==")
        pins[canonicalize_name(name)] = version.strip()
    return pins


@pytest.mark.parametrize(("source", "lock"), SOURCES.items())
def test_the_lock_satisfies_its_source(source: str, lock: str) -> None:
    pins = _pins(ROOT / lock)
    wanted = _lines(ROOT / source)
    if source == "requirements-dev.txt":
        wanted += _lines(ROOT / "requirements.txt")
    for line in wanted:
        req = Requirement(line)
        version = pins.get(canonicalize_name(req.name))
        assert version is not None, f"{req.name} is not in {lock}: run `make lock`"
        assert req.specifier.contains(version, prereleases=True), (
            f"{lock} pins {req.name}=={version}, outside {req.specifier}: run `make lock`"
        )


@pytest.mark.parametrize("lock", SOURCES.values())
def test_torch_is_the_cpu_build(lock: str) -> None:
    pins = _pins(ROOT / lock)
    assert pins["torch"].endswith("+cpu")
    assert not [name for name in pins if name.startswith(("nvidia", "cuda", "triton"))]
