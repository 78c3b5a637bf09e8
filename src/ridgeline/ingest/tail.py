"""Reading one event file incrementally: from where the last pass stopped to its current end.

Each pass reads the new bytes in chunks, hands them to :func:`ridgeline.ingest.fastpath.parse_records`, decodes
the records the fast path left over, and appends everything to the run, in record order. A record cut short at
the end is left for the next pass; corrupt records are skipped and reported with their byte offset; the rest of
the file is still read. A file that shrank (rewritten or truncated) cannot be continued: the pass says so and
the caller re-reads its run from scratch.

Memory stays bounded whatever the file holds (the rules are :mod:`ridgeline.ingest.fastpath`'s; this module
applies them across chunks):

- a record longer than a chunk is read whole when it ends within the file and is at most
  ``WHOLE_RECORD_BYTES``; a longer one has its data CRC checked in windows first, and is read only if intact
  (a damaged one is reported and skipped without being held);
- a damaged span longer than a chunk (a bad length CRC, or a length claiming past the end of the file) is
  searched for where the records resume in ``WINDOW_BYTES`` windows, never held whole. A bad length CRC is
  reported as soon as it is met, even while no intact record follows it yet; the search's progress is kept in
  the :class:`FileTail`, so the next pass looks only at what the file gained;
- scalar series are sized from the file: when a series must grow, it grows to the points the rest of the file
  will bring at the rate seen so far (plus 5 %), so a large file is appended without copies of its columns.
"""

from __future__ import annotations

import contextlib
import importlib
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ridgeline.format import records
from ridgeline.ingest.decode import DecodedEvent, EventDecoder
from ridgeline.ingest.discovery import FileSystem
from ridgeline.ingest.fastpath import (
    DATA_CRC,
    FOUND,
    LENGTH_CRC,
    PAST_END,
    UNDECIDED,
    ParsedRecords,
    parse_records,
    resume_point,
)
from ridgeline.ingest.gzip_source import taken_problems
from ridgeline.store.base import BlobRef, Problem
from ridgeline.store.run import RunData

if TYPE_CHECKING:
    from ridgeline.ingest.ahead import FileJob

CHUNK_BYTES = 1 << 20  # small chunks keep the transient buffers (several times a chunk) well under the data
WINDOW_BYTES = 1 << 20  # what a resync over a long damaged span reads at a time
WHOLE_RECORD_BYTES = 64 << 20  # a longer record's data CRC is checked in windows before it is read whole
PRESIZE_MARGIN = 1.05
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")


def _huge_page_switch() -> Callable[[bool], bool] | None:
    """numpy's own switch for its huge-page advice (numpy 2: numpy._core; 1.x: numpy.core), if it has one."""
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        switch: Callable[[bool], bool] | None = getattr(module, "_set_madvise_hugepage", None)
        if switch is not None:
            return switch
    return None


_set_madvise_hugepage = _huge_page_switch()


@dataclass
class FileTail:
    """Where reading of one file stands."""

    path: str
    offset: int = 0  # the next byte to read: always a record boundary (or a resync point)
    shrank: bool = False
    fingerprint: int | None = None  # CRC of the bytes before offset, taken when cached
    # A damaged span at offset whose resume point is not written yet: the positions before this one were ruled
    # out by an earlier pass (0: none).
    resync_from: int = 0


@dataclass
class PassResult:
    problems: list[Problem] = field(default_factory=list)
    records: int = 0
    # The file's bytes from 0 to where reading stopped, when this pass read them in one piece (a small file read
    # at once): what the caller fingerprints, without reading the file again.
    whole: bytes | None = None


