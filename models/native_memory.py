"""Freed native memory handed back to the operating system: glibc's ``malloc_trim``.

glibc keeps freed blocks below its mmap threshold in its heaps, for the next allocation, and
returns only the top of a heap by itself; the free pages between live blocks stay resident. In a
process started without ``MALLOC_MMAP_THRESHOLD_`` (``make run``) the threshold rises to the largest
block freed so far (up to 32 MB), so MiniLM's 12.6 MB attention tensors at 512 pieces come from the
heap after the first run, and a 512-piece
:meth:`~models.transformer.pretrained.PretrainedEncoder.attend` leaves freed memory resident; a
trim after each layer is copied lowers its peak and gives that memory back. The class layout
(``deploy/serve_class.py``) fixes the threshold at 1 MB, where those tensors are mapped and given
back anyway; there the trim after a run's collection (:mod:`serve.memory`) returns the pages of the
dead figures, which are smaller blocks, and lowers the Multi-head soak's peak. A trim is cheap
beside a run. (A 4 MB threshold instead of 1 MB made that soak worse.) The figures, and the command
that remeasures the soak: docs/performance.md, "Serving settings".
"""

from __future__ import annotations

import ctypes
import ctypes.util


def _trim_function():
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


_malloc_trim = _trim_function()


def give_back() -> bool:
    """Return the free pages of the C heaps to the operating system; whether any were (False
    where the C library is not glibc)."""
    return bool(_malloc_trim and _malloc_trim(0))
