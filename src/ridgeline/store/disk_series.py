"""A scalar series whose points live in column files, mapped or read from disk when asked for.

The same interface as :class:`ridgeline.store.series.ScalarSeries` (ingest appends, readers take snapshots), but
only what was appended since the last flush is held in memory: at most :data:`FLUSH_POINTS` points, written out
as they reach it and at the end of every ingest pass.

**Encodings** (:mod:`ridgeline.store.encoding`, :mod:`ridgeline.store.packs`): steps and wall times (as the
bits of their float64) are written as runs of constant stride and int32 deltas, a few bytes per point or none;
values keep their dtype: float32 while every value of the series is exactly a float32 (every ``simple_value``
is), float64 from the first that is not (the column is then widened once). A typical scalar series costs 8 bytes
a point: 4 of value, 4 of wall time, nothing for steps.

Two places a series' points are written, so that a run of many short series is a handful of files, not four
per series (creating files is what made a first pass over 10,000 series slow):

* **packed**: a short series (under :data:`FLUSH_POINTS` points) writes its points as *segments* into the
  store's packs (:class:`~ridgeline.store.packs.Packs`: one file per pass for every run), each segment one
  self-describing encoded block; a snapshot reads and decodes its segments (a few small reads);
* **own files** (:mod:`ridgeline.store.own_files`): once a series reaches :data:`FLUSH_POINTS` points it moves
  to files of its own (its packed segments copied once): ``.step`` and ``.wall_time`` (encoded chunks),
  ``.value4`` or ``.value8`` (raw little-endian float32/float64, mapped read-only: a snapshot's values are a
  view of the mapping, zero-copy) and ``.lod`` (its level-of-detail blocks, :mod:`ridgeline.store.lod`).

Threads: one ingest thread appends and flushes; a flush writes the points before it publishes the series' new
state (one attribute), and a reader reads that state once. Mappings already handed out stay valid: the files
only grow, and an unlinked file stays mapped. Each mapping keeps file descriptors open, so only the
:data:`~ridgeline.store.own_files.MAPPED_SERIES` most recently read series keep theirs.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ridgeline.format.records import crc32c
from ridgeline.store.encoding import Column
from ridgeline.store.files import ColumnFile
from ridgeline.store.lod import BLOCK_POINTS, IndexedScalars, Pyramid
from ridgeline.store.own_files import MAP_LOCK, MAPPINGS, Mapped, OwnFiles
from ridgeline.store.packs import (
    FLOAT32,
    FLOAT64,
    PackRange,
    Packs,
    Pieces,
    Points,
    Segments,
    encode_pending,
    value_dtype,
)
from ridgeline.store.restarts import RestartLog, SeriesRestarts
from ridgeline.store.series import Restarts, ScalarSeries, ScalarSnapshot

FLUSH_POINTS = 1 << 16
MAX_SEGMENTS = 32  # a packed series written in more segments than this is written again as one

State = tuple[int, OwnFiles | None, Segments]


class Pending:
    """Points appended to a disk series and not yet written: the arrays as appended (copies), joined when staged.
    Lighter than a :class:`ScalarSeries` (a series of 100 points appended once costs one list entry)."""

    __slots__ = ("_chunks", "_ones", "count")

    def __init__(self) -> None:
        self._chunks: list[Points] = []
        self._ones: tuple[list[int], list[float], list[float]] | None = None
        self.count = 0

    def append(self, step: np.ndarray, wall_time: np.ndarray, value: np.ndarray) -> None:
        steps, wall_times, values = _kept(step, np.int64), _kept(wall_time, np.float64), _kept(value, np.float64)
        count = steps.shape[0] if steps.ndim == 1 else -1
        if count < 0 or wall_times.shape != (count,) or values.shape != (count,):
            raise ValueError(
                f"step, wall_time and value must be 1-D and equally long; got shapes "
                f"{steps.shape}, {wall_times.shape}, {values.shape}"
            )
        if count:
            self._join_ones()
            self._chunks.append((steps, wall_times, values))
            self.count += count

    def append_one(self, step: int, wall_time: float, value: float) -> None:
        if self._ones is None:
            self._ones = ([], [], [])
        self._ones[0].append(int(step))
        self._ones[1].append(float(wall_time))
        self._ones[2].append(float(value))
        self.count += 1

    def _join_ones(self) -> None:
        if self._ones is not None:
            steps, walls, values = self._ones
            self._chunks.append((np.array(steps, np.int64), np.array(walls, np.float64), np.array(values, np.float64)))
            self._ones = None

    def pieces(self) -> Pieces:
        """Every pending point, in the arrays they were appended as (one list per column)."""
        self._join_ones()
        return (
            [chunk[0] for chunk in self._chunks],
            [chunk[1] for chunk in self._chunks],
            [chunk[2] for chunk in self._chunks],
        )

    def points(self) -> Points:
        """Every pending point, as one array per column."""
        self._join_ones()
        if len(self._chunks) != 1:
            joined: Points = tuple(  # type: ignore[assignment]
                np.concatenate([chunk[column] for chunk in self._chunks]) if self._chunks else _EMPTY[column]
                for column in range(3)
            )
            self._chunks = [joined] if self.count else []
        return self._chunks[0] if self._chunks else _EMPTY


def _kept(column: Any, dtype: Any) -> np.ndarray:
    """``column`` as an array of ``dtype`` that nobody can change under us: a read-only array as it is (ingest's
    parsed columns are views of immutable bytes: copying them was a third of appending), anything else copied."""
    array = np.asarray(column, dtype=dtype)
    return array if not array.flags.writeable else np.array(array, dtype=dtype)


_EMPTY: Points = (np.zeros(0, np.int64), np.zeros(0, np.float64), np.zeros(0, np.float64))


@dataclass(frozen=True, slots=True, eq=False)
class Staged:
    """A short series' pending points as one encoded segment, not yet written (:func:`stage_all`)."""

    series: DiskScalarSeries
    data: bytes
    length: int  # the series' points once published
    segments: Segments  # its segments before this one
    points: int  # the points of this segment
    increasing: bool  # whether its steps still strictly increase once published
    last_step: int  # its last step once published

    def publish(self, pack: int, start: int) -> None:
        """The segment is in pack ``pack`` at byte ``start``: the series now shows its points."""
        segment = (pack, start, len(self.data), self.points)
        series = self.series
        series._increasing, series._last_step = self.increasing, self.last_step
        series._pending = None
        series._state = (self.length, None, (*self.segments, segment))  # published once the data is in place


