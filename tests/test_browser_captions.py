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
CHARTS = 5  # two players, two maps of Σ_t α, the β chart


def _overlays(page) -> int:
    """How many attention pictures (plotly image traces) are drawn."""
    return page.locator(f"{CHART} .imagelayer image, {CHART} image").count()


def _codes(page) -> list[str]:
    return page.locator('[data-testid="stCode"] code').all_text_contents()


def test_example_overlays_compose_and_upload(tab, url, screenshots, tmp_path: Path):
    tab.goto(f"{url}/captions?cap_ex=2&cap_n=20")
    wait_settled(tab, CHARTS)
    # two players; the later charts may still be drawing
    tab.wait_for_function(
        f"document.querySelectorAll('{CHART} .imagelayer image, {CHART} image').length >= 2"
    )
    assert _overlays(tab) >= 2
    first = _codes(tab)
    words = first[1].split()
    # the scene's caption, then a picture per word of the soft caption, the words under them
    panels = tab.get_by_test_id("stImageCaption").all_inner_texts()[1 : len(words) + 1]
    assert panels == words
    # the pictures wrap into rows where one row would not fit, none past the window's right edge
    # (the strip was one chart of 112 px panels that scrolled sideways: 2,787 px for 14 words)
    tab.wait_for_function(  # every picture loaded: laid out at its size
        "() => [...document.querySelectorAll('[data-testid=stImageContainer] img')]"
        ".every(img => img.complete && img.naturalWidth > 0)"
    )
    for viewport in ({"width": 1400, "height": 1000}, {"width": 390, "height": 844}):  # a phone
        tab.set_viewport_size(viewport)
        tab.wait_for_function(  # laid out again at the new width (times out if one runs past)
            "w => [...document.querySelectorAll('[data-testid=stImageContainer]')]"
            ".every(e => e.getBoundingClientRect().right <= w)",
            arg=viewport["width"],
            timeout=15_000,
        )
        images = tab.get_by_test_id("stImageContainer")
        boxes = [images.nth(i).bounding_box() for i in range(1, len(words) + 1)]
        assert max(b["x"] + b["width"] for b in boxes) <= viewport["width"], boxes
        one_row = boxes[0]["x"] + sum(b["width"] for b in boxes) <= viewport["width"]
        assert one_row or len({round(b["y"]) for b in boxes}) >= 2, boxes
    assert not one_row  # on the phone they wrapped
    tab.set_viewport_size({"width": 1400, "height": 1000})
    slider = tab.get_by_role("slider").first  # the example picker
    slider.focus()
    slider.press("ArrowRight")
    tab.wait_for_url("**cap_ex=3**")
    tab.wait_for_function(
        "() => document.querySelector('[data-testid=\"stCode\"] code')?.textContent !== "
        f"{first[0]!r}"
    )
    wait_settled(tab, CHARTS)
    assert _codes(tab)[0] != first[0]  # another scene, another layout caption
    if all(is_shipped(n) for n in CAPTION_MODELS):
        shoot(tab, screenshots / "captions.png", 2300)

    tab.get_by_text("Compose a scene").click()
    tab.wait_for_url("**cap_src=compose**")
    tab.wait_for_function(
        "() => document.querySelector('[data-testid=\"stCode\"] code')?.textContent === "
        "'a dog to the left of an apple'"
    )
    wait_settled(tab, CHARTS)
    tab.get_by_role("button", name="Random layout").click()
    tab.wait_for_function("() => !location.search.includes('dog%3A25%3A30')", polling=200)
    wait_settled(tab, CHARTS)

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
    wait_settled(tab, CHARTS)
    if all(is_shipped(n) for n in CAPTION_MODELS):
        assert "cat" in _codes(tab)[0]


def _slider(page, label: str):
    """The slider widget whose label is ``label``."""
    return page.get_by_test_id("stSlider").filter(has_text=label)


def _shown(page, label: str) -> str:
    """The value the browser shows on the slider ``label``."""
    return _slider(page, label).get_by_test_id("stSliderThumbValue").inner_text(timeout=15_000)


def test_settings_and_scene_survive_a_trip_through_upload(tab, url, tmp_path: Path):
    """Example scene -> beam 3, N 50 -> "Upload an image" -> upload a PNG showed the
    sliders at 1 and 1 while the text said "over 50 samples", and back on "Example scene" they
    stayed 1/1. The sliders keep their values (and the example its index) through the trip."""
    tab.goto(f"{url}/captions?cap_ex=3")
    wait_settled(tab, CHARTS)
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
    wait_settled(tab, CHARTS)

    Image.new("RGB", (64, 64), (90, 160, 200)).save(tmp_path / "any.png")
    tab.get_by_text("Upload an image").click()
    tab.wait_for_url("**cap_src=upload**")
    tab.locator('input[type="file"]').wait_for(state="attached")
    assert (_shown(tab, "Beam size"), _shown(tab, "Hard-attention samples N")) == ("3", "50")
    tab.locator('input[type="file"]').set_input_files(str(tmp_path / "any.png"))
    tab.wait_for_function(  # soft and hard captions of the upload, no layout caption
        "() => document.querySelectorAll('[data-testid=\"stCode\"] code').length === 2"
    )
    wait_settled(tab, CHARTS)
    assert (_shown(tab, "Beam size"), _shown(tab, "Hard-attention samples N")) == ("3", "50")
    tab.get_by_text("over 50 samples").wait_for()  # the caption under the players, once drawn

    tab.get_by_text("Example scene").first.click()
    tab.wait_for_function("() => !location.search.includes('cap_src=upload')", polling=200)
    wait_settled(tab, CHARTS)
    assert (_shown(tab, "Beam size"), _shown(tab, "Hard-attention samples N")) == ("3", "50")
    assert _shown(tab, "Example scene") == "#4"
    assert all(f"{k}={v}" in tab.url for k, v in (("cap_beam", 3), ("cap_n", 50), ("cap_ex", 3)))
    tab.get_by_text("over 50 samples").wait_for()  # the caption under the players, once drawn
