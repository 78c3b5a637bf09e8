"""Reading one event file incrementally: from where the last pass stopped to its current end.

Each pass reads the new bytes in chunks, hands them to :func:`ridgeline.ingest.fastpath.parse_records`, decodes
the records the fast path left over, and appends everything to the run, in record order. A record cut short at
the end is left for the next pass; corrupt records are skipped and reported with their byte offset; the rest of
the file is still read. A file that shrank (rewritten or truncated) cannot be continued: the pass says so and
the caller re-reads its run from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ridgeline.format import records
from ridgeline.ingest.decode import DecodedEvent, EventDecoder
from ridgeline.ingest.discovery import FileSystem
from ridgeline.ingest.fastpath import ParsedRecords, parse_records
from ridgeline.store.base import BlobRef, Problem
from ridgeline.store.run import RunData

CHUNK_BYTES = 1 << 20  # small chunks keep the transient buffers (several times a chunk) well under the data


@dataclass
class FileTail:
    """Where reading of one file stands."""

    path: str
    offset: int = 0  # the next byte to read: always a record boundary (or a resync point)
    shrank: bool = False
    fingerprint: int | None = None  # CRC of the bytes before offset, taken when cached


@dataclass
class PassResult:
    problems: list[Problem] = field(default_factory=list)
    records: int = 0


def read_new(
    tail: FileTail, fs: FileSystem, run: RunData, decoder: EventDecoder, *, check_crc: bool = True
) -> PassResult:
    """Append what was written to ``tail.path`` since the last pass to ``run``."""
    result = PassResult()
    try:
        size = fs.size(tail.path)
    except OSError as error:
        result.problems.append(Problem(tail.path, None, f"cannot be read: {error}"))
        return result
    if size < tail.offset:
        tail.shrank = True
        result.problems.append(Problem(tail.path, None, f"shrank from {tail.offset} to {size} bytes; run re-read"))
        return result
    while tail.offset < size:
        want = min(CHUNK_BYTES, size - tail.offset)
        try:
            buffer = fs.read(tail.path, tail.offset, want)
        except OSError as error:
            result.problems.append(Problem(tail.path, tail.offset, f"cannot be read: {error}"))
            return result
        parsed = parse_records(buffer, check_crc=check_crc)
        while parsed.end == 0 and not parsed.corrupt and tail.offset + len(buffer) < size:
            # Nothing complete in the buffer: one record larger than a chunk (a big image), or a damaged span
            # longer than a chunk before the next intact record. Read more of the file and try again.
            whole = records.record_size(buffer)
            want = whole if whole is not None and whole > len(buffer) else 2 * len(buffer)
            buffer = fs.read(tail.path, tail.offset, min(want, size - tail.offset))
            parsed = parse_records(buffer, check_crc=check_crc)
        if parsed.end == 0 and not parsed.corrupt:
            break  # a record still being written: the next pass gets it
        result.records += apply_records(parsed, buffer, tail.path, tail.offset, run, decoder, result.problems)
        tail.offset += parsed.end
        if parsed.end == 0:
            break
    return result


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
    begin_slow, begin_fast = 0, 0
    for boundary in [*starts, len(slow)]:
        end_order = slow[boundary][0] if boundary < len(slow) else np.iinfo(np.int64).max
        end_fast = int(np.searchsorted(parsed.scalar_order, end_order))
        _append_segment(parsed, begin_fast, end_fast, slow[begin_slow:boundary], path, run)
        if boundary < len(slow):
            run.mark_restart(slow[boundary][1].step)
        begin_slow, begin_fast = boundary + 1, end_fast
    return len(parsed.scalar_order) + len(slow) + len(parsed.corrupt)


def _append_segment(
    parsed: ParsedRecords,
    begin: int,
    end: int,
    slow: list[tuple[int, DecodedEvent, int, int]],
    path: str,
    run: RunData,
) -> None:
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

    fast_by_tag = _fast_slices(parsed, begin, end)
    for tag in fast_by_tag.keys() | slow_scalars.keys():
        order, step, wall_time, value = fast_by_tag.get(tag, _EMPTY)
        extra = slow_scalars.get(tag)
        if extra:
            order = np.concatenate([order, np.array([e[0] for e in extra], dtype=np.int64)])
            step = np.concatenate([step, np.array([e[1] for e in extra], dtype=np.int64)])
            wall_time = np.concatenate([wall_time, np.array([e[2] for e in extra], dtype=np.float64)])
            value = np.concatenate([value, np.array([e[3] for e in extra], dtype=np.float64)])
            in_order = np.argsort(order, kind="stable")
            step, wall_time, value = step[in_order], wall_time[in_order], value[in_order]
        run.append_scalars(tag, step, wall_time, value)


_EMPTY = (
    np.empty(0, np.int64),
    np.empty(0, np.int64),
    np.empty(0, np.float64),
    np.empty(0, np.float64),
)


def _fast_slices(
    parsed: ParsedRecords, begin: int, end: int
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The fast-path scalars in [begin, end), grouped by tag, each group in record order."""
    if begin >= end:
        return {}
    tag_index = parsed.tag_index[begin:end]
    columns = (parsed.scalar_order, parsed.step, parsed.wall_time, parsed.value)
    if len(parsed.tags) == 1:
        return {parsed.tags[0]: tuple(column[begin:end] for column in columns)}  # type: ignore[dict-item]
    by_tag = np.argsort(tag_index, kind="stable")
    sorted_index = tag_index[by_tag]
    present, starts = np.unique(sorted_index, return_index=True)
    bounds = [*starts.tolist(), len(sorted_index)]
    groups = {}
    for position, tag_number in enumerate(present.tolist()):
        rows = by_tag[bounds[position] : bounds[position + 1]] + begin
        groups[parsed.tags[tag_number]] = tuple(column[rows] for column in columns)
    return groups  # type: ignore[return-value]