@dataclass(frozen=True, slots=True, eq=False)
class _Short:
    """A short series' points to be encoded as one segment (with every other's: :func:`stage_all`)."""

    series: DiskScalarSeries
    pieces: Pieces  # the points, in the arrays they were appended as
    length: int  # its published points that stay (0 when it is written again as one segment)
    segments: Segments
    skip: int  # the points of ``pieces`` published before (when it is written again as one): not new steps


def stage_all(series: list[DiskScalarSeries]) -> list[Staged]:
    """Stage every one of ``series`` (:meth:`DiskScalarSeries.stage`): the short ones' segments encoded, and
    what their new steps say (increasing, last), by :func:`~ridgeline.store.packs.encode_pending`."""
    short = [one for item in series if (one := item._prepare()) is not None]
    staged = []
    for one, (data, count, fell, first, last) in zip(
        short, encode_pending([(one.pieces, one.skip) for one in short]), strict=True
    ):
        owner = one.series
        rising = owner._increasing and not fell and (owner._last_step is None or first > owner._last_step)
        staged.append(Staged(owner, data, one.length + count, one.segments, count, rising, last))
    return staged


def write_staged(packs: Packs, groups: list[list[Staged]]) -> list[PackRange | None]:
    """Write the staged segments of ``groups`` (one group a run) end to end into one new pack, then publish them;
    returns each group's range of the pack (None for an empty group). OSError: nothing published."""
    sizes = [sum(len(one.data) for one in group) for group in groups]
    if not any(sizes):
        return [None] * len(groups)
    number = packs.write([one.data for group in groups for one in group])
    ranges: list[PackRange | None] = []
    start = 0
    for group, size in zip(groups, sizes, strict=True):
        if not size:
            ranges.append(None)
            continue
        crc, at = 0, start
        for one in group:
            crc = crc32c(one.data, crc)
            one.publish(number, at)
            at += len(one.data)
        ranges.append((number, start, size, crc))
        start += size
    return ranges


