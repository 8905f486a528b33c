"""Safe decoding of user images into the captioner's 224 x 224 RGB input (Pillow + numpy only).

Anything that is not a still PNG, JPEG or WebP within the limits is refused with an
``ImageInputError`` whose message can be shown as is: not an image, damaged or truncated files,
decompression bombs (more than ``MAX_PIXELS`` pixels, checked from the header before decoding),
animated images. CMYK, greyscale, 16-bit, palette and transparent images are converted to RGB
(transparency over white).
"""

from __future__ import annotations

import io
import warnings

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_BYTES = 10 * 1024 * 1024  # uploads up to 10 MB
MAX_PIXELS = 40_000_000  # about 6300 x 6300; larger images are refused before decoding
ALLOWED_FORMATS = ("PNG", "JPEG", "WEBP")
Image.MAX_IMAGE_PIXELS = MAX_PIXELS  # Pillow itself warns above this and refuses above twice it


class ImageInputError(ValueError):
    """An image that cannot be used; the message says why in plain words."""


def open_image(data: bytes) -> Image.Image:
    """Decode ``data`` into a fully loaded still image, or raise ImageInputError."""
    if len(data) > MAX_BYTES:
        raise ImageInputError(f"The file is {len(data) / 2**20:.1f} MB; the limit is 10 MB.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            _check_header(img)
            img.load()
    except ImageInputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageInputError(f"The image has too many pixels (limit {MAX_PIXELS:,}).") from exc
    except UnidentifiedImageError as exc:
        raise ImageInputError(
            "This file is not an image Pillow can read (PNG, JPEG or WebP)."
        ) from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageInputError(f"The image file is damaged or truncated ({exc}).") from exc
    return img


def _check_header(img: Image.Image) -> None:
    """Format, pixel count and animation, from the header (nothing decoded yet)."""
    if img.format not in ALLOWED_FORMATS:
        raise ImageInputError(
            f"Only PNG, JPEG and WebP images are accepted (this is {img.format})."
        )
    width, height = img.size
    if width * height > MAX_PIXELS:
        raise ImageInputError(
            f"The image is {width:,} x {height:,} pixels; the limit is {MAX_PIXELS:,} pixels in all."
        )
    if getattr(img, "is_animated", False) or getattr(img, "n_frames", 1) > 1:
        raise ImageInputError(
            "Animated images are not supported: upload a still PNG, JPEG or WebP."
        )


def to_rgb(img: Image.Image) -> Image.Image:
    """RGB from any mode: EXIF rotation applied, transparency over white, 16-bit/float rescaled."""
    img = ImageOps.exif_transpose(img)
    if img.mode in ("I", "I;16", "I;16B", "I;16L", "F"):
        arr = np.asarray(img, dtype=np.float64)
        lo, hi = float(arr.min()), float(arr.max())
        arr = (arr - lo) / (hi - lo) * 255 if hi > lo else np.zeros_like(arr)
        img = Image.fromarray(arr.astype(np.uint8), "L")
    if img.mode == "P":
        img = img.convert("RGBA")
    if img.mode in ("RGBA", "LA", "PA"):
        background = Image.new("RGBA", img.size, (255, 255, 255, 255))
        img = Image.alpha_composite(background, img.convert("RGBA"))
    return img.convert("RGB")  # CMYK, L, YCbCr, ... -> RGB


def to_square(img: Image.Image, size: int = 224) -> np.ndarray:
    """(size, size, 3) uint8: padded to a square with its border's median colour, then resized."""
    width, height = img.size
    side = max(width, height)
    arr = np.asarray(img)
    border = np.concatenate([arr[0], arr[-1], arr[:, 0], arr[:, -1]])
    fill = tuple(int(c) for c in np.median(border, axis=0))
    canvas = Image.new("RGB", (side, side), fill)
    canvas.paste(img, ((side - width) // 2, (side - height) // 2))
    return np.asarray(canvas.resize((size, size), Image.LANCZOS), dtype=np.uint8)


def load_image(data: bytes, size: int = 224) -> np.ndarray:
    """Uploaded bytes -> (size, size, 3) uint8 RGB, or ImageInputError with a clear message."""
    try:
        return to_square(to_rgb(open_image(data)), size)
    except ImageInputError:
        raise
    except Exception as exc:  # anything else Pillow may raise on a hostile file
        raise ImageInputError(f"The image could not be read ({type(exc).__name__}).") from exc
