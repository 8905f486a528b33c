"""Freed native memory handed back to the operating system: glibc's ``malloc_trim``.

glibc keeps blocks smaller than its mmap threshold (which rises to the largest block freed so far,
up to 32 MB) in its heaps after they are freed, for the next allocation. MiniLM's attention at 512
pieces is six 12.6 MB tensors, so after the first run they come from the heap, and a run's freed
tensors stay resident beside the arrays that replace them: measured here in one process, a
512-piece :meth:`~models.transformer.pretrained.PretrainedEncoder.attend` peaked 157-202 MB over
its start, and left 48-116 MB of freed memory resident after it. ``malloc_trim(0)`` returns the
free pages of every heap (it does not move live blocks). Fixing the allocator's thresholds instead
(``mallopt``) made a 200-rerun Multi-head soak of the server worse (peak +413-427 MB over start,
against +314-333), so it is not done.
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