class DiskScalarSeries(ScalarSeries):
    """Append-only (step, wall_time, value) columns on disk, packed or in files of its own (module docstring).

    A :class:`ScalarSeries` to its users (ingest and the store's runs); none of its in-memory columns is used.
    """

    __slots__ = ("_base", "_increasing", "_last_step", "_map_lock", "_mapped", "_packed", "_pending", "_state")

    def __init__(  # the in-memory columns of ScalarSeries.__init__ are deliberately not allocated
        self,
        base: str,
        packed: Packs,
        *,
        own: OwnFiles | None = None,
        segments: Segments = (),
        restart_log: RestartLog | None = None,
        restarts: SeriesRestarts | None = None,
        increasing: bool = True,
        last_step: int | None = None,
    ) -> None:
        """``base``: the path its own files are named after (a str: a store holds many short series, and most
        never need the files); ``packed``: its run's shared file; ``restart_log``: the run's START events;
        ``own``/``segments``/``restarts``/``increasing``/``last_step``: those of a stored series (``restarts``
        its view of the run's log; ``increasing``: whether its steps strictly increase, point after point)."""
        self._base = base
        self._packed = packed
        length = own.value.length if own is not None else sum(segment[3] for segment in segments)
        self._state: State = (length, own, segments)
        self._pending: Pending | None = None
        self._restarts = restarts if restarts is not None else SeriesRestarts(restart_log)
        self._increasing = increasing
        self._last_step = last_step
        self._mapped: Mapped | None = None
        self._map_lock = MAP_LOCK

    def __len__(self) -> int:
        return self._state[0]

    @property
    def own(self) -> OwnFiles | None:
        """Its own files, or None while it is packed."""
        return self._state[1]

    @property
    def segments(self) -> Segments:
        return self._state[2]

    @property
    def increasing(self) -> bool:
        """Whether its written steps strictly increase (then only a restart can hide a point)."""
        return self._increasing

    @property
    def last_step(self) -> int | None:
        return self._last_step

    @property
    def pending(self) -> int:
        """Points appended but not yet written (nor visible to readers)."""
        return 0 if self._pending is None else self._pending.count

    @property
    def capacity(self) -> int:
        return len(self) + self.pending

    @property
    def nbytes(self) -> int:
        """Bytes held in memory (the unwritten points); the mapped columns are the page cache's, not ours."""
        return 24 * self.pending

    @property
    def restart_marks(self) -> Restarts:
        return self._restarts.within(len(self))

    @property
    def restarts(self) -> SeriesRestarts:
        """Its view of the run's restart log (kept in the manifest)."""
        return self._restarts

    # --- writer thread ------------------------------------------------------------------------------------------
    def append(self, step: np.ndarray, wall_time: np.ndarray, value: np.ndarray) -> None:
        self._restarts.fold(len(self) + self.pending)
        if self._pending is None:
            self._pending = Pending()
        self._pending.append(step, wall_time, value)
        self._flush_when_full()

    def append_one(self, step: int, wall_time: float, value: float) -> None:
        self._restarts.fold(len(self) + self.pending)
        if self._pending is None:
            self._pending = Pending()
        self._pending.append_one(step, wall_time, value)
        self._flush_when_full()

    def _flush_when_full(self) -> None:
        """Write out a full buffer. Appending never fails: a write that does (a full disk) leaves the points
        pending, and the store's checkpoint at the end of the pass reports it. Raising here, in the middle of a
        record batch, would have ingest read the batch again and append its other series' points twice."""
        if self.pending >= FLUSH_POINTS:
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
        staged = self.stage()
        if staged is not None:
            write_staged(self._packed, [[staged]])

    def stage(self) -> Staged | None:
        """Flush a long series (its own files, written and published here); for a short one, the segment its
        pending points make, to be appended to the packed file by the caller (one write for all of a run's
        short series) and then published with :meth:`Staged.publish`. None when there is nothing to stage."""
        staged = stage_all([self])
        return staged[0] if staged else None

    def _prepare(self) -> _Short | None:
        """What :meth:`stage` needs: a long series is written and published here (None); a short one's points
        to encode are returned (None when nothing is pending)."""
        if not self.pending:
            return None
        assert self._pending is not None
        length, own, segments = self._state
        if own is None and length + self._pending.count < FLUSH_POINTS:
            steps, walls, values = self._pending.pieces()
            if len(segments) >= MAX_SEGMENTS:  # a live short series: one segment a pass; read it as one again
                old_steps, old_walls, old_values = self._packed.read(segments)
                pieces: Pieces = ([old_steps, *steps], [old_walls, *walls], [old_values.astype(FLOAT64), *values])
                return _Short(self, pieces, 0, (), len(old_steps))
            return _Short(self, (steps, walls, values), length, segments, 0)
        data = self._pending.points()
        count = len(data[0])
        retired: ColumnFile | None = None
        if own is None:  # it grew long: move it to files of its own, its packed points first
            old = self._packed.read(segments)
            joined: Points = tuple(np.concatenate([a, b]) for a, b in zip(old, data, strict=True))  # type: ignore[assignment]
            own = OwnFiles.create(Path(self._base), value_dtype(joined[2], old[2].dtype == FLOAT64))
            own.append(joined, 0)
        else:
            if own.value.dtype == FLOAT32 and value_dtype(data[2]) == FLOAT64:
                retired, own = own.value, own.widened()
            own.append(data, length)
        self._published((length + count, own, ()), data[0])
        if retired is not None:
            retired.path.unlink(missing_ok=True)  # readers' mappings of it stay valid
        return None

    def _published(self, state: State, steps: np.ndarray) -> None:
        self._note_steps(steps)
        self._pending = None
        self._state = state  # publish only once the data is in place

    def _note_steps(self, step: np.ndarray) -> None:
        if self._increasing and len(step):
            after_last = self._last_step is None or int(step[0]) > self._last_step
            self._increasing = after_last and bool((step[1:] > step[:-1]).all())
        if len(step):
            self._last_step = int(step[-1])

    # --- any thread ---------------------------------------------------------------------------------------------
    def snapshot(self) -> ScalarSnapshot:
        """The published points: values a read-only view of the mapped file (zero-copy), steps and wall times
        decoded (arange for a constant stride, a cumulative sum of deltas); or the packed segments read."""
        n, own, segments = self._state  # one read: the length with its files
        restarts = self._restarts.within(n)
        if own is None:
            step, wall_time, value = self._packed.read(segments)
            return ScalarSnapshot(step, wall_time, value, restarts)
        mapped = self._map(n, own)
        step, wall_time = mapped.step.decode(0, n), mapped.wall_time.decode(0, n).view(np.float64)
        step.flags.writeable = wall_time.flags.writeable = False
        return ScalarSnapshot(step, wall_time, mapped.value[:n], restarts)

    def indexed(self) -> IndexedScalars | None:
        """The series as its index offers it (:class:`~ridgeline.store.lod.IndexedScalars`): only for a series
        in files of its own whose every point is visible; None otherwise (read a snapshot instead)."""
        n, own, _ = self._state
        if own is None or not self._increasing or n == 0:
            return None
        mapped = self._map(n, own)
        marks = [(count, start) for count, start in self._restarts.within(n) if 0 < count <= n]
        if marks:  # a START after point c hides the points before it at steps >= its step
            before = mapped.step.gather(np.array([count - 1 for count, _ in marks], dtype=np.int64))
            if any(int(step) >= start for step, (_, start) in zip(before.tolist(), marks, strict=True)):
                return None
        return IndexedScalars(mapped.value[:n], mapped.pyramid.within(n), mapped.step, mapped.wall_time)

    def _map(self, n: int, own: OwnFiles) -> Mapped:
        mapped = self._mapped
        if mapped is None or mapped.length < n or mapped.value.dtype != own.value.dtype:
            with self._map_lock:
                mapped = self._mapped
                if mapped is None or mapped.length < n or mapped.value.dtype != own.value.dtype:
                    mapped = self._mapped = Mapped(
                        n,
                        own.value.map(n),
                        Column(own.step.map(own.step.length)),
                        Column(own.wall_time.map(own.wall_time.length)),
                        Pyramid.over(own.lod.map(n // BLOCK_POINTS)),
                    )
        MAPPINGS.touched(self)
        return mapped

    def release(self) -> None:
        """Drop this series' mapping (snapshots already taken keep theirs)."""
        self._mapped = None
        MAPPINGS.forget(self)
