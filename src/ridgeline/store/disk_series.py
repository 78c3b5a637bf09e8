"""A scalar series whose points live in column files, mapped or read from disk when asked for.

The same interface as :class:`ridgeline.store.series.ScalarSeries` (ingest appends, readers take snapshots), but
only what was appended since the last flush is held in memory: at most :data:`FLUSH_POINTS` points, written out
as they reach it and at the end of every ingest pass.

Two places a series' points are written, so that a run of many short series is a handful of files, not three
per series (creating files is what made a first pass over 10,000 series slow):

* **packed**: a short series (under :data:`FLUSH_POINTS` points) appends its points as *segments* to its run's
  three shared column files (:class:`PackedColumns`); a snapshot reads its segments (a few small reads);
* **own files**: once a series reaches :data:`FLUSH_POINTS` points it moves to three column files of its own
  (its packed segments copied once), appended to in place and mapped read-only: a snapshot is a view of the
  mapping, so resident memory grows with what readers look at, not with the size of the store.

Threads: one ingest thread appends and flushes; a flush writes the points before it publishes the series' new
state (one attribute: length, own columns, segments), and a reader reads that state once. Mappings already
handed out stay valid: the files only grow, and an unlinked file stays mapped. Each mapping keeps a file
descriptor open, so only the :data:`MAPPED_SERIES` most recently read series keep theirs.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from ridgeline.store.files import ColumnFile
from ridgeline.store.restarts import RestartLog, SeriesRestarts
from ridgeline.store.series import Restarts, ScalarSeries, ScalarSnapshot

FLUSH_POINTS = 1 << 16
MAPPED_SERIES = 128
MAX_SEGMENTS = 32  # a packed series written in more segments than this is written again as one

COLUMNS = (("step", np.dtype("<i8")), ("wall_time", np.dtype("<f8")), ("value", np.dtype("<f8")))

Mapping3 = tuple[np.ndarray, np.ndarray, np.ndarray]
Columns3 = tuple[ColumnFile, ColumnFile, ColumnFile]
Segments = tuple[tuple[int, int], ...]  # (first element, count) in a run's packed columns


def column_files(base: Path) -> Columns3:
    return tuple(ColumnFile(base.with_suffix(f".{name}"), dtype) for name, dtype in COLUMNS)  # type: ignore[return-value]


def append_columns(columns: Columns3, data: Mapping3) -> None:
    """Append to three columns together: when one write fails, none of them counts it (it is written again)."""
    saved = [(column.length, column.crc) for column in columns]
    try:
        for column, values in zip(columns, data, strict=True):
            column.append(values)
    except OSError:
        for column, (length, crc) in zip(columns, saved, strict=True):
            column.length, column.crc = length, crc
        raise


class PackedColumns:
    """One run's shared column files, holding the segments of its short series."""

    __slots__ = ("columns",)

    def __init__(self, columns: Columns3) -> None:
        self.columns = columns

    def append(self, data: Mapping3) -> int:
        """Write the points; returns the element they start at."""
        start = self.columns[0].length
        append_columns(self.columns, data)
        return start

    def read(self, segments: Segments) -> Mapping3:
        """The points of ``segments``, concatenated (read-only arrays)."""
        total = sum(count for _, count in segments)
        out = []
        for column in self.columns:
            array = np.empty(total, dtype=column.dtype)
            if total:
                fd = os.open(column.path, os.O_RDONLY)
                try:
                    into, size = 0, column.dtype.itemsize
                    for start, count in segments:
                        data = os.pread(fd, count * size, start * size)
                        array[into : into + count] = np.frombuffer(data, dtype=column.dtype)
                        into += count
                finally:
                    os.close(fd)
            array.flags.writeable = False
            out.append(array)
        return out[0], out[1], out[2]


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
    """Append-only (step, wall_time, value) columns on disk, packed or in files of its own (module docstring).

    A :class:`ScalarSeries` to its users (ingest and the store's runs); none of its in-memory columns is used.
    """

    __slots__ = ("_base", "_map_lock", "_mapped", "_packed", "_pending", "_state")

    def __init__(  # the in-memory columns of ScalarSeries.__init__ are deliberately not allocated
        self,
        base: str,
        packed: PackedColumns,
        *,
        columns: Columns3 | None = None,
        segments: Segments = (),
        restart_log: RestartLog | None = None,
        restarts: SeriesRestarts | None = None,
    ) -> None:
        """``base``: the path its own column files are named after (a str: a store holds many short series,
        and most never need the files); ``packed``: its run's shared columns;
        ``restart_log``: the run's START events; ``columns``/``segments``/``restarts``: those of a stored
        series (``restarts`` its view of the run's log)."""
        self._base = base
        self._packed = packed
        length = columns[0].length if columns is not None else sum(count for _, count in segments)
        self._state: tuple[int, Columns3 | None, Segments] = (length, columns, segments)
        self._pending = ScalarSeries()
        self._restarts = restarts if restarts is not None else SeriesRestarts(restart_log)
        self._mapped: Mapping3 | None = None
        self._map_lock = threading.Lock()

    def __len__(self) -> int:
        return self._state[0]

    @property
    def columns(self) -> Columns3 | None:
        """Its own column files, or None while it is packed."""
        return self._state[1]

    @property
    def segments(self) -> Segments:
        return self._state[2]

    @property
    def pending(self) -> int:
        """Points appended but not yet written (nor visible to readers)."""
        return len(self._pending)

    @property
    def capacity(self) -> int:
        return len(self) + self._pending.capacity

    @property
    def nbytes(self) -> int:
        """Bytes held in memory (the unwritten points); the mapped columns are the page cache's, not ours."""
        return self._pending.nbytes

    @property
    def restart_marks(self) -> Restarts:
        return self._restarts.within(len(self))

    @property
    def restarts(self) -> SeriesRestarts:
        """Its view of the run's restart log (kept in the manifest)."""
        return self._restarts

    # --- writer thread ------------------------------------------------------------------------------------------
    def append(self, step: np.ndarray, wall_time: np.ndarray, value: np.ndarray) -> None:
        self._restarts.fold(len(self) + len(self._pending))
        self._pending.append(step, wall_time, value)
        self._flush_when_full()

    def append_one(self, step: int, wall_time: float, value: float) -> None:
        self._restarts.fold(len(self) + len(self._pending))
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
        self._restarts.log.append(int(step))

    def compact(self) -> None:
        """Nothing to trim: the columns are on disk (kept for the ScalarSeries interface)."""

    def reserve(self, capacity: int) -> None:
        """Nothing to presize: ingest sizes in-memory series from the file it reads, but here at most
        FLUSH_POINTS points are held at once (kept for the ScalarSeries interface)."""

    def flush(self) -> None:
        """Write the pending points, then publish them: packed while the series is short, in its own files once
        it reaches FLUSH_POINTS. OSError (a full disk) leaves them pending: nothing is lost, and the next flush
        writes them again at the same place."""
        pending = self._pending.snapshot()
        if not len(pending):
            return
        length, columns, segments = self._state
        data = (pending.step, pending.wall_time, pending.value)
        state: tuple[int, Columns3 | None, Segments]
        if columns is None and length + len(pending) < FLUSH_POINTS:
            if len(segments) >= MAX_SEGMENTS:  # a live short series: one segment a pass; read it as one again
                old = self._packed.read(segments)
                data = tuple(np.concatenate([a, b]) for a, b in zip(old, data, strict=True))  # type: ignore[assignment]
                segments, length = (), 0
            start = self._packed.append(data)
            state = (length + len(data[0]), None, (*segments, (start, len(data[0]))))
        else:
            if columns is None:  # it grew long: move it to files of its own, its packed points first
                columns = column_files(Path(self._base))
                for column in columns:
                    column.path.unlink(missing_ok=True)
                append_columns(columns, self._packed.read(segments))
            append_columns(columns, data)
            state = (length + len(pending), columns, ())
        self._pending = ScalarSeries()
        self._state = state  # publish only once the data is in place

    # --- any thread ---------------------------------------------------------------------------------------------
    def snapshot(self) -> ScalarSnapshot:
        """The published points: read-only views of the mapped files (O(1) when already mapped), or the
        packed segments read."""
        n, columns, segments = self._state  # one read: the length with its columns
        restarts = self._restarts.within(n)
        if columns is None:
            step, wall_time, value = self._packed.read(segments)
            return ScalarSnapshot(step, wall_time, value, restarts)
        mapped = self._mapped
        if mapped is None or len(mapped[0]) < n:
            with self._map_lock:
                mapped = self._mapped
                if mapped is None or len(mapped[0]) < n:
                    mapped = self._mapped = tuple(column.map(n) for column in columns)  # type: ignore[assignment]
        assert mapped is not None
        MAPPINGS.touched(self)
        return ScalarSnapshot(mapped[0][:n], mapped[1][:n], mapped[2][:n], restarts)

    def release(self) -> None:
        """Drop this series' mapping (snapshots already taken keep theirs)."""
        self._mapped = None
        MAPPINGS.forget(self)
