"""Peak memory of decoding an uploaded image: one fresh process per case, peak RSS above idle.

    python -m bench.upload_memory                      # media/images.py (what the app runs)
    python -m bench.upload_memory --module OTHER.py    # any module with load_image(data), e.g. an
                                                       # older media/images.py from `git show`

Each case is an image file of at most 10 MB (the upload limit) written to a temporary folder;
a child Python process imports the decoder, reads the file, notes its resident memory (idle),
runs ``load_image(data)`` and reports its peak (``VmHWM`` reset just before the decode on Linux,
else ``ru_maxrss``) minus idle. Refused files count too:
refusing must be cheap. The floor: under 300 MB above idle for every case. Exits 1 when
a case is over the floor.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
FLOOR_MB = 300.0
SIDE = 6300  # 6300 x 6300 = 39.7 M pixels, just under the 40 M-pixel limit

CHILD = r"""
import importlib.util, json, os, resource, sys, time
spec = importlib.util.spec_from_file_location("decoder_under_test", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
data = open(sys.argv[2], "rb").read()
page = os.sysconf("SC_PAGE_SIZE")
idle = int(open("/proc/self/statm").read().split()[1]) * page / 2**20
def peak_mb():
    try:  # Linux: the high-water mark since clear_refs below
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
try:  # reset the high-water mark to now, so that the imports and the fork do not count
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
except OSError:
    pass
start = time.perf_counter()
try:
    out = module.load_image(data)
    outcome = "decoded " + "x".join(str(n) for n in out.shape)
except Exception as exc:
    outcome = "refused: " + str(exc)[:70]
seconds = time.perf_counter() - start
peak = peak_mb()
print(json.dumps({"idle": idle, "peak": peak, "seconds": seconds, "outcome": outcome}))
"""


def _gradient(size: tuple[int, int], mode: str = "RGB") -> Image.Image:
    """A smooth picture (compresses well, like a diagram): gradients in each channel."""
    ramp = Image.linear_gradient("L").resize(size, Image.BILINEAR)
    other = ramp.transpose(Image.ROTATE_90).resize(size, Image.BILINEAR)
    rgb = Image.merge("RGB", (ramp, other, ramp.point(lambda v: 255 - v)))
    return rgb.convert(mode) if mode != "RGB" else rgb


def _noise(size: tuple[int, int]) -> Image.Image:
    return Image.frombytes("RGB", size, _random_bytes(size[0] * size[1] * 3))


def _random_bytes(n: int) -> bytes:
    import numpy as np

    return np.random.default_rng(0).integers(0, 256, n, dtype=np.uint8).tobytes()


def _encode(img: Image.Image, fmt: str, **kwargs: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kwargs)
    return buf.getvalue()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` (a decompression bomb's header)."""
    import struct
    import zlib

    def chunk(chunk_type: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(chunk_type + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + chunk_type + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = chunk(b"IDAT", zlib.compress(b"\0" * 64))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + idat + chunk(b"IEND", b"")


CASES: dict[str, Callable[[], bytes]] = {
    "strip 40000x1000 PNG": lambda: _encode(
        Image.new("RGB", (40_000, 1_000), (40, 90, 160)), "PNG"
    ),
    "strip 20000x500 PNG": lambda: _encode(Image.new("RGB", (20_000, 500), (40, 90, 160)), "PNG"),
    "strip 1000x40000 PNG": lambda: _encode(
        Image.new("RGB", (1_000, 40_000), (40, 90, 160)), "PNG"
    ),
    "panorama 12000x2000 PNG": lambda: _encode(_gradient((12_000, 2_000)), "PNG"),
    "strip 20000x2000 RGBA PNG": lambda: _encode(_gradient((20_000, 2_000), "RGBA"), "PNG"),
    "6300^2 RGBA PNG": lambda: _encode(_gradient((SIDE, SIDE), "RGBA"), "PNG"),
    "6300^2 16-bit grey PNG": lambda: _encode(_gradient((SIDE, SIDE), "L").convert("I;16"), "PNG"),
    "6300^2 palette PNG": lambda: _encode(_gradient((SIDE, SIDE), "P"), "PNG"),
    "6300^2 JPEG": lambda: _encode(_gradient((SIDE, SIDE)), "JPEG", quality=85),
    "6300^2 progressive JPEG": lambda: _encode(
        _gradient((SIDE, SIDE)), "JPEG", quality=85, progressive=True
    ),
    "6300^2 progressive CMYK JPEG": lambda: _encode(
        _gradient((SIDE, SIDE), "CMYK"), "JPEG", quality=85, progressive=True
    ),
    "6300^2 WebP lossless": lambda: _encode(_gradient((SIDE, SIDE)), "WEBP", lossless=True),
    "3500^2 WebP lossless": lambda: _encode(_gradient((3_500, 3_500)), "WEBP", lossless=True),
    "3500^2 WebP lossy": lambda: _encode(_gradient((3_500, 3_500)), "WEBP", quality=80),
    "noise 1800^2 PNG (9.3 MB)": lambda: _encode(_noise((1_800, 1_800)), "PNG"),
    "bomb header 20000^2 PNG": lambda: _png_header_only(20_000, 20_000),
}


def _case_file(folder: Path, name: str) -> Path:
    return folder / f"case{list(CASES).index(name)}.bin"


def write_cases(folder: Path, names: list[str]) -> dict[str, Path]:
    """Each case's file in ``folder``, written by a separate process (a forked child would
    otherwise start with this process's peak memory as its own)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.upload_memory",
            "--write-to",
            str(folder),
            "--only",
            ",".join(names),
        ],
        cwd=ROOT,
        check=True,
    )
    return {name: _case_file(folder, name) for name in names}


def measure(module: Path, case: Path) -> dict:
    """Run one decode in a fresh process; its idle and peak memory (MB), seconds and outcome."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(module), str(case)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"idle": 0.0, "peak": 0.0, "seconds": 0.0, "outcome": f"crashed: {tail[:60]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--module",
        type=Path,
        default=ROOT / "media" / "images.py",
        help="a Python file with load_image(data) (default: media/images.py)",
    )
    parser.add_argument(
        "--only", default="", help="comma-separated words: cases whose name has one"
    )
    parser.add_argument("--write-to", type=Path, help=argparse.SUPPRESS)  # the case writer
    args = parser.parse_args(argv)
    words = [w.strip().lower() for w in args.only.split(",") if w.strip()]
    names = [n for n in CASES if not words or any(w in n.lower() for w in words)]
    if args.write_to:
        for name in names:
            _case_file(args.write_to, name).write_bytes(CASES[name]())
        return 0
    print(f"Upload decoding memory ({args.module}): peak RSS above idle, one process per case")
    print(f"{'case':32} {'file':>9} {'above idle':>11} {'time':>7}  outcome")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in write_cases(Path(tmp), names).items():
            row = measure(args.module.resolve(), path)
            above = row["peak"] - row["idle"]
            worst = max(worst, above)
            size = f"{path.stat().st_size / 1024:.0f} KB"
            print(f"{name:32} {size:>9} {above:8.0f} MB {row['seconds']:6.2f}s  {row['outcome']}")
    verdict = "ok" if worst < FLOOR_MB else "OVER"
    print(f"worst case: {worst:.0f} MB above idle (floor {FLOOR_MB:.0f} MB): {verdict}")
    return 0 if worst < FLOOR_MB else 1


if __name__ == "__main__":
    raise SystemExit(main())
