"""Safe decoding of user images into the captioner's 224 x 224 RGB input (Pillow + numpy only).

Anything that is not a still PNG, JPEG or WebP within the limits is refused with an
``ImageInputError`` whose message can be shown as is. Every decision is taken from the file's
header before anything is decoded: the type (from its first bytes, so GIF, SVG, BMP and TIFF are
named), the size in pixels, the aspect ratio, the number of frames and the memory the decoder
would need. Decoding then goes straight to the small size: JPEG decodes at 1/2 to 1/8 scale
(``Image.draft``), other images are reduced in bands of rows, converted to RGB band by band, and
letterboxed at 224 x 224; no full-size copy or padded square is ever made. At most
``MAX_DECODING`` images are decoded at once (a semaphore), so a burst of uploads waits instead of
multiplying the memory. ``python -m bench.upload_memory`` measures the peak (floor: 300 MB).

CMYK, greyscale, 16-bit, palette and transparent images are converted to RGB (transparency over
white); the EXIF orientation is applied.
"""

from __future__ import annotations

import io
import math
import struct
import threading
import warnings

import numpy as np
from PIL import Image, UnidentifiedImageError

from i18n import N_, _

MAX_BYTES = 10 * 1024 * 1024  # uploads up to 10 MB
MAX_PIXELS = 40_000_000  # about 6300 x 6300; larger images are refused before decoding
MAX_ASPECT = 10  # the long side may be at most 10 times the short one
DECODE_BUDGET = 200 * 2**20  # bytes the decoder may need for one image (estimated from the header)
MAX_DECODING = 2  # images decoded at the same time, across all sessions
WAIT_S = 30.0  # how long an upload waits for a free decoding slot
BAND_BYTES = 8 * 2**20  # rows converted to RGB at a time
ALLOWED_FORMATS = ("PNG", "JPEG", "WEBP")
WEBP_BYTES_PER_PIXEL = 16  # libwebp's two canvases, the decoded frame and the image (measured)
Image.MAX_IMAGE_PIXELS = MAX_PIXELS  # Pillow itself warns above this and refuses above twice it