def read_new(
    tail: FileTail,
    fs: FileSystem,
    run: RunData,
    decoder: EventDecoder,
    *,
    check_crc: bool = True,
    ahead: FileJob | None = None,
) -> PassResult:
    """Append what was written to ``tail.path`` since the last pass to ``run``.

    ``ahead``: the file read and parsed from its start by a worker thread (:mod:`ridgeline.ingest.ahead`); its
    chunks are applied first, then the rest is read here. Used only while nothing of the file was read yet.
    """
    result = PassResult()
    try:
        size = fs.size(tail.path)
    except OSError as error:
        result.problems.append(Problem(tail.path, None, f"cannot be read: {error}"))
        return result
    result.problems.extend(Problem(tail.path, offset, reason) for offset, reason in taken_problems(fs, tail.path))
    if size < tail.offset:
        tail.shrank = True
        result.problems.append(Problem(tail.path, None, f"shrank from {tail.offset} to {size} bytes; run re-read"))
        return result
    sizing = _Sizing(size, tail.offset)
    try:
        if ahead is not None and tail.offset == 0 and ahead.size <= size:
            for chunk in ahead.chunks():
                sizing.reserve(run, chunk.parsed)
                result.records += apply_records(
                    chunk.parsed, chunk.buffer, tail.path, tail.offset, run, decoder, result.problems
                )
                tail.offset += chunk.parsed.end
        while tail.offset < size:
            available = size - tail.offset
            buffer = fs.read(tail.path, tail.offset, min(CHUNK_BYTES, available))
            parsed = parse_records(buffer, check_crc=check_crc, available=available)
            if parsed.end == 0:  # the record at offset needs more than a chunk, or its resync does
                beyond = _beyond_the_chunk(tail, fs, buffer, size, check_crc, result.problems)
                if beyond is None:
                    break  # a record still being written, or damage whose end is not written yet
                parsed, buffer = beyond
            sizing.reserve(run, parsed)
            result.records += apply_records(parsed, buffer, tail.path, tail.offset, run, decoder, result.problems)
            result.whole = buffer if tail.offset == 0 and result.whole is None and len(buffer) >= parsed.end else None
            tail.offset += parsed.end
            tail.resync_from = 0
    except OSError as error:
        result.problems.append(Problem(tail.path, tail.offset, f"cannot be read: {error}"))
    finally:
        if ahead is not None:
            ahead.cancel()
    return result


def _beyond_the_chunk(
    tail: FileTail, fs: FileSystem, buffer: bytes, size: int, check_crc: bool, problems: list[Problem]
) -> tuple[ParsedRecords, bytes] | None:
    """What to make of the record at ``tail.offset`` when its chunk decided nothing: the record read whole, or
    the damaged span skipped (as a parse of its own); None when the next pass must decide."""
    if len(buffer) < records.HEADER_SIZE:
        return None  # a header cut short
    whole = records.record_size(buffer)
    available = size - tail.offset
    if whole is not None and whole <= available:  # a record longer than the chunk, wholly in the file
        if whole > WHOLE_RECORD_BYTES and not _intact(fs, tail.path, tail.offset, whole - records.FOOTER_SIZE):
            return _skipped(whole, DATA_CRC), b""
        buffer = fs.read(tail.path, tail.offset, whole)
        parsed = parse_records(buffer, check_crc=check_crc, available=available)
        return None if parsed.end == 0 else (parsed, buffer)
    # A bad length CRC, or a length past the end of the file: where do intact records resume?
    intact, reason = (True, PAST_END) if whole is not None else (False, LENGTH_CRC)
    start = max(tail.offset + 1, tail.resync_from)
    resume, scanned = _resume(fs, tail.path, start, size, intact=intact)
    if resume is None:
        tail.resync_from = scanned
        if not intact:  # a bad length CRC is damage whatever follows: say so now (the store lists it once)
            problems.append(Problem(tail.path, tail.offset, LENGTH_CRC))
        return None
    return _skipped(resume - tail.offset, reason), b""


def _resume(fs: FileSystem, path: str, start: int, size: int, *, intact: bool) -> tuple[int | None, int]:
    """(where records resume, at or after ``start``, or None; where a later pass must look again from)."""
    position = start
    pending = None  # the first candidate that claims past the file's end: the file may grow to hold it
    while size - position >= records.HEADER_SIZE:
        window = fs.read(path, position, min(WINDOW_BYTES, size - position))
        available = size - position
        status, found = resume_point(window, 0, intact=intact, available=available)
        if intact and pending is None:
            claimed, at = resume_point(window, 0, intact=False, available=available)
            pending = position + at if claimed == FOUND and status != FOUND else None
        if status == FOUND:
            return position + found, position
        if status == UNDECIDED:  # a candidate whose record ends within the file but past the window
            candidate = position + found
            if _intact(fs, path, candidate, records.HEADER_SIZE + _LENGTH.unpack_from(window, found)[0]):
                return candidate, position
            position = candidate + 1
            continue
        position += len(window) - (records.HEADER_SIZE - 1)  # every position with a whole header was tried
    return None, position if pending is None else pending


