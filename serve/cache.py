"""One caching strategy for model results, bounded in entries and bytes, shared read-only.

A result cache is keyed on the identity of the weights that computed it
(:func:`ui.loaders.weights_id`: checkpoint folder, device, weights-file stamp, the key the model
itself is loaded and cached with), never on ``id(model)``: an id can be reused by a later object,
and it says nothing about which weights ran. Small results are ``st.cache_data`` (a copy per
session, so no session can change another's), each with its ``max_entries`` and, next to it, what
that bound means in bytes. Results of tens of megabytes (MiniLM's 6 x 12 heads at 512 pieces) go
through :func:`bounded_cache` instead: bounded in bytes as well as entries, computed once while
several sessions ask for the same input, and shared read-only (numpy arrays made unwritable, lists
copied per call) rather than unpickled per rerun, which would copy the whole result into every
rerun and let a class's memory grow by hundreds of megabytes (``make load SCENARIO=soak``).
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np
import torch

F = TypeVar("F", bound=Callable[..., Any])
MB = 1024 * 1024


def nbytes(value: object) -> int:
    """The bytes a result holds in numpy arrays and torch tensors (its fields, lists, tuples and
    dicts searched), plus 1 KB for the rest: what :func:`bounded_cache` counts."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, torch.Tensor):
        return value.element_size() * value.nelement()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return 1024 + sum(nbytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v) for v in value) if len(value) < 10_000 else 8 * len(value)
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    return 0


def _freeze(value: object) -> object:
    """Make the numpy arrays in ``value`` (and in its dataclass fields) unwritable."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _freeze(getattr(value, f.name))
    elif isinstance(value, (list, tuple)):
        for v in value:
            _freeze(v)
    return value


def _handed_out(value: object) -> object:
    """What a caller gets: the shared result, with its list fields copied (a list is mutable)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        lists = {
            f.name: list(v)
            for f in dataclasses.fields(value)
            if type(v := getattr(value, f.name)) is list
        }
        return dataclasses.replace(value, **lists) if lists else value
    return value


class BoundedCache:
    """``func``'s results by argument, least recently used out first once there are more than
    ``max_entries`` or more than ``max_bytes`` (:func:`nbytes`); a result larger than
    ``max_bytes`` is returned and not kept. One computation per argument at a time: sessions asking
    for the same input while it runs wait for it. Exceptions are not cached.

    Before computing a missing result, entries are let go until one as large as the last result
    computed would fit: otherwise the new result and the entries it is about to push out are held
    at once (at 512 pieces on MiniLM, a second 75 MB while the miss is computed)."""

    def __init__(self, func: Callable[..., Any], max_entries: int, max_bytes: int) -> None:
        self.func, self.max_entries, self.max_bytes = func, max_entries, max_bytes
        self._entries: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._computing: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()
        self.bytes = 0
        self.last_size = 0  # bytes of the last result computed

    def _drop_oldest(self) -> None:
        """Let go of the least recently used entry (the lock held)."""
        _, (_, dropped) = self._entries.popitem(last=False)
        self.bytes -= dropped

    def _make_room(self) -> None:
        """Let entries go until one as large as the last result computed would fit."""
        with self._lock:
            if self.last_size > self.max_bytes:
                return
            while self._entries and self.bytes + self.last_size > self.max_bytes:
                self._drop_oldest()

    def _get(self, key: Hashable) -> object | None:
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key][0]

    def _put(self, key: Hashable, value: object) -> None:
        size = nbytes(value)
        with self._lock:
            self.last_size = size
            if size > self.max_bytes or key in self._entries:
                return
            self._entries[key] = (value, size)
            self.bytes += size
            while len(self._entries) > self.max_entries or self.bytes > self.max_bytes:
                self._drop_oldest()

    def __call__(self, *args: Hashable) -> Any:
        found = self._get(args)
        if found is None:
            with self._lock:
                running = self._computing.setdefault(args, threading.Lock())
            with running:
                found = self._get(args)
                if found is None:
                    self._make_room()
                    try:
                        found = _freeze(self.func(*args))
                    finally:
                        with self._lock:
                            self._computing.pop(args, None)
                    self._put(args, found)
        return _handed_out(found)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


def bounded_cache(*, max_entries: int, max_bytes: int) -> Callable[[F], F]:
    """Decorator: :class:`BoundedCache` around a function of hashable arguments whose results
    (frozen dataclasses of arrays) are read, never changed, by the pages."""

    def wrap(func: F) -> F:
        cache = BoundedCache(func, max_entries, max_bytes)
        functools.update_wrapper(cache, func)
        return cache  # type: ignore[return-value]

    return wrap
