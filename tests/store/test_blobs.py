"""BlobSeries (references with their steps, lock-free snapshots) and ValueCache (an LRU bounded by bytes)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import pytest

from ridgeline.store.base import BlobRef
from ridgeline.store.blobs import BlobSeries, ValueCache, estimate_size


def ref(step: int, offset: int | None = None, path: str = "run/events.out.tfevents.1") -> BlobRef:
    return BlobRef(path=path, offset=step * 100 if offset is None else offset, length=90, value_index=0, step=step,
                   wall_time=1000.0 + step)  # fmt: skip


# --- BlobSeries ------------------------------------------------------------------------------------------------
def test_blob_series_keeps_references_in_file_order() -> None:
    series = BlobSeries(capacity=2)
    series.append(ref(0))
    series.extend([ref(5), ref(10)])
    series.extend([])
    series.append(ref(15))
    snapshot = series.snapshot()
    assert len(series) == len(snapshot) == 4
    assert snapshot.step.tolist() == [0, 5, 10, 15]
    assert snapshot.wall_time.tolist() == [1000.0, 1005.0, 1010.0, 1015.0]
    assert list(snapshot) == [ref(0), ref(5), ref(10), ref(15)]
    assert snapshot[1] == ref(5)
    assert snapshot[-1] == ref(15)
    assert snapshot[1:3] == [ref(5), ref(10)]
    assert ref(10) in snapshot
    for column in (snapshot.step, snapshot.wall_time, snapshot.refs):
        assert not column.flags.writeable


def test_blob_snapshot_finds_the_visible_reference_at_a_step() -> None:
    series = BlobSeries()
    series.extend([ref(0), ref(10), ref(20)])
    series.mark_restart(10)  # the job restarted at step 10 ...
    series.extend([ref(10, offset=7), ref(30)])  # ... and wrote step 10 again, elsewhere
    snapshot = series.snapshot()
    assert snapshot.restarts == ((3, 10),)
    assert snapshot.visible().tolist() == [True, False, False, True, True]
    assert snapshot.at_step(10) == ref(10, offset=7)
    assert snapshot.at_step(0) == ref(0)
    assert snapshot.at_step(20) is None  # hidden by the restart
    assert snapshot.at_step(25) is None
    assert snapshot.at_step(99) is None
    assert BlobSeries().snapshot().at_step(0) is None


def test_blob_snapshots_survive_growth() -> None:
    series = BlobSeries(capacity=1)
    series.append(ref(0))
    first = series.snapshot()
    series.extend([ref(step) for step in range(1, 1000)])
    assert list(first) == [ref(0)]
    assert series.snapshot().step.tolist() == list(range(1000))


@pytest.fixture
def fast_switching() -> Iterator[None]:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.usefixtures("fast_switching")
def test_blob_readers_see_consistent_prefixes_while_the_writer_appends() -> None:
    total = 30_000
    series = BlobSeries(capacity=1)
    done = threading.Event()
    failures: list[str] = []

    def writer() -> None:
        try:
            step = 0
            while step < total:
                if step % 7 == 0:
                    batch = [ref(s) for s in range(step, min(step + 50, total))]
                    series.extend(batch)
                    step += len(batch)
                else:
                    series.append(ref(step))
                    step += 1
        finally:
            done.set()

    def reader() -> None:
        last = 0
        while not done.is_set():
            snapshot = series.snapshot()
            n = len(snapshot)
            steps = [r.step for r in snapshot.refs]
            if n < last or steps != list(range(n)) or snapshot.step.tolist() != steps:
                failures.append(f"inconsistent snapshot of {n} references")
            last = n

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not failures, failures[:5]
    assert len(series) == total


# --- ValueCache ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Decoded:
    pixels: np.ndarray
    encoded: bytes
    caption: str


def test_default_size_counts_arrays_and_bytes_in_decoded_dataclasses() -> None:
    value = Decoded(np.zeros((100, 100, 3), dtype=np.uint8), b"x" * 5000, "a cat")
    size = estimate_size(value)
    assert 35_000 <= size < 36_000
    assert estimate_size([np.zeros(1000), np.zeros(1000)]) > 16_000
    assert estimate_size({"a": b"x" * 1000}) > 1000
    assert estimate_size(3.5) > 0
    nested: list[object] = []
    nested.append(nested)  # a cycle ends at the depth limit
    assert estimate_size(nested) > 0


def loader(calls: list[BlobRef]) -> Callable[[BlobRef], bytes]:
    def load(key: BlobRef) -> bytes:
        calls.append(key)
        return b"v" * 100 + str(key.step).encode()

    return load


def length(value: object) -> int:
    assert isinstance(value, bytes)
    return len(value)


def test_hits_and_misses() -> None:
    cache = ValueCache()
    calls: list[BlobRef] = []
    load = loader(calls)
    assert cache.get(ref(1), load) == b"v" * 100 + b"1"
    assert cache.get(ref(1), load) == b"v" * 100 + b"1"
    assert cache.get(ref(2), load) == b"v" * 100 + b"2"
    assert calls == [ref(1), ref(2)]
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.entries) == (1, 2, 2)
    assert stats.bytes == estimate_size(b"v" * 101) * 2
    assert ref(1) in cache
    assert len(cache) == 2


def test_least_recently_used_values_go_first_when_bytes_run_out() -> None:
    cache = ValueCache(max_bytes=300, sizeof=length)

    def load(key: BlobRef) -> bytes:
        return bytes(100)

    for step in (1, 2, 3):
        cache.get(ref(step), load)
    assert cache.stats().bytes == 300
    cache.get(ref(1), load)  # 1 is now the most recently used: 2 goes next
    cache.get(ref(4), load)
    assert [step for step in (1, 2, 3, 4) if ref(step) in cache] == [1, 3, 4]
    stats = cache.stats()
    assert (stats.bytes, stats.entries, stats.evictions) == (300, 3, 1)

    big = ValueCache(max_bytes=300, sizeof=length)
    big.get(ref(1), load)
    assert big.get(ref(9), lambda key: bytes(250)) == bytes(250)  # evicts 1 to make room
    assert ref(1) not in big and ref(9) in big
    assert big.get(ref(10), lambda key: bytes(301)) == bytes(301)  # larger than the budget: returned, not kept
    assert ref(10) not in big and ref(9) in big
    assert big.stats().bytes == 250


def test_a_failed_load_is_not_cached() -> None:
    cache = ValueCache()

    def broken(key: BlobRef) -> bytes:
        raise OSError("file gone")

    with pytest.raises(OSError, match="file gone"):
        cache.get(ref(1), broken)
    assert ref(1) not in cache
    assert cache.get(ref(1), lambda key: b"ok") == b"ok"


def test_clear_forgets_values_and_loads_in_flight() -> None:
    cache = ValueCache()
    cache.get(ref(1), lambda key: b"one")
    release = threading.Event()
    started = threading.Event()

    def slow(key: BlobRef) -> bytes:
        started.set()
        release.wait(5)
        return b"stale"

    results: list[bytes] = []
    thread = threading.Thread(target=lambda: results.append(cache.get(ref(2), slow)))
    thread.start()
    started.wait(5)
    cache.clear()
    release.set()
    thread.join(5)
    assert results == [b"stale"]  # its caller gets it ...
    assert ref(2) not in cache  # ... but it is not kept
    assert ref(1) not in cache
    assert cache.stats().bytes == 0


def test_concurrent_requests_for_one_missing_value_decode_it_once() -> None:
    cache = ValueCache()
    calls: list[BlobRef] = []
    gate = threading.Event()

    def slow(key: BlobRef) -> bytes:
        calls.append(key)
        gate.wait(5)
        return b"decoded"

    results: list[bytes] = []
    threads = [threading.Thread(target=lambda: results.append(cache.get(ref(1), slow))) for _ in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(0.05)  # let them all ask
    gate.set()
    for thread in threads:
        thread.join(5)
    assert results == [b"decoded"] * 8
    assert calls == [ref(1)]
    stats = cache.stats()
    assert (stats.hits, stats.misses) == (7, 1)


def test_waiters_retry_when_the_shared_load_fails() -> None:
    cache = ValueCache()
    gate = threading.Event()
    attempts: list[int] = []

    def flaky(key: BlobRef) -> bytes:
        attempts.append(1)
        if len(attempts) == 1:
            gate.wait(5)
            raise OSError("transient")
        return b"fine"

    errors: list[BaseException] = []
    results: list[bytes] = []

    def ask() -> None:
        try:
            results.append(cache.get(ref(1), flaky))
        except OSError as error:
            errors.append(error)

    first = threading.Thread(target=ask)
    first.start()
    while not attempts:
        time.sleep(0.001)
    second = threading.Thread(target=ask)
    second.start()
    time.sleep(0.02)
    gate.set()
    first.join(5)
    second.join(5)
    assert len(errors) == 1 and results == [b"fine"]
    assert ref(1) in cache


@pytest.mark.usefixtures("fast_switching")
def test_thread_safety_smoke() -> None:
    budget = 20_000
    cache = ValueCache(max_bytes=budget, sizeof=lambda value: value.nbytes if isinstance(value, np.ndarray) else 0)
    failures: list[str] = []
    per_thread = 3000

    def load(key: BlobRef) -> np.ndarray:
        return np.full(key.step % 50 + 1, key.step, dtype=np.int64)  # 8 to 400 bytes

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for step in rng.integers(0, 400, per_thread):
            value = cache.get(ref(int(step)), load)
            if value.shape != (step % 50 + 1,) or not (value == step).all():
                failures.append(f"wrong value for step {step}")
            if cache.stats().bytes > budget:
                failures.append("over budget")

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not failures, failures[:5]
    stats = cache.stats()
    assert stats.hits + stats.misses == 8 * per_thread
    assert stats.hits > 0 and stats.evictions > 0
    assert stats.bytes == sum(load(ref(step)).nbytes for step in range(400) if ref(step) in cache)
