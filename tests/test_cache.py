"""serve.cache.BoundedCache: bounded in entries and bytes, least recently used out first, results
shared read-only, one computation per argument; room is made before a miss is computed."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np
import pytest

from serve.cache import BoundedCache, nbytes


@dataclasses.dataclass(frozen=True)
class Result:
    weights: np.ndarray
    tokens: list


def _sized(kb: int) -> Result:
    return Result(np.zeros(kb * 256, np.float32), ["a", "b"])  # kb KB of weights


def test_nbytes_counts_arrays_in_fields() -> None:
    assert nbytes(_sized(4)) == 4096 + 1024


def test_bounded_in_entries_least_recently_used_out_first() -> None:
    calls = []
    cache = BoundedCache(lambda k: calls.append(k) or _sized(1), max_entries=2, max_bytes=10**9)
    cache("a"), cache("b"), cache("a"), cache("c")  # "b" is the least recently used
    assert calls == ["a", "b", "c"]
    cache("a")
    assert calls == ["a", "b", "c"]
    cache("b")
    assert calls == ["a", "b", "c", "b"]


def test_bounded_in_bytes_and_too_large_results_not_kept() -> None:
    cache = BoundedCache(lambda kb: _sized(kb), max_entries=100, max_bytes=20 * 1024)
    for kb in (4, 4, 5, 6):
        cache(kb)
    assert cache.bytes <= 20 * 1024
    cache(40)  # over the bound: returned, not kept
    assert cache.bytes <= 20 * 1024 and 40 not in {k[0] for k in cache._entries}


def test_room_is_made_before_a_miss_is_computed() -> None:
    """The entries the new result will push out are let go before it is computed, so both are
    never held at once (the cache is full of 8 KB results; the next is as large)."""
    held_while_computing = []
    cache: BoundedCache

    def compute(key: str) -> Result:
        held_while_computing.append(cache.bytes)
        return _sized(8)

    cache = BoundedCache(compute, max_entries=100, max_bytes=3 * (8 * 1024 + 1024))
    for key in "abc":
        cache(key)
    full = cache.bytes
    cache("d")
    assert held_while_computing[-1] <= full - (8 * 1024 + 1024)
    assert cache.bytes <= cache.max_bytes
    assert cache.last_size == 8 * 1024 + 1024


def test_results_are_shared_read_only_and_lists_copied() -> None:
    cache = BoundedCache(lambda k: _sized(1), max_entries=4, max_bytes=10**9)
    first, second = cache("k"), cache("k")
    assert first.weights is second.weights
    with pytest.raises(ValueError):
        first.weights[0] = 1.0
    first.tokens.append("mine")
    assert second.tokens == ["a", "b"]


def test_one_computation_per_argument_at_a_time() -> None:
    calls, gate = [], threading.Event()

    def slow(key: str) -> Result:
        calls.append(key)
        gate.wait(5)
        return _sized(1)

    cache = BoundedCache(slow, max_entries=4, max_bytes=10**9)
    threads = [threading.Thread(target=cache, args=("same",)) for _ in range(4)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(5)
    assert calls == ["same"]


def test_exceptions_are_not_cached() -> None:
    calls = []

    def flaky(key: str) -> Result:
        calls.append(key)
        if len(calls) == 1:
            raise RuntimeError("first time")
        return _sized(1)

    cache = BoundedCache(flaky, max_entries=4, max_bytes=10**9)
    with pytest.raises(RuntimeError):
        cache("k")
    cache("k")
    assert calls == ["k", "k"]