def _intact(fs: FileSystem, path: str, at: int, data_end: int) -> bool:
    """Whether the record at ``at`` (length CRC already checked) has a matching data CRC; ``data_end`` is where
    its data ends, relative to ``at``. Read in windows: the record is never held whole."""
    crc, position, end = 0, at + records.HEADER_SIZE, at + data_end
    while position < end:
        piece = fs.read(path, position, min(WINDOW_BYTES, end - position))
        if not piece:
            return False
        crc = records.crc32c(piece, value=crc)
        position += len(piece)
    stored = fs.read(path, end, records.FOOTER_SIZE)
    return len(stored) == records.FOOTER_SIZE and records.mask(crc) == _CRC.unpack(stored)[0]


_NO_INT = np.empty(0, np.int64)
_NO_FLOAT = np.empty(0, np.float64)
_BOUNDS = np.zeros(1, np.int64)


def _skipped(length: int, reason: str) -> ParsedRecords:
    """A parse that skips ``length`` bytes as one damaged record or span."""
    no_tags = np.empty(0, np.int32)
    corrupt = [(0, reason)]
    return ParsedRecords(
        length, [], no_tags, _NO_INT, _NO_FLOAT, _NO_FLOAT, _NO_INT, _NO_INT, _NO_INT, _NO_INT, corrupt, _BOUNDS
    )


class _Sizing:
    """Sizes the run's scalar series from the file: a series that must grow grows to what the rest of the file
    will bring at the rate of its points seen so far in this pass (see the module docstring)."""

    def __init__(self, size: int, offset: int) -> None:
        self.size = size
        self.start = offset
        self.read = 0
        self.seen: dict[str, int] = {}

    def reserve(self, run: RunData, parsed: ParsedRecords) -> None:
        self.read += parsed.end
        remaining = self.size - self.start - self.read
        if remaining <= 0:  # the last chunk (a small file's only one): nothing more to size for
            return
        counts = np.diff(parsed.tag_bounds).tolist()
        for tag, count in zip(parsed.tags, counts, strict=True):
            seen = self.seen[tag] = self.seen.get(tag, 0) + count
            series = run.scalar_series(tag)
            needed = len(series) + count
            if needed > series.capacity and remaining > 0:
                with _small_pages():
                    series.reserve(needed + int(seen / self.read * remaining * PRESIZE_MARGIN))


@contextlib.contextmanager
def _small_pages() -> Iterator[None]:
    """Arrays allocated meanwhile get ordinary pages. numpy asks the kernel for transparent huge pages for every
    array of 4 MiB or more (madvise); where the kernel then tries to compact memory at each first touch
    (defrag=madvise, a common default), filling a pre-sized column took 3-4x as long as with 4 KiB pages here
    (720 MB: 7-9 s against 2-2.5 s at a load average of 20). A process-wide numpy setting, restored at once."""
    if _set_madvise_hugepage is None:
        yield
        return
    previous = _set_madvise_hugepage(False)
    try:
        yield
    finally:
        _set_madvise_hugepage(previous)


