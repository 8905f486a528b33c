"""Streamlit glue for the Image captions page: cached models, scene sources, URL state, downloads.

Session-state keys and URL parameters of the page start with ``cap_``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from i18n import N_, _, current_language, pgettext
from media.images import MAX_BYTES, ImageInputError, load_image, too_large
from media.scenes import (
    OBJECT_NAMES,
    Placement,
    Scene,
    compose,
    load_sprites,
    random_placements,
    random_scene,
)
from models.analysis.regions import region_masses
from models.captioning.inference import CaptionResult
from models.limits import CAPTIONER_BEAM
from serve.streamlit_private import DeltaGenerator
from ui.choices import choice_ui
from ui.guard import guarded_ui
from ui.loaders import ModelKey, cached_model, card_of, model_key
from ui.sidebar import current_device
from ui.url_state import parse_int, read_param, write_params

SOURCE_LABELS = {  # id (cap_src in the URL) -> label
    "example": N_("Example scene"),
    "compose": N_("Compose a scene"),
    "upload": N_("Upload an image"),
}
EXAMPLE_SEED = 2026  # example scenes come from a seed used neither in training nor in testing
N_EXAMPLES = 12
DEFAULT_SCENE = "dog:25:30:64,apple:70:70:56"
MODEL_LABELS = {"caption-soft": N_("Soft attention"), "caption-hard": N_("Hard attention")}


@st.cache_resource
def sprites_resource() -> dict:
    """The committed emoji sprites (assets/sprites)."""
    return load_sprites()


# 32 scenes: a 224 x 224 RGB picture (147 KB) and its boxes each, under 5 MB in all
@st.cache_data(max_entries=32, show_spinner=False)
def example_scene(index: int) -> Scene:
    """Example scene ``index`` (deterministic)."""
    return random_scene(EXAMPLE_SEED, index, sprites_resource())


def parse_composition(raw: str | None) -> list[Placement]:
    """'dog:25:30:64,apple:70:70:56' (name:x%:y%:size px) -> placements; bad items are dropped."""
    placements = []
    for item in str(raw or "").split(",")[:4]:
        parts = item.split(":")
        if (
            len(parts) != 4
            or parts[0] not in OBJECT_NAMES
            or parts[0] in [p.name for p in placements]
        ):
            continue
        x, y = parse_int(parts[1], -1, 0, 100), parse_int(parts[2], -1, 0, 100)
        size = parse_int(parts[3], 64, 32, 96)
        if x >= 0 and y >= 0:
            placements.append(Placement(parts[0], x * 2.24, y * 2.24, float(size)))
    return placements


def format_composition(placements: list[Placement]) -> str:
    """The inverse of ``parse_composition``."""
    return ",".join(
        f"{p.name}:{round(p.x / 2.24)}:{round(p.y / 2.24)}:{round(p.size)}" for p in placements
    )


# 64 scenes of 147 KB: under 10 MB
@st.cache_data(max_entries=64, show_spinner=False)
def composed_scene(spec: str) -> Scene:
    """The scene drawn from a composition string on a light background."""
    return compose(parse_composition(spec), sprites_resource(), background=(236, 233, 222))


def random_composition(seed: int) -> str:
    """A random valid layout (as a composition string) for the 'Random layout' button."""
    rng = np.random.default_rng([EXAMPLE_SEED, seed])
    return format_composition(random_placements(rng, sprites_resource()))


def decode_upload(data: bytes) -> tuple[np.ndarray | None, str | None]:
    """(image, None) or (None, message) for an uploaded file; never raises."""
    if len(data) > MAX_BYTES:
        return None, too_large(len(data))
    try:
        return load_image(data), None
    except ImageInputError as exc:
        return None, str(exc)


# 8 uploads, each letterboxed to 224 x 224 RGB (147 KB) or a message: about 1.2 MB
@st.cache_data(max_entries=8, show_spinner=False)
def decoded_upload(file_id: str, _data: bytes, lang: str) -> tuple[np.ndarray | None, str | None]:
    """:func:`decode_upload`, once per uploaded file (``file_id``) rather than on every rerun;
    per language ``lang``, since the message is in the session's language."""
    return decode_upload(_data)


def image_digest(image: np.ndarray) -> str:
    """A short key for caching results per image."""
    return hashlib.sha1(np.ascontiguousarray(image).tobytes()).hexdigest()[:16]


