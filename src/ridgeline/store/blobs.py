"""Big payloads stay in their files: a series of :class:`BlobRef` per (run, tag, kind), decoded on demand.

:class:`BlobSeries` keeps the references in file order with their steps and wall times as columns (the same
append-only, lock-free-reader discipline as :mod:`ridgeline.store.series`). :class:`ValueCache` holds decoded
values, least recently used first out, within a budget of bytes.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import TypeVar, cast, overload

import numpy as np

from ridgeline.store.base import BlobRef
from ridgeline.store.restarts import RestartLog, SeriesRestarts, visible
from ridgeline.store.series import MIN_CAPACITY, Restarts, grown, read_only

T = TypeVar("T")

DEFAULT_MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True, eq=False)
class BlobSnapshot(Sequence[BlobRef]):
    """The first ``len(self)`` references of a blob series; ``step``/``wall_time`` are read-only int64/float64."""

    step: np.ndarray
    wall_time: np.ndarray
    refs: np.ndarray  # object array of BlobRef, read-only
    restarts: Restarts = ()

    def __len__(self) -> int:
        return int(self.step.shape[0])

    @overload
    def __getitem__(self, index: int) -> BlobRef: ...
    @overload
    def __getitem__(self, index: slice) -> list[BlobRef]: ...
    def __getitem__(self, index: int | slice) -> BlobRef | list[BlobRef]:
        if isinstance(index, slice):
            return list(self.refs[index])
        return cast(BlobRef, self.refs[index])

    def __iter__(self) -> Iterator[BlobRef]:
        return iter(self.refs)

    def visible(self) -> np.ndarray:
        """Boolean mask of the references a TensorBoard user would see (see :mod:`ridgeline.store.restarts`)."""
        return visible(self.step, self.restarts)

    def at_step(self, step: int) -> BlobRef | None:
        """The visible reference at exactly ``step``, or None."""
        shown = np.flatnonzero(self.visible())
        steps = self.step[shown]  # strictly increasing
        i = int(np.searchsorted(steps, step))
        if i < steps.shape[0] and steps[i] == step:
            return cast(BlobRef, self.refs[shown[i]])
        return None


class BlobSeries:
    """Append-only references with their steps; one writer thread, lock-free snapshots for readers."""

    __slots__ = ("_length", "_refs", "_restarts", "_step", "_wall_time")

    def __init__(self, capacity: int = MIN_CAPACITY, restart_log: RestartLog | None = None) -> None:
        """``restart_log``: the run's START events (shared by its series); a series of its own by default."""
        capacity = max(int(capacity), 1)
        self._step = np.empty(capacity, dtype=np.int64)
        self._wall_time = np.empty(capacity, dtype=np.float64)
        self._refs = np.empty(capacity, dtype=object)
        self._restarts = SeriesRestarts(restart_log)
        self._length = 0

    def __len__(self) -> int:
        return self._length

    @property
    def restart_marks(self) -> Restarts:
        """``(count, start_step)`` of each START event of the run seen so far: ``count`` references preceded it."""
        return self._restarts.within(self._length)

    # --- writer thread ------------------------------------------------------------------------------------------
    def append(self, ref: BlobRef) -> None:
        n = self._length
        self._restarts.fold(n)
        if n == self._step.shape[0]:
            self._reserve(n + 1)
        self._refs[n] = ref
        self._step[n] = ref.step
        self._wall_time[n] = ref.wall_time
        self._length = n + 1  # publish only once the data is in place

    def extend(self, refs: Sequence[BlobRef]) -> None:
        count = len(refs)
        if count == 0:
            return
        start = self._length
        self._restarts.fold(start)
        end = start + count
        self._reserve(end)
        self._step[start:end] = [ref.step for ref in refs]
        self._wall_time[start:end] = [ref.wall_time for ref in refs]
        for i, ref in enumerate(refs, start):
            self._refs[i] = ref
        self._length = end

    def mark_restart(self, step: int) -> None:
        """Record a START event of the run at ``step``, after the references appended so far (in the run's log:
        every series sharing it sees the START)."""
        self._restarts.log.append(int(step))

    def _reserve(self, needed: int) -> None:
        if needed <= self._step.shape[0]:
            return
        n = self._length
        self._step = grown(self._step, n, needed)
        self._wall_time = grown(self._wall_time, n, needed)
        self._refs = grown(self._refs, n, needed)

    # --- any thread ---------------------------------------------------------------------------------------------
    def snapshot(self) -> BlobSnapshot:
        n = self._length  # read the length before the columns
        return BlobSnapshot(
            read_only(self._step, n),
            read_only(self._wall_time, n),
            read_only(self._refs, n),
            self._restarts.within(n),
        )


