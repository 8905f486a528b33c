"""AppTests for the Home page's defects: without a GPU, Home does not say that the
device can be changed (the sidebar then offers the CPU alone)."""

from __future__ import annotations

import pytest
import torch

from tests.app_helpers import open_app


def _device_note(gpu: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    """Home's note about the device, on a machine with or without a GPU."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu)
    at = open_app()
    notes = [i.value for i in at.info if "Computing on" in i.value]
    assert len(notes) == 1, [i.value for i in at.info]
    return notes[0]


def test_without_a_gpu_home_does_not_offer_a_change(monkeypatch: pytest.MonkeyPatch):
    note = _device_note(False, monkeypatch)
    assert "CPU" in note and "no GPU" in note
    assert "Change it" not in note and "sidebar" not in note


def test_with_a_gpu_home_says_where_to_change_it(monkeypatch: pytest.MonkeyPatch):
    assert "Change it in the sidebar" in _device_note(True, monkeypatch)
