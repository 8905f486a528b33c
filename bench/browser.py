"""The headless Chromium that the bench and the browser tests drive: the system's, never a
downloaded browser (``$CHROMIUM_PATH``, else /usr/bin/chromium)."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    *("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"),
    *("--disable-background-networking", "--disable-component-update", "--disable-sync"),
]


def launch_chromium(playwright):
    """Launch the system Chromium headless with :data:`CHROMIUM_ARGS`."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
