"""The Image captions page in real Chromium: pick an example, wait for the attention overlays,
compose a scene, upload an image (and a broken file); save the README screenshot.

The server reads the shipped captioners where they exist and tiny random-weight ones otherwise
(``ATLAS_CHECKPOINTS``); the screenshot is saved only when both trained models showed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from media.scenes import Placement, compose, load_sprites
from models.captioning.checkpoint import CAPTION_MODELS
from tests.browser_helpers import (
    CHART,
    is_shipped,
    link_checkpoints,
    served_fixtures,
    shipped_root,
    shoot,
    wait_settled,
)
from tests.tiny_captions import build_tiny_caption_checkpoints

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped captioners, or tiny ones where a checkpoint is missing."""
    if root := shipped_root(CAPTION_MODELS):
        return root
    tiny = build_tiny_caption_checkpoints(tmp_path_factory.mktemp("tiny"))
    return link_checkpoints(tmp_path_factory.mktemp("caption_checkpoints"), CAPTION_MODELS, tiny)


url, tab = served_fixtures("streamlit_captions")


def _overlays(page) -> int:
    """How many attention pictures (plotly image traces) are drawn."""
    return page.locator(f"{CHART} .imagelayer image, {CHART} image").count()


def _codes(page) -> list[str]:
    return page.locator('[data-testid="stCode"] code').all_text_contents()


def test_example_overlays_compose_and_upload(tab, url, screenshots, tmp_path: Path):
    tab.goto(f"{url}/captions?cap_ex=2&cap_n=20")
    wait_settled(tab, 6)
    # two word strips and two players; the later charts may still be drawing
    tab.wait_for_function(
        f"document.querySelectorAll('{CHART} .imagelayer image, {CHART} image').length >= 4"
    )
    assert _overlays(tab) >= 4
    first = _codes(tab)
    strip_ticks = tab.locator(CHART).first.locator(".xtick text").all_text_contents()
    assert strip_ticks == first[1].split()  # the soft strip's panels are the soft caption's words
    slider = tab.get_by_role("slider").first  # the example picker
    slider.focus()
    slider.press("ArrowRight")
    tab.wait_for_url("**cap_ex=3**")
    tab.wait_for_function(
        "() => document.querySelector('[data-testid=\"stCode\"] code')?.textContent !== "
        f"{first[0]!r}"
    )
    wait_settled(tab, 6)
    assert _codes(tab)[0] != first[0]  # another scene, another layout caption
    if all(is_shipped(n) for n in CAPTION_MODELS):
        shoot(tab, screenshots / "captions.png", 2300)

    tab.get_by_text("Compose a scene").click()
    tab.wait_for_url("**cap_src=compose**")
    tab.wait_for_function(
        "() => document.querySelector('[data-testid=\"stCode\"] code')?.textContent === "
        "'a dog to the left of an apple'"
    )
    wait_settled(tab, 6)
    tab.get_by_role("button", name="Random layout").click()
    tab.wait_for_function("() => !location.search.includes('dog%3A25%3A30')", polling=200)
    wait_settled(tab, 6)

    scene = compose([Placement("cat", 50, 60, 64), Placement("bus", 170, 170, 70)], load_sprites())
    Image.fromarray(scene.image).save(tmp_path / "scene.png")
    (tmp_path / "broken.png").write_bytes(b"this is not a picture")
    tab.get_by_text("Upload an image").click()
    tab.wait_for_url("**cap_src=upload**")
    tab.get_by_text("only the scene vocabulary").wait_for()
    tab.locator('input[type="file"]').set_input_files(str(tmp_path / "broken.png"))
    tab.get_by_text("not an image").wait_for()
    tab.locator('input[type="file"]').set_input_files(str(tmp_path / "scene.png"))
    tab.wait_for_function(  # soft and hard captions of the upload, no layout caption
        "() => document.querySelectorAll('[data-testid=\"stCode\"] code').length === 2"
    )
    wait_settled(tab, 6)
    if all(is_shipped(n) for n in CAPTION_MODELS):
        assert "cat" in _codes(tab)[0]


def _slider(page, label: str):
    """The slider widget whose label is ``label``."""
    return page.get_by_test_id("stSlider").filter(has_text=label)


def _shown(page, label: str) -> str:
    """The value the browser shows on the slider ``label``."""
    return _slider(page, label).get_by_test_id("stSliderThumbValue").inner_text(timeout=15_000)


def test_settings_and_scene_survive_a_trip_through_upload(tab, url, tmp_path: Path):
    """Issue 13: example scene -> beam 3, N 50 -> "Upload an image" -> upload a PNG showed the
    sliders at 1 and 1 while the text said "over 50 samples", and back on "Example scene" they
    stayed 1/1. The sliders keep their values (and the example its index) through the trip."""
    tab.goto(f"{url}/captions?cap_ex=3")
    wait_settled(tab, 6)
    beam = _slider(tab, "Beam size").get_by_role("slider")
    beam.focus()
    beam.press("ArrowRight")
    tab.wait_for_url("**cap_beam=2**")
    beam.press("ArrowRight")
    tab.wait_for_url("**cap_beam=3**")
    samples = _slider(tab, "Hard-attention samples N").get_by_role("slider")
    samples.focus()
    samples.press("End")
    tab.wait_for_url("**cap_n=50**")
    wait_settled(tab, 6)

    Image.new("RGB", (64, 64), (90, 160, 200)).save(tmp_path / "any.png")
    tab.get_by_text("Upload an image").click()
    tab.wait_for_url("**cap_src=upload**")
    tab.locator('input[type="file"]').wait_for(state="attached")
    assert (_shown(tab, "Beam size"), _shown(tab, "Hard-attention samples N")) == ("3", "50")
    tab.locator('input[type="file"]').set_input_files(str(tmp_path / "any.png"))
    tab.wait_for_function(  # soft and hard captions of the upload, no layout caption
        "() => document.querySelectorAll('[data-testid=\"stCode\"] code').length === 2"
    )
    wait_settled(tab, 6)
    assert (_shown(tab, "Beam size"), _shown(tab, "Hard-attention samples N")) == ("3", "50")
    assert "over 50 samples" in tab.locator("body").inner_text()

    tab.get_by_text("Example scene").first.click()
    tab.wait_for_function("() => !location.search.includes('cap_src=upload')", polling=200)
    wait_settled(tab, 6)
    assert (_shown(tab, "Beam size"), _shown(tab, "Hard-attention samples N")) == ("3", "50")
    assert _shown(tab, "Example scene") == "#4"
    assert all(f"{k}={v}" in tab.url for k, v in (("cap_beam", 3), ("cap_n", 50), ("cap_ex", 3)))
    assert "over 50 samples" in tab.locator("body").inner_text()