def apply_records(
    parsed: ParsedRecords,
    buffer: bytes,
    path: str,
    file_offset: int,
    run: RunData,
    decoder: EventDecoder,
    problems: list[Problem],
) -> int:
    """Append the records of one parsed buffer to ``run``, in record order; returns how many were read."""
    problems.extend(Problem(path, file_offset + offset, reason) for offset, reason in parsed.corrupt)
    if parsed.tags:
        decoder.note_simple_value_tags(parsed.tags)
    slow: list[tuple[int, DecodedEvent, int, int]] = []
    view = memoryview(buffer)
    for offset, length, order in zip(
        parsed.other_offsets.tolist(), parsed.other_lengths.tolist(), parsed.other_order.tolist(), strict=True
    ):
        event = decoder.decode(bytes(view[offset : offset + length]))
        problems.extend(Problem(path, file_offset + offset, reason) for reason in event.problems)
        slow.append((order, event, file_offset + offset, length))

    # SessionLog START events split the buffer into segments: points before one must be in the series when its
    # restart mark is taken. Everything else is appended per series in record order.
    starts = [index for index, (_, event, _, _) in enumerate(slow) if event.session_start]
    begin_slow, begin_order = 0, 0
    for boundary in [*starts, len(slow)]:
        end_order = slow[boundary][0] if boundary < len(slow) else np.iinfo(np.int64).max
        _append_segment(parsed, begin_order, end_order, slow[begin_slow:boundary], path, run)
        if boundary < len(slow):
            run.mark_restart(slow[boundary][1].step)
        begin_slow, begin_order = boundary + 1, end_order
    return len(parsed.scalar_order) + len(slow) + len(parsed.corrupt)


def _append_segment(
    parsed: ParsedRecords,
    begin: int,
    end: int,
    slow: list[tuple[int, DecodedEvent, int, int]],
    path: str,
    run: RunData,
) -> None:
    """Append the records numbered ``begin`` to ``end`` (exclusive), given the slow-path ones among them."""
    slow_scalars: dict[str, list[tuple[int, int, float, float]]] = {}
    for record_number, event, data_offset, length in slow:
        for decoded in event.values:
            if decoded.kind == "scalars":
                assert decoded.scalar is not None
                point = (record_number, event.step, event.wall_time, decoded.scalar)
                slow_scalars.setdefault(decoded.tag, []).append(point)
            else:
                ref = BlobRef(path, data_offset, length, decoded.value_index, event.step, event.wall_time)
                run.append_blob(decoded.kind, decoded.tag, ref)

    fast = _fast_rows(parsed, begin, end)
    for tag in fast.keys() | slow_scalars.keys():
        rows = fast.get(tag)
        if rows is None:
            step, wall_time, value = _EMPTY[1:]
        else:
            step, wall_time, value = parsed.step[rows], parsed.wall_time[rows], parsed.value[rows]
        extra = slow_scalars.get(tag)
        if extra:
            order = _EMPTY[0] if rows is None else parsed.scalar_order[rows]
            order = np.concatenate([order, np.array([e[0] for e in extra], dtype=np.int64)])
            step = np.concatenate([step, np.array([e[1] for e in extra], dtype=np.int64)])
            wall_time = np.concatenate([wall_time, np.array([e[2] for e in extra], dtype=np.float64)])
            value = np.concatenate([value, np.array([e[3] for e in extra], dtype=np.float64)])
            in_order = np.argsort(order, kind="stable")
            step, wall_time, value = step[in_order], wall_time[in_order], value[in_order]
            # Fresh arrays nothing writes to again, read-only like the parse's own columns (parse_records): the
            # on-disk store keeps them as they are until it writes them, instead of copying every point first.
            step.flags.writeable = wall_time.flags.writeable = value.flags.writeable = False
        run.append_scalars(tag, step, wall_time, value)


_EMPTY = (
    np.empty(0, np.int64),
    np.empty(0, np.int64),
    np.empty(0, np.float64),
    np.empty(0, np.float64),
)


def _fast_rows(parsed: ParsedRecords, begin: int, end: int) -> dict[str, slice]:
    """For each tag, its fast-path scalars among the records numbered ``begin`` to ``end`` (exclusive): a slice of
    the parse's columns (each tag's scalars lie together, in record order)."""
    bounds = parsed.tag_bounds.tolist()
    every = begin == 0 and end > len(parsed.scalar_order) + len(parsed.other_order)  # no START event: all of it
    rows = {}
    for number, tag in enumerate(parsed.tags):
        first, last = bounds[number], bounds[number + 1]
        if not every:
            group = parsed.scalar_order[first:last]
            first, last = first + int(np.searchsorted(group, begin)), first + int(np.searchsorted(group, end))
        if first < last:
            rows[tag] = slice(first, last)
    return rows
