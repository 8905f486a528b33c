"""Encoders: a name is all a page or a link can give; only the packaged MiniLM and the
folders under $ATLAS_ENCODERS_DIR are offered, and no message says whether a path exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.transformer.pretrained import (
    DEFAULT_MODEL,
    ENCODERS_DIR_ENV,
    PretrainedModelError,
    default_model_path,
    offered_encoders,
    resolve_model,
)

PROBES = ["~", "~nosuchuser", "x" * 256, "/etc", "../..", "/root", "sentence-transformers/x"]


@pytest.fixture
def encoders_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("tiny-bert", "no-config", ".hidden", "bad name"):
        (tmp_path / name).mkdir()
    for name in ("tiny-bert", ".hidden", "bad name"):
        (tmp_path / name / "config.json").write_text("{}")
    monkeypatch.setenv(ENCODERS_DIR_ENV, str(tmp_path))
    return tmp_path


def test_default_only_when_unset(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(ENCODERS_DIR_ENV, raising=False)
    assert offered_encoders() == (DEFAULT_MODEL,)
    assert resolve_model("") == resolve_model(DEFAULT_MODEL) == str(default_model_path())


def test_offered_folders_by_name(encoders_dir: Path):
    assert offered_encoders() == (DEFAULT_MODEL, "tiny-bert")  # config.json, a plain name
    assert resolve_model("tiny-bert") == str(encoders_dir / "tiny-bert")


@pytest.mark.parametrize("name", [*PROBES, "no-config", ".hidden", "bad name", "tiny-bert/.."])
def test_anything_else_is_refused_without_a_path(encoders_dir: Path, name: str):
    with pytest.raises(PretrainedModelError) as info:
        resolve_model(name)
    message = str(info.value)
    assert (
        message
        == f"this server offers these encoders: {DEFAULT_MODEL}, tiny-bert; pick one of them"
    )
    assert str(encoders_dir) not in message


def test_a_full_path_to_an_offered_folder_is_refused(encoders_dir: Path):
    with pytest.raises(PretrainedModelError):
        resolve_model(str(encoders_dir / "tiny-bert"))


@pytest.mark.parametrize("name", PROBES)
def test_probes_give_the_same_answer_whether_or_not_the_path_exists(name: str, monkeypatch):
    monkeypatch.delenv(ENCODERS_DIR_ENV, raising=False)
    with pytest.raises(PretrainedModelError) as info:
        resolve_model(name)
    assert (
        str(info.value) == f"this server offers these encoders: {DEFAULT_MODEL}; pick one of them"
    )


def test_unreadable_encoders_dir_offers_the_default(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(ENCODERS_DIR_ENV, str(tmp_path / "missing"))
    assert offered_encoders() == (DEFAULT_MODEL,)