# --- decoded values ---------------------------------------------------------------------------------------------
_OBJECT_OVERHEAD = 64
_MAX_DEPTH = 6


def estimate_size(value: object, _depth: int = 0) -> int:
    """Approximate bytes held by a decoded value: numpy arrays' ``nbytes``, lengths of bytes and strings, summed
    through dataclasses, lists, tuples and dicts (a few levels deep); ``sys.getsizeof`` for anything else."""
    if isinstance(value, np.ndarray):
        return value.nbytes + _OBJECT_OVERHEAD
    if isinstance(value, bytes | bytearray | str):
        return len(value) + _OBJECT_OVERHEAD
    if isinstance(value, memoryview):
        return value.nbytes + _OBJECT_OVERHEAD
    if _depth >= _MAX_DEPTH:
        return _OBJECT_OVERHEAD
    if is_dataclass(value) and not isinstance(value, type):
        return _OBJECT_OVERHEAD + sum(estimate_size(getattr(value, f.name), _depth + 1) for f in fields(value))
    if isinstance(value, list | tuple | set | frozenset):
        return _OBJECT_OVERHEAD + 8 * len(value) + sum(estimate_size(item, _depth + 1) for item in value)
    if isinstance(value, dict):
        return _OBJECT_OVERHEAD + sum(
            16 + estimate_size(k, _depth + 1) + estimate_size(v, _depth + 1) for k, v in value.items()
        )
    return sys.getsizeof(value)


@dataclass(frozen=True, slots=True)
class CacheStats:
    hits: int  # calls answered without calling ``load`` (from the cache, or from another thread's load)
    misses: int  # calls to ``load``
    bytes: int  # estimated size of the values held
    entries: int
    evictions: int
    max_bytes: int


class _Loading:
    """A value being decoded by one thread, which other threads asking for the same reference wait for."""

    __slots__ = ("done", "ok", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.ok = False
        self.value: object = None


class ValueCache:
    """Decoded values keyed by :class:`BlobRef`, least recently used evicted first, within ``max_bytes``.

    Thread-safe. ``load`` runs outside the lock; concurrent requests for the same missing reference wait for a
    single ``load`` (if it raises, each waiter retries on its own). A value larger than ``max_bytes`` is returned
    but not kept.
    """

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, sizeof: Callable[[object], int] = estimate_size) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self._sizeof = sizeof
        self._lock = threading.Lock()
        self._entries: OrderedDict[BlobRef, tuple[object, int]] = OrderedDict()
        self._loading: dict[BlobRef, _Loading] = {}
        self._generation = 0  # bumped by clear(): loads begun before it do not store their values
        self._bytes = 0
        self._hits = 0
        self._misses = 0
        self._evictions = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, ref: BlobRef) -> bool:
        with self._lock:
            return ref in self._entries

    def get(self, ref: BlobRef, load: Callable[[BlobRef], T]) -> T:
        """The decoded value of ``ref``: from the cache, or ``load(ref)`` (then kept, evicting the oldest)."""
        while True:
            with self._lock:
                entry = self._entries.get(ref)
                if entry is not None:
                    self._entries.move_to_end(ref)
                    self._hits += 1
                    return cast(T, entry[0])
                loading = self._loading.get(ref)
                if loading is None:
                    loading = self._loading[ref] = _Loading()
                    self._misses += 1
                    generation = self._generation
                    break
            loading.done.wait()
            if loading.ok:
                with self._lock:
                    self._hits += 1
                return cast(T, loading.value)
            # The other thread's load failed: try again (this thread may become the loader).

        try:
            value = load(ref)
            size = self._sizeof(value)
        except BaseException:
            with self._lock:
                if self._loading.get(ref) is loading:
                    del self._loading[ref]
            loading.done.set()
            raise
        with self._lock:
            if self._loading.get(ref) is loading:
                del self._loading[ref]
            if generation == self._generation and size <= self.max_bytes:
                previous = self._entries.pop(ref, None)
                if previous is not None:
                    self._bytes -= previous[1]
                self._entries[ref] = (value, size)
                self._bytes += size
                while self._bytes > self.max_bytes:
                    _, (_, evicted) = self._entries.popitem(last=False)
                    self._bytes -= evicted
                    self._evictions += 1
        loading.value = value
        loading.ok = True
        loading.done.set()
        return value

    def clear(self) -> None:
        """Forget every value; loads in flight finish for their callers but are not kept."""
        with self._lock:
            self._entries.clear()
            self._loading.clear()
            self._bytes = 0
            self._generation += 1

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(
                self._hits, self._misses, self._bytes, len(self._entries), self._evictions, self.max_bytes
            )
