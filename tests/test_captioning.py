"""Show, Attend and Tell decoders on tiny random weights, checkpoints, bad images, shipped models."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from media.images import ImageInputError, load_image
from models.attention import additive_score, masked_softmax
from models.captioning.checkpoint import load_captioner, save_captioner
from models.captioning.decoding import forced_pass
from models.captioning.inference import describe
from models.captioning.model import END, START
from models.checkpoints import CheckpointError
from tests.requirements_env import need
from tests.tiny_captions import tiny_model
from training.caption_losses import Baseline, doubly_stochastic_penalty, hard_loss, soft_loss

L, D = 196, 112


@pytest.fixture
def features() -> torch.Tensor:
    return torch.randn(1, L, D, generator=torch.Generator().manual_seed(3))


@pytest.mark.parametrize("attention", ["soft", "hard"])
def test_result_shapes_alphas_and_betas(attention, features):
    model, vocab = tiny_model(attention)
    r = describe(model, features, vocab, beam=2, samples=7, seed=1)
    T = len(r.words)
    assert 1 <= T <= model.cfg.max_len
    assert r.alphas.shape == (T, 14, 14) and r.betas.shape == (T,) and r.locations.shape == (7, T)
    np.testing.assert_allclose(r.alphas.sum((1, 2)), 1.0, atol=1e-5)
    assert np.all((r.betas > 0) & (r.betas < 1))
    assert r.alpha_sum.shape == (14, 14) and np.isclose(r.alpha_sum.sum(), T, atol=1e-4)
    assert r.locations.min() >= 0 and r.locations.max() < L


def test_hard_sampling_is_seeded(features):
    model, vocab = tiny_model("hard")
    words = ["a", "dog", "to", "the", "left", "of", "an", "apple"]
    a = describe(model, features, vocab, words=words, samples=30, seed=5).locations
    b = describe(model, features, vocab, words=words, samples=30, seed=5).locations
    c = describe(model, features, vocab, words=words, samples=30, seed=6).locations
    assert np.array_equal(a, b) and not np.array_equal(a, c)


@pytest.mark.parametrize("attention", ["soft", "hard"])
def test_beam_one_is_greedy(attention, features):
    model, vocab = tiny_model(attention, seed=4)
    memory, state = model.memory(features)
    word, greedy = torch.tensor([vocab.stoi[START]]), []
    with torch.inference_mode():
        for _ in range(model.cfg.max_len):
            out = model.step(word, state, memory, model.default_mode())
            logits = out.logits.clone()
            logits[0, [0, 1, 3]] = -torch.inf  # <pad>, <start>, <unk> are never emitted
            word, state = logits.argmax(-1), out.state
            if int(word) == vocab.stoi[END]:
                break
            greedy.append(vocab.itos[int(word)])
    assert describe(model, features, vocab, beam=1).words == greedy
    best5 = describe(model, features, vocab, beam=5)
    assert best5.log_prob >= describe(model, features, vocab, beam=1).log_prob - 1e-4


def test_forced_decoding_keeps_the_words(features):
    model, vocab = tiny_model("soft")
    words = ["a", "tree", "above", "a", "car"]
    r = describe(model, features, vocab, words=words)
    assert r.words == words and r.alphas.shape == (5, 14, 14)
    fp = forced_pass(model, features, torch.tensor([vocab.encode([START, *words])]))
    np.testing.assert_allclose(
        fp.alphas[0].detach().numpy().reshape(6, 14, 14)[:5], r.alphas, atol=1e-5
    )
    assert np.all(r.word_log_probs <= 0)


def test_attention_matches_the_core_additive_score(features):
    model, _ = tiny_model("soft")
    with torch.no_grad():
        model.att_key.bias.zero_()  # the core's additive score has no bias
    memory, (h, _) = model.memory(features)
    ours = model.attend(memory, h)  # (1, L)
    scores = additive_score(
        h[:, None],
        memory.annotations,
        model.att_query.weight,
        model.att_key.weight,
        model.att_v.weight[0],
    )  # (1, 1, L)
    assert torch.allclose(ours, masked_softmax(scores)[:, 0], atol=1e-6)


def test_losses_are_finite_and_train(features):
    torch.manual_seed(0)
    for attention in ("soft", "hard"):
        model, vocab = tiny_model(attention)
        model.train()
        inputs = torch.tensor(
            [vocab.encode([START, "a", "dog"]), vocab.encode([START, "an", "owl"])]
        )
        targets = torch.tensor([vocab.encode(["a", "dog", END]), vocab.encode(["an", "owl", END])])
        f = features.expand(2, -1, -1)
        loss = (
            soft_loss(model, f, inputs, targets, 0.1)
            if attention == "soft"
            else hard_loss(
                model, f, inputs, targets, Baseline(), generator=torch.Generator().manual_seed(1)
            )
        )
        loss.backward()
        assert torch.isfinite(loss)
        assert all(p.grad is None or torch.isfinite(p.grad).all() for p in model.parameters())


def test_doubly_stochastic_penalty_is_zero_when_every_cell_gets_one():
    alphas = torch.eye(4)[None]  # 4 steps, 4 cells, each cell attended once
    targets = torch.ones(1, 4, dtype=torch.long)
    assert float(doubly_stochastic_penalty(alphas, targets)) == 0.0
    assert float(doubly_stochastic_penalty(torch.full((1, 2, 4), 0.25), targets[:, :2])) == 4 * 0.25


def test_checkpoint_round_trip(tmp_path: Path, features):
    model, vocab = tiny_model("hard", seed=9)
    save_captioner(model, vocab, tmp_path / "caption-hard")
    loaded, vocab2 = load_captioner(tmp_path / "caption-hard")
    assert vocab2.itos == vocab.itos
    a = describe(model.half().float(), features, vocab, samples=5, seed=2)  # fp16 storage
    b = describe(loaded, features, vocab2, samples=5, seed=2)
    assert a.words == b.words and np.allclose(a.alphas, b.alphas, atol=1e-5)
    assert np.array_equal(a.locations, b.locations)


def test_missing_or_damaged_checkpoint_names_the_command(tmp_path: Path):
    with pytest.raises(CheckpointError, match="train_captions --attention soft"):
        load_captioner(tmp_path / "caption-soft")
    model, vocab = tiny_model("soft")
    save_captioner(model, vocab, tmp_path / "caption-soft")
    (tmp_path / "caption-soft" / "model.safetensors").write_bytes(b"broken")
    with pytest.raises(CheckpointError, match="damaged"):
        load_captioner(tmp_path / "caption-soft")


def _encode(img: Image.Image, fmt: str = "PNG", **kw) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, fmt, **kw)
    return buffer.getvalue()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims width x height pixels (a decompression bomb's header)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


BAD = {
    "not an image": (b"%PDF-1.4 definitely not a picture", "not an image"),
    "truncated png": (_encode(Image.new("RGB", (300, 300), "red"))[:150], "damaged or truncated"),
    "bomb 20000x20000": (_png_header_only(20_000, 20_000), "too many pixels"),
    "animated gif": (
        _encode(
            Image.new("RGB", (20, 20)),
            "GIF",
            save_all=True,
            append_images=[Image.new("RGB", (20, 20), "blue")],
        ),
        "PNG, JPEG and WebP",
    ),
    "animated png": (
        _encode(
            Image.new("RGB", (20, 20)),
            "PNG",
            save_all=True,
            append_images=[Image.new("RGB", (20, 20), "blue")],
        ),
        "Animated",
    ),
    "too large": (b"\x89PNG" + b"\0" * (10 * 2**20 + 1), "limit is 10 MB"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_images_are_refused_with_a_message(name):
    data, message = BAD[name]
    with pytest.raises(ImageInputError, match=message):
        load_image(data)


@pytest.mark.parametrize(
    "img",
    [
        Image.new("CMYK", (60, 40), (0, 255, 255, 0)),
        Image.new("RGBA", (40, 60), (0, 0, 255, 0)),
        Image.new("L", (50, 50), 128),
        Image.new("P", (30, 30)),
        Image.new("I;16", (30, 30)),
    ],
    ids=["cmyk", "rgba", "grey", "palette", "16bit"],
)
def test_odd_modes_become_rgb(img):
    fmt = "JPEG" if img.mode == "CMYK" else "PNG"
    arr = load_image(_encode(img, fmt))
    assert arr.shape == (224, 224, 3) and arr.dtype == np.uint8
    if img.mode == "RGBA":  # fully transparent -> white
        assert arr.min() == 255
    if img.mode == "CMYK":  # no cyan, full magenta and yellow: red
        assert arr[..., 0].min() > 200 and arr[..., 1:].max() < 60
    if img.mode == "L":  # a plain grey image stays plain grey
        assert np.ptp(arr) <= 1


@pytest.mark.checkpoints
@pytest.mark.parametrize("name", ["caption-soft", "caption-hard"])
def test_shipped_checkpoints_on_fresh_scenes(name):
    from media.scenes import load_sprites, random_scene
    from models.captioning.image_encoder import encode, load_encoder
    from models.checkpoints import checkpoint_folder as resolve
    from training.caption_metrics import caption_scores

    need((resolve(name) / "model.safetensors").is_file(), f"checkpoint {name} not trained yet")
    model, vocab = load_captioner(name)
    assert (resolve(name) / "model.safetensors").stat().st_size < 12 * 2**20
    encoder, sprites = load_encoder(), load_sprites()
    scenes = [random_scene(31, i, sprites) for i in range(40)]
    feats = np.stack([encode(encoder, s.image)[0].numpy() for s in scenes])
    metrics = caption_scores(
        model,
        vocab,
        feats,
        [" ".join(s.caption) for s in scenes],
        [[list(o.box) for o in s.objects] for s in scenes],
        samples=5,
    )
    floor = {"caption-soft": (0.8, 0.7), "caption-hard": (0.7, 0.6)}[
        name
    ]  # a little below the 500-scene floors
    assert metrics["exact_match"] >= floor[0] and metrics["localization"] >= floor[1], metrics


@pytest.mark.checkpoints
@pytest.mark.parametrize(
    ("name", "exact", "localization"), [("caption-soft", 0.90, 0.80), ("caption-hard", 0.80, 0.70)]
)
def test_shipped_cards_meet_the_floors(name, exact, localization):
    """The cards' 500-scene test figures (evaluate_captions --write-card) meet their floors."""
    from models.checkpoints import SHIPPED_ROOT, read_card

    card_path = SHIPPED_ROOT / name / "card.json"
    need(card_path.is_file(), f"checkpoint {name} not trained yet")
    card = read_card(card_path.parent)
    test = card.metrics
    assert card.data["test_scenes"] == 500
    assert test["exact_match"] >= exact and test["localization"] >= localization, test
