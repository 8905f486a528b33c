"""The class's join link as a QR code: a PNG drawn here by ``segno`` (pure Python), never fetched."""

from __future__ import annotations

import io

import segno

MODULE_PX = 8  # one dark or light square of the code, in pixels: readable from the back of a room
QUIET_MODULES = 2  # the light border a phone's camera needs around the code


def qr_png(text: str, scale: int = MODULE_PX) -> bytes:
    """``text`` (a URL) as a QR code in PNG, error correction level M (15% of it may be lost)."""
    code = segno.make(text, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="png", scale=scale, border=QUIET_MODULES)
    return out.getvalue()
