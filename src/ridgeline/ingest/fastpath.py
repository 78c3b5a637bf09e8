"""The record loop: a buffer of TFRecords -> columnar scalars, plus the records that need the slow path.

This is the one narrow seam between the bytes of an event file and the rest of ridgeline: :func:`parse_records`
takes bytes and returns arrays. Two implementations stand behind it and give the same answer for every input
(``tests/ingest`` and ``make fuzz`` compare them on real files, mutated files and fuzzed bytes):

- the compiled core, ``_core.c`` (C, CPython API), used by default when it is built. It releases the GIL for
  the whole loop, so several threads may parse at once;
- numpy, the ``_fastpath_numpy`` package: the fallback for a source install without a C compiler (logged at
  debug level when taken), and the reference the core is tested against.

:data:`IMPLEMENTATION` names the one in use ("core" or "numpy"); benchmarks and tests may set it.

What a buffer is split into
---------------------------
Records are read from offset 0 of the buffer, which starts at a record boundary (or a resync point). Each record
on disk is ``uint64 length, uint32 masked_crc32c(length), data[length], uint32 masked_crc32c(data)``.

``available`` is how many bytes the file holds from the buffer's start (None: the buffer is all of it). It is
what tells a record still being written from a corrupted length:

- A header cut short (fewer than 12 bytes left) stops the split: ``end`` is its offset. Not an error.
- A record with a good length CRC that ends past the buffer but within ``available`` stops the split too: it
  is longer than the buffer, and the caller offers more (``ingest.tail`` reads it whole).
- A record with a good length CRC whose claimed end is past ``available``, the end of the file: either the
  last record, still being written, or a corrupted length whose CRC was rewritten too (2^32, 2^62, 2^64-1:
  a header that looks valid and would swallow the rest of the file). The rule: when an *intact* record (both
  CRCs match, wholly in the buffer) starts at some later position ``q``, the length is corruption: the span
  ``[p, q)`` is reported once as ``(p, "length past the end of the file")`` and reading resumes at ``q``. When
  none does, the record stays a partial tail for the next pass (``end = p``, nothing reported): once the writer
  has finished it, it is read as usual; once intact records follow it, it is reported and skipped. Only a
  record whose own data holds another complete, intact record could be mistaken for a corrupted length, and a
  length claiming past the file's end is never used to skip bytes.

CRCs. Every complete record's length CRC is checked, also with ``check_crc=False`` (a wrong length would
misframe everything after it). With ``check_crc=True`` the data CRC is checked too: a record whose data CRC is
wrong is reported as ``(offset, "data CRC mismatch")`` and skipped; its length is trusted (its CRC matched and
it ends within the file), so the next record follows it as usual.

Resync after a bad length CRC at offset ``p``: the length cannot be trusted, so the following byte positions are
tried one by one (:func:`resume_point` with ``intact=False``); the first position ``q`` whose 12-byte header has
a matching length CRC and whose record is either complete in the buffer with a matching data CRC (checked here
even with ``check_crc=False``) or claims to end past ``available`` (a record still being written) is where
reading resumes. The skipped span ``[p, q)`` is reported once, as ``(p, "length CRC mismatch")``. A candidate
that ends within the file but past the buffer cannot be judged from the buffer: the split stops at ``p`` and
the caller offers more (or streams the resync, as ``ingest.tail`` does, in bounded windows).

When no resume point is in the buffer (every position that has a whole header after it was tried), the bytes
from ``p`` on are treated like a record cut short: ``end = p`` (also when ``p`` is 0) and nothing is reported
yet. The next pass starts at the bad header again and, once more bytes hold the point where the records
resume, reports the span, once, at ``p``. So nothing written later is ever skipped and no span is reported
twice. When ``end`` is 0 and nothing is reported, the record at 0 needs more than the buffer: a longer record,
or a resync that must look further; reading further is the caller's (bounded) business.

Fast path: a record whose data is exactly ``[09 wall_time:f64] [10 step:varint] 2a len { 0a len { 0a len tag
15 value:f32 } }`` (the Event that ridgeline's, torch's and TensorBoard's writers produce for a scalar; wall_time
and step optional; minimal length varints; a step varint of at most 10 bytes whose 10th byte is 0 or 1; the
summary's one value holding a UTF-8 tag and a simple_value and nothing else; 11 to 4,096 bytes) becomes a
fast-path scalar, decoded exactly as protobuf would decode it. Any other record, including any byte that does
not fit that pattern, is returned as "other" for protobuf to decode.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from ridgeline.format import records

__all__ = [
    "DATA_CRC",
    "FOUND",
    "IMPLEMENTATION",
    "LENGTH_CRC",
    "NONE",
    "PAST_END",
    "UNDECIDED",
    "ParsedRecords",
    "implementations",
    "masked_crc32c",
    "parse_records",
    "resume_point",
]

log = logging.getLogger(__name__)

_core: ModuleType | None
try:
    from ridgeline.ingest import _core
except ImportError as error:  # a source install without a C compiler
    _core = None
    log.debug("ridgeline's compiled record loop is not built (%s): using the numpy one", error)

IMPLEMENTATION = "numpy" if _core is None else "core"

FOUND, NONE, UNDECIDED = 0, 1, 2  # what a resync finds (the compiled core's codes)
LENGTH_CRC, DATA_CRC, PAST_END = "length CRC mismatch", "data CRC mismatch", "length past the end of the file"

# The dtypes of the compiled core's columns, in the order of its tuple (after end, tags and corrupt).
_COLUMN_DTYPES = (np.int32, np.int64, np.float64, np.float64, np.int64, np.int64, np.int64, np.int64, np.int64)


@dataclass(frozen=True, slots=True)
class ParsedRecords:
    """What :func:`parse_records` found in one buffer.

    Every complete record of the buffer is accounted for exactly once: as a fast-path scalar, as an "other"
    record (to be decoded with protobuf by the caller), or inside a corrupt span.

    Attributes:
        end: offset (within the buffer) just past the last record read or span skipped; the bytes from ``end``
            on are a record cut short (a writer may still be appending it) and belong to the next pass.
        tags: the distinct tags of the fast-path scalars, in the order they first appear in the buffer;
            ``tag_index`` indexes into it.
        tag_index, step, wall_time, value: one element per fast-path scalar (int32, int64, float64, float64;
            value is the float32 ``simple_value`` widened exactly), grouped by tag: ``tags[i]``'s scalars are
            ``tag_bounds[i]:tag_bounds[i + 1]``, in record order (so ``tag_index`` is ascending), and each
            series can be appended as a slice, without a copy or a sort.
        scalar_order: the record number (0-based, in buffer order) of each fast-path scalar.
        other_offsets, other_lengths, other_order: for each record not on the fast path: where its *data*
            starts (buffer offset, after the 12-byte header), its data length, and its record number.
        corrupt: (buffer offset of the record header, reason) for each record or span skipped, in order; the
            reasons are :data:`LENGTH_CRC`, :data:`DATA_CRC` and :data:`PAST_END`.
        tag_bounds: int64, ``len(tags) + 1`` long, from 0 to the number of fast-path scalars.

    Record numbers count the records reported as scalars or others, in buffer order: ``scalar_order`` and
    ``other_order`` together are exactly ``0 .. k-1``; ``other_order`` is ascending, ``scalar_order`` within each
    tag's group. Corrupt records take no number.
    """

    end: int
    tags: list[str]
    tag_index: np.ndarray
    step: np.ndarray
    wall_time: np.ndarray
    value: np.ndarray
    scalar_order: np.ndarray
    other_offsets: np.ndarray
    other_lengths: np.ndarray
    other_order: np.ndarray
    corrupt: list[tuple[int, str]]
    tag_bounds: np.ndarray


def implementations() -> list[str]:
    """The implementations this installation has: "numpy" always, "core" when the compiled core is built."""
    return ["numpy"] if _core is None else ["numpy", "core"]


def parse_records(
    buffer: bytes | bytearray | memoryview,
    *,
    check_crc: bool = True,
    available: int | None = None,
    implementation: str | None = None,
) -> ParsedRecords:
    """Split ``buffer`` (starting at a record boundary) into records and decode the scalar events fast.

    See the module docstring for what is read, skipped and reported; ``available`` (at least ``len(buffer)``)
    is how many bytes the file holds from the buffer's start, None when the buffer reaches the file's end.
    ``implementation`` ("core" or "numpy") overrides :data:`IMPLEMENTATION`.
    """
    buffer = _bytes_like(buffer)
    if available is not None and available < len(buffer):
        raise ValueError(f"available must be at least len(buffer) = {len(buffer)}, got {available}")
    if _use_core(implementation):
        assert _core is not None
        end, tags, corrupt, *columns = _core.parse(buffer, check_crc, available)
        arrays = [np.frombuffer(column, dtype=dtype) for column, dtype in zip(columns, _COLUMN_DTYPES, strict=True)]
    else:
        end, tags, corrupt, *arrays = _numpy_loop().parse(buffer, check_crc, available)
    for array in arrays:
        # Read-only, as the columns are nobody's to change: the on-disk store keeps a read-only column as it is
        # until it writes it, and copied the core's (views of its bytearrays) three times a series.
        array.flags.writeable = False
    tag_index, step, wall_time, value, scalar_order, other_offsets, other_lengths, other_order, bounds = arrays
    return ParsedRecords(
        end,
        tags,
        tag_index,
        step,
        wall_time,
        value,
        scalar_order,
        other_offsets,
        other_lengths,
        other_order,
        corrupt,
        bounds,
    )


def resume_point(
    buffer: bytes | bytearray | memoryview,
    first: int,
    *,
    intact: bool,
    available: int | None = None,
    implementation: str | None = None,
) -> tuple[int, int]:
    """Where records resume after a damaged span, looking at positions ``first`` on: ``(FOUND, q)``,
    ``(NONE, 0)`` when no position of the buffer qualifies, or ``(UNDECIDED, q)`` when the candidate at ``q`` ends
    past the buffer but within ``available`` (the caller must read its record to judge it).

    A position qualifies when its length CRC matches and its record is complete in the buffer with a matching
    data CRC, or, with ``intact=False`` only, claims to end past ``available`` (see the module docstring).
    """
    buffer = _bytes_like(buffer)
    if first < 0:
        raise ValueError(f"first must not be negative, got {first}")
    if available is not None and available < len(buffer):
        raise ValueError(f"available must be at least len(buffer) = {len(buffer)}, got {available}")
    if _use_core(implementation):
        assert _core is not None
        status, position = _core.resume_point(buffer, first, available, intact)
    else:
        status, position = _numpy_loop().resume_point(buffer, first, available, intact)
    return int(status), int(position)


def masked_crc32c(data: bytes | memoryview) -> int:
    """TFRecord's masked CRC32C of ``data``: the compiled core's when it is built (then the crc32c package is
    never imported), else :func:`ridgeline.format.records.masked_crc32c`."""
    if _core is not None:
        return _core.masked_crc32c(data)
    return records.masked_crc32c(data)


def _numpy_loop() -> ModuleType:
    """The numpy record loop, imported on first use: it imports the crc32c package and builds its tables, which
    the compiled core needs neither of."""
    from ridgeline.ingest import _fastpath_numpy

    return _fastpath_numpy


def _use_core(implementation: str | None) -> bool:
    name = IMPLEMENTATION if implementation is None else implementation
    if name == "core":
        if _core is None:
            raise RuntimeError("ridgeline's compiled record loop is not built (see the README: a C compiler)")
        return True
    if name != "numpy":
        raise ValueError(f"implementation must be 'core' or 'numpy', got {name!r}")
    return False


def _bytes_like(buffer: Any) -> Any:
    if isinstance(buffer, memoryview) and (buffer.ndim != 1 or buffer.format not in ("B", "b", "c")):
        return buffer.cast("B")
    return buffer
