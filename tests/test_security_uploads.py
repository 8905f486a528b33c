"""Uploads: decided from the header, decoded straight to the small size (no full-size
padded square), at most MAX_DECODING at once, and refused types or sizes named in a sentence."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import media.images as images
from media.images import ImageInputError, load_image, open_image


def encode(img: Image.Image, fmt: str = "PNG", **kwargs: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kwargs)
    return buf.getvalue()


@pytest.fixture
def new_images(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The sizes of every image Image.new builds while the test runs."""
    sizes: list[tuple[int, int]] = []
    real_new = Image.new

    def spy(mode, size, *args, **kwargs):
        sizes.append(tuple(size))
        return real_new(mode, size, *args, **kwargs)

    monkeypatch.setattr(Image, "new", spy)
    return sizes


def test_long_strip_is_refused_from_the_header(monkeypatch: pytest.MonkeyPatch):
    data = encode(Image.new("RGB", (40_000, 1_000), (40, 90, 160)))
    monkeypatch.setattr(Image.Image, "load", lambda self: pytest.fail("decoded a refused strip"))
    with pytest.raises(ImageInputError, match="one side is 40 times the other"):
        load_image(data)


def test_accepted_strip_is_reduced_without_a_padded_square(new_images):
    data = encode(Image.new("RGBA", (8_000, 800), (200, 30, 30, 255)))
    new_images.clear()
    arr = load_image(data)
    assert arr.shape == (224, 224, 3)
    assert new_images and max(w * h for w, h in new_images) <= images.BAND_BYTES // 4  # bands
    assert not any(w == h and w > 224 for w, h in new_images)  # no padded square
    assert tuple(arr[112, 112]) == pytest.approx((200, 30, 30), abs=2)
    assert np.ptp(arr.reshape(-1, 3), axis=0).max() <= 2  # letterboxed with the border's colour


def test_large_jpeg_is_decoded_at_reduced_scale():
    img = open_image(encode(Image.new("RGB", (4_000, 3_000), "green"), "JPEG"))
    assert img.size == (500, 375)  # libjpeg's 1/8 scale, still at least 224 on the long side


def test_16_bit_range_is_global_across_bands(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(images, "BAND_BYTES", 4 * 300 * 10)  # ten rows per band
    arr = np.full((600, 300), 1000, np.uint16)
    arr[300:] = 2000
    out = load_image(encode(Image.fromarray(arr)))
    assert out[60, 112].max() <= 1 and out[160, 112].min() >= 254  # dark top, white bottom


def test_exif_orientation_is_applied_at_the_small_size():
    img = Image.new("RGB", (80, 40), "blue")
    img.paste((255, 0, 0), (0, 0, 40, 40))  # left half red
    exif = Image.Exif()
    exif[0x0112] = 6  # shown rotated 90 degrees clockwise: the left half goes on top
    out = load_image(encode(img, "JPEG", exif=exif, quality=95))
    assert out[70, 112, 0] > 200 and out[150, 112, 2] > 200


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("gif", encode(Image.new("RGB", (20, 20)), "GIF"), "a GIF"),
        ("bmp", encode(Image.new("RGB", (20, 20)), "BMP"), "a BMP image"),
        ("tiff", encode(Image.new("RGB", (20, 20)), "TIFF"), "a TIFF image"),
        ("svg", b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>', "an SVG"),
        ("pdf", b"%PDF-1.4 not a picture", "not an image"),
    ],
)
def test_refused_types_are_named(name: str, data: bytes, words: str):
    with pytest.raises(ImageInputError, match=words) as info:
        load_image(data)
    assert "PNG, JPEG" in str(info.value)


def test_costly_webp_is_refused_before_libwebp_opens_it(monkeypatch: pytest.MonkeyPatch):
    data = encode(Image.new("RGB", (4_000, 4_000), "white"), "WEBP", lossless=True)
    monkeypatch.setattr(Image, "open", lambda *a, **k: pytest.fail("opened a refused WebP"))
    with pytest.raises(ImageInputError, match="too many pixels to decode as WebP"):
        load_image(data)


def test_costly_progressive_jpeg_is_refused_from_the_header():
    cmyk = Image.new("CMYK", (5_200, 5_200), (0, 0, 0, 0))
    with pytest.raises(ImageInputError, match="too many pixels to decode as JPEG"):
        load_image(encode(cmyk, "JPEG", progressive=True, quality=50))


def test_messages_carry_no_exception_text():
    damaged = encode(Image.new("RGB", (300, 300), "red"))[:150]
    with pytest.raises(ImageInputError) as info:
        load_image(damaged)
    assert str(info.value) == "The image file is damaged or truncated."


def test_at_most_max_decoding_at_once(monkeypatch: pytest.MonkeyPatch):
    active, peak, lock = [0], [0], threading.Lock()

    def slow_decode(data: bytes, size: int) -> np.ndarray:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return np.zeros((size, size, 3), np.uint8)

    monkeypatch.setattr(images, "_decode", slow_decode)
    threads = [
        threading.Thread(target=load_image, args=(b"",)) for _ in range(3 * images.MAX_DECODING)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak[0] == images.MAX_DECODING


def test_busy_server_says_so(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(images, "WAIT_S", 0.01)
    for _ in range(images.MAX_DECODING):
        images._SLOTS.acquire()
    try:
        with pytest.raises(ImageInputError, match="busy"):
            load_image(b"")
    finally:
        for _ in range(images.MAX_DECODING):
            images._SLOTS.release()


# ---------------------------------------------------------------- the page


def upload(name: str, data: bytes, mime: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("app_pages/captions/captions.py")
    at.query_params["cap_src"] = "upload"
    at.run()
    return at.file_uploader(key="cap_upload").set_value((name, data, mime)).run()


def test_uploader_takes_any_type_and_more_than_the_limit():
    at = upload("x.png", encode(Image.new("RGB", (300, 200), "white")), "image/png")
    assert list(at.file_uploader(key="cap_upload").proto.type) == []  # the page decides
    config = (Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml").read_text()
    assert "maxUploadSize = 25" in config  # files over 10 MB reach the page, which says so


@pytest.mark.parametrize(
    ("name", "data", "mime", "words"),
    [
        ("cat.gif", encode(Image.new("RGB", (20, 20)), "GIF"), "image/gif", "This file is a GIF"),
        (
            "cat.bmp",
            encode(Image.new("RGB", (20, 20)), "BMP"),
            "image/bmp",
            "This file is a BMP image",
        ),
        (
            "big.png",
            b"\x89PNG\r\n\x1a\n" + b"\0" * (11 * 2**20),
            "image/png",
            "11.0 MB; the limit is 10 MB",
        ),
        (
            "strip.png",
            encode(Image.new("RGB", (40_000, 1_000))),
            "image/png",
            "one side is 40 times",
        ),
    ],
)
def test_refused_uploads_get_a_sentence(name: str, data: bytes, mime: str, words: str):
    at = upload(name, data, mime)
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert words in errors, errors