_SLOTS = threading.BoundedSemaphore(MAX_DECODING)
_SVG, _PDF, _ZIP = N_("an SVG drawing"), N_("a PDF document"), N_("a ZIP archive")
_REFUSED_FORMATS = {  # first bytes -> the name a person knows the file by (translated when shown)
    b"GIF8": N_("a GIF"),
    b"BM": N_("a BMP image"),
    b"II*\0": N_("a TIFF image"),
    b"MM\0*": N_("a TIFF image"),
    b"<svg": _SVG,
    b"<?xml": N_("an SVG or XML file"),
    b"%PDF": _PDF,
    b"\0\0\1\0": N_("an icon (ICO)"),
    b"PK\3\4": _ZIP,
}
_ORIENTATION = {  # EXIF orientation -> the transpose that shows the picture upright
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


class ImageInputError(ValueError):
    """An image that cannot be used; the message says why in plain words (in the language of the
    session that decodes it)."""


DAMAGED = N_("The image file is damaged or truncated.")


def too_large(n_bytes: int) -> str:
    """The message for a file over ``MAX_BYTES`` (10 MB), with its size."""
    return _("The file is {size:.1f} MB; the limit is 10 MB.").format(size=n_bytes / 2**20)


def sniff(data: bytes) -> str:
    """'PNG', 'JPEG' or 'WEBP' from the first bytes, or ImageInputError naming what it is."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    head = data[:512].lstrip().lower()
    file_format = next(
        (name for magic, name in _REFUSED_FORMATS.items() if head.startswith(magic.lower())), ""
    )
    file_format = _SVG if b"<svg" in head else file_format
    if not file_format:
        raise ImageInputError(
            _("This file is not an image the page can read: upload a PNG, JPEG or WebP image.")
        )
    if file_format in (_PDF, _ZIP):
        raise ImageInputError(
            _(
                "This file is not an image the page can read (it looks like {format}): upload a "
                "PNG, JPEG or WebP image."
            ).format(format=_(file_format))
        )
    raise ImageInputError(
        _(
            "This file is {format}: only PNG, JPEG and WebP images are accepted. Save it as PNG or "
            "JPEG and upload it again."
        ).format(format=_(file_format))
    )


def webp_size(data: bytes) -> tuple[int, int] | None:
    """Canvas size from a WebP header (simple lossy, lossless or extended), without decoding."""
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def check_size(width: int, height: int) -> None:
    """Refuse too many pixels or a too-long strip, in words."""
    if width * height > MAX_PIXELS:
        raise ImageInputError(
            _(
                "The image is {width:,} x {height:,} pixels: too many pixels (limit {limit:,} in "
                "all). Resize it and upload it again."
            ).format(width=width, height=height, limit=MAX_PIXELS)
        )
    if max(width, height) > MAX_ASPECT * max(1, min(width, height)):
        ratio = max(width, height) / max(1, min(width, height))
        raise ImageInputError(
            _(
                "The image is {width:,} x {height:,} pixels: one side is {ratio:.0f} times the "
                "other, and the limit is {limit}. Crop it to the part you want described."
            ).format(width=width, height=height, ratio=ratio, limit=MAX_ASPECT)
        )


def decode_cost(img: Image.Image) -> int:
    """Bytes the decoder will hold for ``img`` (opened, not loaded), from its header."""
    width, height = img.size
    if img.format == "WEBP":
        return width * height * WEBP_BYTES_PER_PIXEL
    if img.format in ("JPEG", "MPO"):
        if not img.info.get("progressive"):
            return 0  # decoded at 1/8 scale for large images (draft), row by row
        layers = getattr(img, "layer", None) or [("", 1, 1, 0)] * len(img.getbands())
        h_max = max(layer[1] for layer in layers) or 1  # (id, h sampling, v sampling, table)
        v_max = max(layer[2] for layer in layers) or 1
        return sum(
            2 * math.ceil(width * h / h_max) * math.ceil(height * v / v_max)
            for __, h, v, __ in layers
        )  # libjpeg keeps every DCT coefficient
    return width * height * (1 if img.mode in ("1", "L", "P") else 2 if "I;16" in img.mode else 4)


def _too_costly(width: int, height: int, file_format: str) -> ImageInputError:
    return ImageInputError(
        _(
            "The image is {width:,} x {height:,} pixels: too many pixels to decode as {format} "
            "here. Resize it, or save it as a (non-progressive) JPEG."
        ).format(width=width, height=height, format=file_format)
    )


def _check_webp_header(data: bytes) -> None:
    """Size, aspect and decoding memory of a WebP file from its header, before Pillow opens it."""
    dims = webp_size(data)
    if dims is None:
        raise ImageInputError(_(DAMAGED))
    check_size(*dims)
    if dims[0] * dims[1] * WEBP_BYTES_PER_PIXEL > DECODE_BUDGET:
        raise _too_costly(*dims, "WebP")


def _check_header(img: Image.Image) -> None:
    """Format, pixels, aspect, animation and decoding memory, from the header (nothing decoded)."""
    if img.format not in (*ALLOWED_FORMATS, "MPO"):  # MPO: a camera JPEG with extra pictures
        raise ImageInputError(
            _("Only PNG, JPEG and WebP images are accepted (this is {format}).").format(
                format=img.format
            )
        )
    check_size(*img.size)
    if img.format != "MPO" and getattr(img, "n_frames", 1) > 1:
        raise ImageInputError(
            _("Animated images are not supported: upload a still PNG, JPEG or WebP.")
        )
    if decode_cost(img) > DECODE_BUDGET:
        raise _too_costly(*img.size, img.format)


def open_image(data: bytes, size: int = 224) -> Image.Image:
    """Decode ``data`` into a loaded still image, at reduced scale for large JPEGs (at least
    ``size`` on the long side), or raise ImageInputError; the header is checked first."""
    if len(data) > MAX_BYTES:
        raise ImageInputError(too_large(len(data)))
    file_format = sniff(data)
    if file_format == "WEBP":  # libwebp allocates its canvases as soon as the file is opened
        _check_webp_header(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data), formats=[file_format])
            _check_header(img)
            if img.format in ("JPEG", "MPO"):
                scale = max(img.size) / size
                img.draft(
                    img.mode,
                    (max(1, math.ceil(img.width / scale)), max(1, math.ceil(img.height / scale))),
                )
            img.load()
    except ImageInputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageInputError(
            _("The image has too many pixels (limit {limit:,}).").format(limit=MAX_PIXELS)
        ) from exc
    except UnidentifiedImageError as exc:
        raise ImageInputError(
            _("This file is not an image the page can read (PNG, JPEG or WebP).")
        ) from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageInputError(_(DAMAGED)) from exc
    return img


def _band_to_rgb(band: Image.Image, value_range: tuple[float, float] | None) -> Image.Image:
    """RGB from any mode: transparency over white, 16-bit/float rescaled to ``value_range``."""
    if band.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
        lo, hi = value_range or (0.0, 0.0)
        arr = np.asarray(band, dtype=np.float32)
        arr = (arr - lo) / (hi - lo) * 255 if hi > lo else np.zeros_like(arr)
        band = Image.fromarray(arr.astype(np.uint8), "L")
    if band.mode == "P":
        band = band.convert("RGBA")
    if band.mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        rgba = band.convert("RGBA")
        band = Image.alpha_composite(Image.new("RGBA", band.size, (255, 255, 255, 255)), rgba)
    return band.convert("RGB")  # CMYK, L, YCbCr, ... -> RGB


def reduce_to_rgb(img: Image.Image, size: int = 224) -> Image.Image:
    """RGB ``img`` reduced by a whole factor to between ``size`` and twice that on the long side
    (unchanged when smaller), converted band by band: no full-size copy is made."""
    value_range = img.getextrema() if img.mode.startswith(("I", "F")) else None
    width, height = img.size
    factor = max(1, max(width, height) // (2 * size))
    rows = factor * max(1, BAND_BYTES // (4 * width * factor))
    out = Image.new("RGB", (math.ceil(width / factor), math.ceil(height / factor)))
    for top in range(0, height, rows):
        band = _band_to_rgb(img.crop((0, top, width, min(height, top + rows))), value_range)
        out.paste(band.reduce(factor) if factor > 1 else band, (0, top // factor))
    return out


def letterbox(img: Image.Image, size: int = 224) -> np.ndarray:
    """(size, size, 3) uint8: ``img`` (RGB, small) fitted inside the square, the rest filled
    with its border's median colour."""
    width, height = img.size
    arr = np.asarray(img)
    border = np.concatenate([arr[0], arr[-1], arr[:, 0], arr[:, -1]])
    fill = tuple(int(c) for c in np.median(border, axis=0))
    scale = size / max(width, height)
    fitted = (max(1, round(width * scale)), max(1, round(height * scale)))
    canvas = Image.new("RGB", (size, size), fill)
    canvas.paste(
        img.resize(fitted, Image.LANCZOS), ((size - fitted[0]) // 2, (size - fitted[1]) // 2)
    )
    return np.asarray(canvas, dtype=np.uint8)


def _decode(data: bytes, size: int) -> np.ndarray:
    img = open_image(data, size)
    orientation = img.getexif().get(0x0112)
    small = reduce_to_rgb(img, size)
    img.close()
    if orientation in _ORIENTATION:
        small = small.transpose(_ORIENTATION[orientation])
    return letterbox(small, size)


def load_image(data: bytes, size: int = 224) -> np.ndarray:
    """Uploaded bytes -> (size, size, 3) uint8 RGB, or ImageInputError with a clear message.
    Waits (up to ``WAIT_S``) for one of the ``MAX_DECODING`` decoding slots."""
    if not _SLOTS.acquire(timeout=WAIT_S):
        raise ImageInputError(_("The server is busy with other images: try again in a moment."))
    try:
        return _decode(data, size)
    except ImageInputError:
        raise
    except Exception as exc:  # anything else Pillow may raise on a hostile file
        raise ImageInputError(_("The image could not be read: it may be damaged.")) from exc
    finally:
        _SLOTS.release()
