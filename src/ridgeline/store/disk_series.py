"""A scalar series whose points live in column files, mapped from disk when read.

The same interface as :class:`ridgeline.store.series.ScalarSeries` (ingest appends, readers take snapshots), but
only what was appended since the last flush is held in memory: at most :data:`FLUSH_POINTS` points, written out
as they reach it and at the end of every ingest pass. A snapshot is a read-only view of the file's mapping, so
resident memory grows with what readers look at, not with the size of the store.

Threads: one ingest thread appends and flushes; a flush writes the points before it publishes the new length,
and a reader reads the length first, then maps at least that many points (a fresh mapping when the old one is
shorter). Mappings already handed out stay valid: the file only grows, and an unlinked file stays mapped.

Each mapping keeps a file descriptor open, so only the :data:`MAPPED_SERIES` most recently read series keep
theirs; the others map again when next read.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from ridgeline.store.files import ColumnFile
from ridgeline.store.series import Restarts, ScalarSeries, ScalarSnapshot, restarts_within

FLUSH_POINTS = 1 << 16
MAPPED_SERIES = 128

COLUMNS = (("step", np.dtype("<i8")), ("wall_time", np.dtype("<f8")), ("value", np.dtype("<f8")))

Mapping3 = tuple[np.ndarray, np.ndarray, np.ndarray]


class _Mappings:
    """The mappings of the most recently read series (least recently used dropped first)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: OrderedDict[int, DiskScalarSeries] = OrderedDict()
        self._lock = threading.Lock()

    def touched(self, series: DiskScalarSeries) -> None:
        with self._lock:
            self._held[id(series)] = series
            self._held.move_to_end(id(series))
            while len(self._held) > self.limit:
                _, oldest = self._held.popitem(last=False)
                oldest._mapped = None

    def forget(self, series: DiskScalarSeries) -> None:
        with self._lock:
            self._held.pop(id(series), None)

    def __len__(self) -> int:
        return len(self._held)


MAPPINGS = _Mappings(MAPPED_SERIES)


class DiskScalarSeries(ScalarSeries):
    """Append-only (step, wall_time, value) columns in three files; see the module docstring.

    A :class:`ScalarSeries` to its users (ingest and the store's runs); none of its in-memory columns is used.
    """

    __slots__ = ("_columns", "_committed", "_map_lock", "_mapped", "_pending")

    def __init__(  # the in-memory columns of ScalarSeries.__init__ are deliberately not allocated
        self, base: Path, columns: tuple[ColumnFile, ColumnFile, ColumnFile] | None = None
    ) -> None:
        """``base``: the path the three column files are named after; ``columns``: those of a stored series."""
        if columns is None:
            columns = tuple(ColumnFile(base.with_suffix(f".{name}"), dtype) for name, dtype in COLUMNS)  # type: ignore[assignment]
        assert columns is not None
        self._columns = columns
        self._committed = columns[0].length
        self._pending = ScalarSeries()
        self._restarts: Restarts = ()
        self._mapped: Mapping3 | None = None
        self._map_lock = threading.Lock()

    @classmethod
    def stored(cls, columns: tuple[ColumnFile, ColumnFile, ColumnFile], restarts: Restarts) -> DiskScalarSeries:
        series = cls(columns[0].path, columns)
        series._restarts = restarts
        return series

    def __len__(self) -> int:
        return self._committed

    @property
    def columns(self) -> tuple[ColumnFile, ColumnFile, ColumnFile]:
        return self._columns

    @property
    def pending(self) -> int:
        """Points appended but not yet written (nor visible to readers)."""
        return len(self._pending)

    @property
    def capacity(self) -> int:
        return self._committed + self._pending.capacity

    @property
    def nbytes(self) -> int:
        """Bytes held in memory (the unwritten points); the mapped columns are the page cache's, not ours."""
        return self._pending.nbytes

    @property
    def restart_marks(self) -> Restarts:
        return restarts_within(self._restarts, self._committed)

    @property
    def all_restart_marks(self) -> Restarts:
        return self._restarts

    # --- writer thread ------------------------------------------------------------------------------------------
    def append(self, step: np.ndarray, wall_time: np.ndarray, value: np.ndarray) -> None:
        self._pending.append(step, wall_time, value)
        self._flush_when_full()

    def append_one(self, step: int, wall_time: float, value: float) -> None:
        self._pending.append_one(step, wall_time, value)
        self._flush_when_full()

    def _flush_when_full(self) -> None:
        """Write out a full buffer. Appending never fails: a write that does (a full disk) leaves the points
        pending, and the store's checkpoint at the end of the pass reports it. Raising here, in the middle of a
        record batch, would have ingest read the batch again and append its other series' points twice."""
        if len(self._pending) >= FLUSH_POINTS:
            with contextlib.suppress(OSError):
                self.flush()

    def mark_restart(self, step: int) -> None:
        self._restarts = (*self._restarts, (self._committed + len(self._pending), int(step)))

    def compact(self) -> None:
        """Nothing to trim: the columns are on disk (kept for the ScalarSeries interface)."""

    def flush(self) -> None:
        """Write the pending points to the column files, then publish them (OSError, e.g. a full disk, leaves
        them pending: nothing is lost, and the next flush writes them again at the same place)."""
        pending = self._pending.snapshot()
        if not len(pending):
            return
        committed = self._committed
        saved = [(column.length, column.crc) for column in self._columns]
        try:
            for column, data in zip(self._columns, (pending.step, pending.wall_time, pending.value), strict=True):
                column.append(data)
        except OSError:
            for column, (length, crc) in zip(self._columns, saved, strict=True):
                column.length, column.crc = length, crc  # written again from here by the next flush
            raise
        self._pending = ScalarSeries()
        self._committed = committed + len(pending)  # publish only once the data is in place

    # --- any thread ---------------------------------------------------------------------------------------------
    def snapshot(self) -> ScalarSnapshot:
        """The published points, as read-only views of the mapped files (O(1) when already mapped)."""
        n = self._committed  # read the length before the columns
        restarts = restarts_within(self._restarts, n)
        mapped = self._mapped
        if mapped is None or len(mapped[0]) < n:
            with self._map_lock:
                mapped = self._mapped
                if mapped is None or len(mapped[0]) < n:
                    mapped = self._mapped = tuple(column.map(n) for column in self._columns)  # type: ignore[assignment]
        assert mapped is not None
        MAPPINGS.touched(self)
        return ScalarSnapshot(mapped[0][:n], mapped[1][:n], mapped[2][:n], restarts)

    def release(self) -> None:
        """Drop this series' mapping (snapshots already taken keep theirs)."""
        self._mapped = None
        MAPPINGS.forget(self)