# 64 results: 14 x 14 maps per word and up to 50 sampled locations, well under 1 MB each
@st.cache_data(max_entries=64, show_spinner=False)
def describe_cached(
    weights: ModelKey, digest: str, _image: np.ndarray, beam: int, samples: int, seed: int
) -> CaptionResult:
    """The captioner with ``weights`` (its ``model_key``: folder, device, weights-file stamp) on
    one image (keyed by its digest): caption, maps, sampled locations."""
    with torch.inference_mode():
        return cached_model("caption", *weights).describe(
            _image, beam=beam, samples=samples, seed=seed
        )


def describe_ui(
    name: str, image: np.ndarray, settings: CaptionSettings, seed: int
) -> CaptionResult | None:
    """The captioner ``name`` on ``image`` (cached on its weights and the image's digest), or None
    after a message when it refused the input (the one guard, :func:`ui.guard.guarded_ui`)."""
    weights, digest = model_key(name, current_device()), image_digest(image)
    return guarded_ui(
        lambda: describe_cached(weights, digest, image, settings.beam, settings.samples, seed)
    )


def source_ui() -> str:
    """Where the image comes from (kept in the URL as cap_src)."""
    source = choice_ui(st.segmented_control, _("Image"), SOURCE_LABELS, key="cap_src", wrap=True)
    return source or "example"


def example_ui() -> int:
    """Which example scene (cap_ex in the URL)."""
    if "cap_ex" not in st.session_state:
        st.session_state["cap_ex"] = read_param("cap_ex", parse_int, 0, 0, N_EXAMPLES - 1)
    index = st.select_slider(
        _("Example scene"),
        list(range(N_EXAMPLES)),
        key="cap_ex",
        format_func=lambda i: f"#{i + 1}",
        persist_state="page",
    )
    write_params(cap_ex=index)
    return int(index)


@dataclass(frozen=True)
class CaptionSettings:
    """The page's decoding settings: beam size (1 = greedy, up to CAPTIONER_BEAM) and the number
    of locations the hard model samples per word (1 to 50)."""

    beam: int
    samples: int


def settings_ui() -> CaptionSettings:
    """Beam size and the number of hard-attention samples (both in the URL). Their values are kept
    while the sliders are not drawn (``persist_state``): the browser shows a slider that comes
    back with the value it had, not its minimum."""
    for key, default, lo, hi in (("cap_beam", 1, 1, CAPTIONER_BEAM), ("cap_n", 20, 1, 50)):
        if key not in st.session_state:
            st.session_state[key] = read_param(key, parse_int, default, lo, hi)
    left, right = st.columns(2)
    beam = left.slider(
        _("Beam size"),
        1,
        CAPTIONER_BEAM,
        key="cap_beam",
        help=_("1 = greedy decoding"),
        persist_state="page",
    )
    samples = right.slider(
        _("Hard-attention samples N"),
        1,
        50,
        key="cap_n",
        help=_("How many times the hard model samples one location per word"),
        persist_state="page",
    )
    write_params(cap_beam=beam, cap_n=samples)
    return CaptionSettings(int(beam), int(samples))


def maps_document(image_source: str, results: dict[str, CaptionResult]) -> dict:
    """Everything on screen as one JSON-ready document (maps as nested lists)."""
    doc = {"source": image_source, "grid": None, "models": {}}
    for name, r in results.items():
        doc["grid"] = int(r.alphas.shape[-1]) if r.alphas.size else doc["grid"]
        doc["models"][name] = {
            "attention": r.attention,
            "words": r.words,
            "alphas": r.alphas,
            "betas": r.betas,
            "alpha_sum": r.alpha_sum,
            "word_log_probs": r.word_log_probs,
            "sampled_locations": r.locations,
        }
    return doc


def card_line(name: str) -> str:
    """One line from the model card: test metrics and training data, for the page's captions."""
    card = card_of(name)
    if card is None or "exact_match" not in card.metrics:
        return ""
    test, data = card.metrics, card.data
    return _(
        "Test ({scenes} fresh scenes, seed {seed}): exact match {exact:.1%}, localization "
        "{localization:.1%}, BLEU-4 {bleu:.1f}"
    ).format(
        scenes=data.get("test_scenes"),
        seed=data.get("test_seed"),
        exact=test["exact_match"],
        localization=test.get("localization", 0),
        bleu=test.get("bleu4", 0),
    )


def dumps(doc: dict) -> str:
    """JSON text of a maps document."""
    return json.dumps(doc, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))


def _set_composition(placements: list[Placement]) -> None:
    """Put a composition into the widgets' session state (before they are drawn, or in a callback)."""
    st.session_state["cap_objects"] = [p.name for p in placements]
    for p in placements:
        st.session_state[f"cap_x_{p.name}"] = round(p.x / 2.24)
        st.session_state[f"cap_y_{p.name}"] = round(p.y / 2.24)
        st.session_state[f"cap_size_{p.name}"] = round(p.size)


