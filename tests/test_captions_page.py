"""AppTest for the Image captions page: examples, composition, uploads (good and bad), URL state,
classroom mode, missing checkpoints. Uses tiny random-weight captioners (ATLAS_CHECKPOINTS)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from models.checkpoints import CHECKPOINTS_ENV
from tests.app_helpers import check_path, figures, open_app
from tests.test_captioning import BAD
from tests.tiny_captions import build_tiny_caption_checkpoints
from ui.captions import format_composition, parse_composition
from ui.fit import CLASSROOM_MIN_PX
from viz.captions import attention_player_figure, blend, location_counts, word_panels

PAGE = "app_pages/captions/captions.py"


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_caption_checkpoints(tmp_path_factory.mktemp("tiny_captions"))


def _run(params: dict[str, str] | None = None, first: dict | None = None) -> AppTest:
    return open_app(PAGE, params, first, timeout=180)


def _figures(at: AppTest) -> list[dict]:
    return figures(at)


def _codes(at: AppTest) -> list[str]:
    return [c.value for c in at.code]


def test_example_scene_shows_both_models_and_all_maps(tiny, chart_path: str):
    at = _run({"cap_ex": "3", "cap_n": "9"})
    check_path(at, chart_path)
    assert at.title[0].value.startswith("Image captions")
    codes = _codes(at)
    assert len(codes) == 3  # the layout's caption, soft, hard
    figs = _figures(at)
    titles = [f["layout"].get("title", {}).get("text", "") for f in figs]
    assert "Soft attention" in titles and "Hard attention" in titles and "β per word" in titles
    players = [f for f in figs if f.get("frames")]
    assert len(players) == 2
    hard_player = players[1]
    markers = [t for t in hard_player["data"] if t.get("mode") == "markers"][0]
    assert sum(int(s.split(": ")[1].split(" of")[0]) for s in markers["text"]) == 9  # 9 samples
    assert (
        st_value(at, "cap_ex") == 3
        and at.query_params["cap_ex"] == ["3"]
        or at.query_params["cap_ex"] == "3"
    )
    assert any(b.label.startswith("Download") for b in at.get("download_button"))


def st_value(at: AppTest, key: str):
    return at.session_state[key]


def test_resample_changes_the_seed(tiny):
    at = _run()
    before = at.session_state["cap_seed"]
    at.button(key="cap_resample").click().run()
    assert not at.exception and at.session_state["cap_seed"] == before + 1


def test_composition_from_the_url_and_its_caption(tiny):
    at = _run({"cap_src": "compose", "cap_scene": "tree:30:20:64,car:40:80:64"})
    assert _codes(at)[0] == "a tree above a car"
    assert at.multiselect(key="cap_objects").value == ["tree", "car"]
    at.slider(key="cap_y_car").set_value(15).run()  # car moves up, level with the tree
    assert _codes(at)[0] == "a tree to the left of a car"
    assert "car:40:15:64" in str(at.query_params["cap_scene"])


def test_random_layout_button(tiny):
    at = _run({"cap_src": "compose"})
    at.button(key="cap_random").click().run()
    assert not at.exception
    assert 1 <= len(at.multiselect(key="cap_objects").value) <= 4


def _png(img: Image.Image, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, fmt)
    return buffer.getvalue()


def test_good_upload_is_captioned(tiny):
    at = _run({"cap_src": "upload"})
    assert any("only the scene vocabulary" in i.value for i in at.info)
    at.file_uploader(key="cap_upload").set_value(
        ("scene.png", _png(Image.new("RGBA", (300, 200), (9, 9, 9, 90))), "image/png")
    ).run()
    assert not at.exception and len(_codes(at)) == 2


@pytest.mark.parametrize(
    "name", ["not an image", "truncated png", "bomb 20000x20000", "animated gif"]
)
def test_bad_uploads_get_a_message(tiny, name):
    data, message = BAD[name]
    at = _run({"cap_src": "upload"})
    at.file_uploader(key="cap_upload").set_value(("upload.png", data, "image/png")).run()
    assert not at.exception
    assert any(message.lower() in e.value.lower() for e in at.error), [e.value for e in at.error]


def test_missing_checkpoints_disable_only_the_models(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(CHECKPOINTS_ENV, str(tmp_path))
    at = _run()
    warnings = " ".join(c.value for c in at.code)
    assert (
        "train_captions --attention soft" in warnings
        and "train_captions --attention hard" in warnings
    )
    assert len(at.get("image")) >= 1  # the scene is still shown
    assert not _figures(at)


def test_classroom_mode(tiny):
    at = _run(first={"classroom": "true"})
    figs = _figures(at)
    sizes = [f["layout"].get("font", {}).get("size") for f in figs]
    # the two players first, fitted to a projector's first screen (their font between the
    # classroom minimum and classroom mode's own size); the other charts at classroom size
    assert len(figs) == 5 and all(f["frames"] for f in figs[:2]), sizes
    assert all(CLASSROOM_MIN_PX <= size <= 20 for size in sizes[:2]) and sizes[2:] == [20] * 3


def test_composition_strings_round_trip():
    text = "dog:25:30:64,apple:70:70:56"
    assert format_composition(parse_composition(text)) == text
    assert parse_composition(
        "dragon:1:2:3,dog:500:2:3,dog:10:10:64,dog:20:20:64"
    ) == parse_composition("dog:10:10:64")
    assert parse_composition(None) == []


def test_figure_builders():
    image = np.full((224, 224, 3), 200, dtype=np.uint8)
    alphas = np.zeros((2, 14, 14))
    alphas[0, 0, 0] = alphas[1, 13, 13] = 1.0
    lit = blend(image, alphas[0])
    assert lit[5, 5].mean() > lit[200, 200].mean()  # bright where alpha is, dim elsewhere
    panels = word_panels(image, alphas, ["a", "dog"], panel=64)
    assert [p.shape for p in panels] == [(64, 64, 3)] * 2
    assert panels[0][2, 2].mean() > panels[0][60, 60].mean()  # "a" looked at the top left
    assert panels[1][60, 60].mean() > panels[1][2, 2].mean()  # "dog" at the bottom right
    with pytest.raises(ValueError, match="3 words"):
        word_panels(image, alphas, ["a", "dog", "x"])
    locations = np.array([[0, 195], [0, 194], [1, 195]])
    player = attention_player_figure(image, alphas, ["a", "dog"], locations=locations)
    # numbered, so that the labels plotly leaves out where they would overlap read as a sample
    # of the caption ("1. an  4. the  7. a"), not as a sentence ("an the a")
    steps = player.layout.sliders[0].steps
    assert len(player.frames) == 2 and [s.label for s in steps] == ["1. a", "2. dog"]
    assert location_counts(locations[:, 0], 14) == [(0, 0, 2), (0, 1, 1)]
