"""Freed native memory handed back to the operating system: glibc's ``malloc_trim``.

glibc keeps freed blocks below its mmap threshold in its heaps, for the next allocation, and
returns only the top of a heap by itself; the free pages between live blocks stay resident. In a
process started without ``MALLOC_MMAP_THRESHOLD_`` (``make run``) the threshold rises to the largest
block freed so far (up to 32 MB), so MiniLM's 12.6 MB attention tensors at 512 pieces come from the
heap after the first run: measured here in one such process, a 512-piece
:meth:`~models.transformer.pretrained.PretrainedEncoder.attend` peaked 157-202 MB over its start and
left 48-116 MB of freed memory resident; with a trim after each layer is copied, 146-158 MB and
none. The class layout (``deploy/serve_class.py``) fixes the threshold at 1 MB, where those tensors
are mapped and given back anyway; there the trim after a run's collection (:mod:`serve.memory`)
returns the pages of the dead figures, which are smaller blocks: the 200-rerun Multi-head soak's
peak over start went from +314-333 MB (the collection alone) to +259 MB. A trim takes 0.2-0.6 ms
here. (A 4 MB threshold instead of 1 MB made that soak worse: +413-427 MB.)
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