def _randomise() -> None:
    st.session_state["cap_layout_seed"] = st.session_state.get("cap_layout_seed", 0) + 1
    _set_composition(parse_composition(random_composition(st.session_state["cap_layout_seed"])))


def _object_ui(name: str) -> Placement:
    """Position and size sliders for one chosen object."""
    st.session_state.setdefault(f"cap_x_{name}", 50)
    st.session_state.setdefault(f"cap_y_{name}", 50)
    st.session_state.setdefault(f"cap_size_{name}", 64)
    st.markdown(f"**{name}**")
    x = st.slider(_("left → right (%)"), 0, 100, key=f"cap_x_{name}", persist_state="page")
    y = st.slider(_("top → bottom (%)"), 0, 100, key=f"cap_y_{name}", persist_state="page")
    size = st.slider(_("size (px)"), 32, 96, step=4, key=f"cap_size_{name}", persist_state="page")
    return Placement(name, x * 2.24, y * 2.24, float(size))


def compose_ui(area: DeltaGenerator) -> str:
    """Choose up to four objects and where they go (their sliders side by side in ``area``);
    returns the composition (cap_scene in the URL)."""
    if "cap_objects" not in st.session_state:
        placements = parse_composition(st.query_params.get("cap_scene", DEFAULT_SCENE))
        _set_composition(placements or parse_composition(DEFAULT_SCENE))
    st.button(_("Random layout"), key="cap_random", on_click=_randomise, icon=":material/casino:")
    names = st.multiselect(
        _("Objects (up to four)"),
        OBJECT_NAMES,
        key="cap_objects",
        max_selections=4,
        persist_state="page",
    )
    placements = []
    for column, name in zip(area.columns(max(1, len(names))), names, strict=False):
        with column:
            placements.append(_object_ui(name))
    spec = format_composition(placements)
    write_params(cap_scene=spec)
    return spec


def image_upload_ui() -> tuple[np.ndarray | None, str | None]:
    """An uploaded image as (224, 224, 3) uint8, or a message saying why it cannot be used."""
    # Any file type, and up to server.maxUploadSize (25 MB): the page checks type and size itself
    # and says in words why a file is refused (the browser's filter showed only a red icon).
    file = st.file_uploader(
        _("PNG, JPEG or WebP, up to 10 MB"),
        key="cap_upload",
        help=_(
            "The models were trained only on emoji scenes: they know only the scene vocabulary."
        ),
    )
    if file is None:
        return None, None
    if file.size > MAX_BYTES:
        return None, too_large(file.size)
    with st.spinner(_("Reading the image…")):
        return decoded_upload(file.file_id, file.getvalue(), current_language())


def captions_ui(truth: str | None, results: dict[str, CaptionResult]) -> None:
    """The caption read off the layout (when there is one) and each model's caption with its
    log-probability, side by side."""
    shown = ([(_("Caption read off the layout"), truth, None)] if truth else []) + [
        (_(MODEL_LABELS[name]), " ".join(r.words) or _("(empty caption)"), r.log_prob)
        for name, r in results.items()
    ]
    for column, (label, text, log_prob) in zip(st.columns(max(1, len(shown))), shown, strict=False):
        with column:
            st.markdown(f"**{label}**")
            st.code(text, language=None, wrap_lines=True)
            if log_prob is not None:
                st.caption(f"log p = {log_prob:.2f}")


def region_names() -> tuple[str, ...]:
    """The nine parts of an image, row by row from the top left (``region_masses``' order)."""
    return (
        pgettext("image region", "top left"),
        pgettext("image region", "top"),
        pgettext("image region", "top right"),
        pgettext("image region", "left"),
        pgettext("image region", "centre"),
        pgettext("image region", "right"),
        pgettext("image region", "bottom left"),
        pgettext("image region", "bottom"),
        pgettext("image region", "bottom right"),
    )


def word_alt(word: str, alpha: np.ndarray) -> str:
    """A word's attention map in words, for its image's text alternative: the part of the image
    with most of the map's mass, and that share, from ``alpha`` (g, g)."""
    masses = region_masses(np.asarray(alpha, dtype=float))  # (9,)
    top = int(np.argmax(masses))
    return _(
        "While it says “{word}”, the model looks mostly at the {region} ({share:.0%})."
    ).format(
        word=word, region=region_names()[top], share=float(masses[top] / max(masses.sum(), 1e-9))
    )
