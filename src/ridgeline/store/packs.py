"""Packed segments: how a short scalar series' points are encoded, and the store's pack files that hold them.

A *segment* is one self-describing encoded block of points (:func:`encode_segment`): a header, the steps and the
wall times (as the bits of their float64) encoded by :mod:`ridgeline.store.encoding` (runs of constant stride and
int32 deltas, a few bytes per point or none), then the values in their dtype (:func:`value_dtype`: float32 while
every value is exactly a float32, float64 otherwise). A *pack* (:class:`Packs`) is one file an ingest pass wrote
for every run at once, each run's segments end to end (see :mod:`ridgeline.store.disk_series`).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ridgeline.store.encoding import Column, encode_many
from ridgeline.store.files import FILE_MODE, write_all

BYTES = np.dtype("u1")
FLOAT32, FLOAT64 = np.dtype("<f4"), np.dtype("<f8")
SEGMENT_HEADER = np.dtype([("count", "<i8"), ("itemsize", "<i8"), ("step", "<i8"), ("wall_time", "<i8")])

Points = tuple[np.ndarray, np.ndarray, np.ndarray]
Segment = tuple[int, int, int, int]  # (pack number, byte offset, byte length, points): where in the store's packs
PackRange = tuple[int, int, int, int]  # (pack number, byte offset, byte length, CRC32C): one run's bytes of a pack
Segments = tuple[Segment, ...]


def value_dtype(values: np.ndarray, wide: bool = False) -> np.dtype[Any]:
    """float32 when every value is exactly a float32 (NaN payloads included), else float64."""
    if wide:
        return FLOAT64
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = values.astype(FLOAT32)
    exact = np.array_equal(narrow.astype(FLOAT64).view(np.int64), np.ascontiguousarray(values, FLOAT64).view(np.int64))
    return FLOAT32 if exact else FLOAT64


def wall_bits(wall_time: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(wall_time, dtype=FLOAT64).view(np.int64)


def value_dtypes(values: list[np.ndarray]) -> list[np.dtype[Any]]:
    """``[value_dtype(v) for v in values]``, for many short columns at once (one pass of numpy over them all)."""
    if not values:
        return []
    lengths = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
    every = np.ascontiguousarray(np.concatenate([np.asarray(v, FLOAT64) for v in values]), FLOAT64)
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = every.astype(FLOAT32)
    inexact = (narrow.astype(FLOAT64).view(np.int64) != every.view(np.int64)).astype(np.int32)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    if len(inexact):
        counts = np.add.reduceat(inexact, np.minimum(starts, len(inexact) - 1))
        counts[lengths == 0] = 0
    else:
        counts = np.zeros(len(values), np.int64)
    return [FLOAT64 if count else FLOAT32 for count in counts.tolist()]


def _segment_core() -> Any:
    """The compiled segment encoder (``_segment_core.c``), or None where it was not built: then segments are
    encoded by numpy (:func:`encode_segments`: the same bytes)."""
    try:
        from ridgeline.store import _segment_core as core  # type: ignore[attr-defined]
    except ImportError:
        return None
    return core


SEGMENT_CORE: Any = _segment_core()  # tests set it to None to take the numpy path
Pieces = tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]  # a column's arrays as appended, per column
Encoded = tuple[bytes, int, bool, int, int]  # (segment, points, fell, first step, last step): see encode_pending


def encode_pending(series: list[tuple[Pieces, int]]) -> list[Encoded]:
    """Each series' packed segment from its points as they were appended (int64 steps, float64 wall times and
    values, in pieces), and what its steps from point ``skip`` on say: whether one is not above the one before
    it (``fell``), the first and the last. Compiled, one call a series and no join of its pieces (joining them
    and encoding the pass's series in numpy was most of a cold build's writing); numpy otherwise."""
    core = SEGMENT_CORE
    if core is not None:
        return [_compiled(core, pieces, skip) for pieces, skip in series]
    points = [_joined(pieces) for pieces, _ in series]
    facts = steps_facts([one[0][skip:] for one, (_, skip) in zip(points, series, strict=True)])
    return [
        (data, len(one[0]), fell, first, last)
        for data, one, (fell, first, last) in zip(encode_segments(points), points, facts, strict=True)
    ]


def _compiled(core: Any, pieces: Pieces, skip: int) -> Encoded:
    try:
        return core.segment(*pieces, skip)  # type: ignore[no-any-return]
    except TypeError:  # a strided or foreign array among the pieces: as contiguous int64 / float64 copies
        steps, walls, values = pieces
        return core.segment(  # type: ignore[no-any-return]
            [np.ascontiguousarray(array, np.int64) for array in steps],
            [np.ascontiguousarray(array, FLOAT64) for array in walls],
            [np.ascontiguousarray(array, FLOAT64) for array in values],
            skip,
        )


def _joined(pieces: Pieces) -> Points:
    return tuple(column[0] if len(column) == 1 else np.concatenate(column) for column in pieces)  # type: ignore[return-value]


def steps_facts(steps: list[np.ndarray]) -> list[tuple[bool, int, int]]:
    """For each of ``steps`` (none empty): whether a step is not above the one before it, its first and its last
    (one numpy pass for all: per series, it was a tenth of writing a pass of 10,000 short series)."""
    if not steps:
        return []
    lengths = np.fromiter((len(one) for one in steps), dtype=np.int64, count=len(steps))
    every = np.concatenate([np.asarray(one, np.int64) for one in steps])
    ends = np.cumsum(lengths)
    starts = ends - lengths
    falls = np.empty(len(every), dtype=bool)  # falls[i]: point i is not above point i - 1 of its series
    falls[0] = False
    np.less_equal(every[1:], every[:-1], out=falls[1:])  # as booleans: an int64 column took 2 s at 100M points
    falls[starts] = False
    fell = np.logical_or.reduceat(falls, starts)
    return list(zip(fell.tolist(), every[starts].tolist(), every[ends - 1].tolist(), strict=True))


def encode_segment(points: Points, dtype: np.dtype[Any]) -> bytes:
    """One packed segment: header, encoded steps, encoded wall times, values (8-byte aligned)."""
    return encode_segments([points], [dtype])[0]


def encode_segments(points: list[Points], dtypes: list[np.dtype[Any]] | None = None) -> list[bytes]:
    """Packed segments of many series at once (see :func:`encode_segment`); ``dtypes`` by default each series'
    :func:`value_dtype` (each segment has its own). Encoded :data:`BATCH_POINTS` points at a time, so that the
    temporary arrays stay small (and in cache) whatever the pass wrote."""
    out: list[bytes] = []
    begin = total = 0
    for end, (step, _, _) in enumerate(points, 1):
        total += len(step)
        if total >= BATCH_POINTS or end == len(points):
            out += _encode_batch(points[begin:end], None if dtypes is None else dtypes[begin:end])
            begin, total = end, 0
    return out


def _encode_batch(points: list[Points], dtypes: list[np.dtype[Any]] | None) -> list[bytes]:
    if dtypes is None:
        dtypes = value_dtypes([value for _, _, value in points])
    steps = encode_many([np.asarray(step, np.int64) for step, _, _ in points])
    walls = encode_many([wall_bits(wall_time) for _, wall_time, _ in points])
    out = []
    for (step, _, value), dtype, encoded_steps, encoded_walls in zip(points, dtypes, steps, walls, strict=True):
        values = np.ascontiguousarray(value, dtype=dtype).tobytes()
        header = _SEGMENT_HEADER.pack(len(step), dtype.itemsize, len(encoded_steps), len(encoded_walls))
        out.append(header + encoded_steps + encoded_walls + values + b"\0" * (-len(values) % 8))
    return out


# Points encoded at once by encode_segments: its temporary arrays (about 2.5 MB) stay in the CPU's caches. With
# 1 << 19 (40 MB of them) encoding a pass of 10,000 series of 100 points took 1.6-1.9x as long (1 << 15 and 1 << 16
# were fastest, 1 << 13 as slow as 1 << 17: the numpy calls per batch begin to count).
BATCH_POINTS = 1 << 15
_SEGMENT_HEADER = struct.Struct("<qqqq")  # SEGMENT_HEADER's layout


def decode_segment(data: bytes) -> Points:
    header = np.frombuffer(data, SEGMENT_HEADER, 1)[0]
    count, itemsize, steps, walls = (int(header[name]) for name in SEGMENT_HEADER.names)  # type: ignore[union-attr]
    if itemsize not in (4, 8) or count < 0:
        raise ValueError("bad segment header")
    raw = np.frombuffer(data, BYTES)
    at = SEGMENT_HEADER.itemsize
    step = Column(raw[at : at + steps]).decode()
    wall_time = Column(raw[at + steps : at + steps + walls]).decode().view(np.float64)
    value = np.frombuffer(data, FLOAT32 if itemsize == 4 else FLOAT64, count, at + steps + walls)
    if len(step) != count or len(wall_time) != count:
        raise ValueError("segment columns disagree")
    return step, wall_time, value


class Packs:
    """The store's pack files, ``packs/<number, 16 hex digits>.segments``: the segments of the short series of
    every run one pass wrote, each run's end to end, written once (whole, in one write) and never again; a
    pack no run's manifest refers to any more is deleted (:meth:`ridgeline.store.disk.DiskStore.checkpoint`)."""

    __slots__ = ("_paths", "directory", "next")

    def __init__(self, directory: Path, next_number: int = 0) -> None:
        self.directory = directory
        self.next = next_number
        self._paths: dict[int, Path] = {}

    def path(self, number: int) -> Path:
        path = self._paths.get(number)
        if path is None:
            path = self._paths[number] = self.directory / pack_name(number)
        return path

    def write(self, parts: Sequence[bytes]) -> int:
        """A new pack holding ``parts`` end to end; returns its number. OSError (a full disk) leaves no pack
        behind. The parts go to the kernel as they are (``pwritev``, :data:`IOV_MAX` at a time): joining a pass's
        segments first copied every byte of it twice (a run's, then the pack's) and doubled its peak memory."""
        while True:
            number, self.next = self.next, self.next + 1
            try:
                fd = os.open(self.path(number), os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
            except FileExistsError:
                continue
            break
        try:
            try:
                write_parts(fd, parts)
            finally:
                os.close(fd)
        except OSError:
            self.path(number).unlink(missing_ok=True)
            raise
        return number

    def read(self, segments: Segments) -> Points:
        """The points of ``segments``, concatenated (read-only arrays; float64 values if any segment has them)."""
        parts: list[Points] = []
        fds: dict[int, int] = {}
        try:
            for pack, offset, length, _ in segments:
                fd = fds.get(pack)
                if fd is None:
                    fd = fds[pack] = os.open(self.path(pack), os.O_RDONLY)
                data = os.pread(fd, length, offset)
                if len(data) != length:
                    raise OSError(f"{self.path(pack)} is shorter than its manifest says")
                parts.append(decode_segment(data))
        finally:
            for fd in fds.values():
                os.close(fd)
        dtype = FLOAT64 if any(part[2].dtype == FLOAT64 for part in parts) else FLOAT32
        out = (
            np.concatenate([part[0] for part in parts]) if parts else np.zeros(0, np.int64),
            np.concatenate([part[1] for part in parts]) if parts else np.zeros(0, np.float64),
            np.concatenate([part[2] for part in parts]).astype(dtype) if parts else np.zeros(0, dtype),
        )
        for array in out:
            array.flags.writeable = False
        return out


def pack_name(number: int) -> str:
    return f"{number:016x}.segments"


IOV_MAX = 1024  # buffers one pwritev takes (Linux's and macOS's UIO_MAXIOV)


def write_parts(fd: int, parts: Sequence[bytes]) -> None:
    """Write ``parts`` end to end from offset 0 of ``fd``, whatever the kernel takes per call."""
    if not hasattr(os, "pwritev"):  # Windows
        write_all(fd, b"".join(parts), 0)
        return
    offset, at = 0, 0
    pending: list[memoryview] = []
    while at < len(parts) or pending:
        while len(pending) < IOV_MAX and at < len(parts):
            if parts[at]:
                pending.append(memoryview(parts[at]))
            at += 1
        if not pending:
            break
        written = os.pwritev(fd, pending, offset)
        offset += written
        done = 0  # the buffers that went out whole; the rest of a cut one stays
        while done < len(pending) and written >= len(pending[done]):
            written -= len(pending[done])
            done += 1
        del pending[:done]
        if written:
            pending[0] = pending[0][written:]
