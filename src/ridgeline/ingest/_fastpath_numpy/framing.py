"""Framing in the numpy record loop: where each record of a buffer starts and how long its data is, with its
length CRC checked, and where the records resume after a bad header.

Record sizes in a tfevents file repeat (the same few tags, logged in the same order), so the sizes of the next W
records are *guessed* by repeating the last period of sizes, and the guess is checked for all W at once: the
length read at each guessed offset must equal the guessed one and its masked CRC must match (a table lookup).
The first wrong guess ends the run; a plain ``struct.unpack_from`` loop takes over for a few records, then
guessing resumes (with a longer loop between guesses while they keep failing).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ridgeline.format.records import HEADER as _HEADER
from ridgeline.format.records import HEADER_SIZE
from ridgeline.ingest._fastpath_numpy.buffers import FRAMING, I64, U8, U32, u32_at_every_byte, u64_at_every_byte
from ridgeline.ingest._fastpath_numpy.crc import SMALL, CrcTables, masked_crc
from ridgeline.ingest.fastpath import FOUND, LENGTH_CRC, NONE, PAST_END, UNDECIDED

# How many records the Python loop reads between guesses, and how many records one guess covers.
_WALK_MIN, _WALK_MAX = 32, 4096
_GUESS_MIN, _GUESS_MAX = 64, 1 << 16
_MAX_PERIOD = 16
_RESYNC_WINDOW = 1 << 16  # byte positions tested at once while looking for the next record after a bad header

_MORE, _END, _BAD, _PAST = 0, 1, 2, 3


def _walk(
    buffer: Any,
    pos: int,
    n: int,
    available: int,
    limit: int,
    crcs: list[int],
    offsets: list[int],
    lengths: list[int],
) -> tuple[int, int]:
    """Read up to ``limit`` records from ``pos`` one by one; returns (next position, _MORE/_END/_BAD/_PAST)."""
    unpack = _HEADER.unpack_from
    while limit:
        if pos + HEADER_SIZE > n:
            return pos, _END
        length, crc = unpack(buffer, pos)
        if length < SMALL:
            if crcs[length] != crc:
                return pos, _BAD
        elif masked_crc(memoryview(buffer)[pos : pos + 8]) != crc:
            return pos, _BAD
        if pos + length + FRAMING > n:
            return pos, _END if pos + length + FRAMING <= available else _PAST
        offsets.append(pos)
        lengths.append(length)
        pos += length + FRAMING
        limit -= 1
    return pos, _MORE


def _period(sizes: list[int]) -> list[int] | None:
    """The shortest k such that the last 2k record sizes repeat with period k, as the next k sizes expected."""
    for k in range(1, min(_MAX_PERIOD, len(sizes) // 2) + 1):
        if sizes[-k:] == sizes[-2 * k : -k]:
            return sizes[-k:]
    return None


def _guess(
    arr: U8, u64: npt.NDArray[np.uint64], u32: U32, pos: int, pattern: list[int], count: int, tables: CrcTables
) -> tuple[I64, I64]:
    """Check ``count`` records guessed from ``pos`` with sizes repeating ``pattern``; the header offsets and data
    lengths of those before the first wrong guess (or the first record that does not end inside the buffer)."""
    sizes = np.tile(np.array(pattern, dtype=np.int64), -(-count // len(pattern)))[:count]
    ends = np.cumsum(sizes)
    ends += pos
    fits = int(np.searchsorted(ends, len(arr), side="right"))
    sizes, ends = sizes[:fits], ends[:fits]
    starts = ends - sizes
    lengths = u64[starts].astype(np.int64)
    ok = lengths == sizes - FRAMING
    if max(pattern) - FRAMING < SMALL:  # where ok, the length is small: one table lookup
        ok &= tables.small_length_crc[lengths & (SMALL - 1)] == u32[starts + 8]
    else:
        ok &= tables.masked_length_crc(lengths.astype(np.uint64)) == u32[starts + 8]
    good = fits if ok.all() else int(np.argmin(ok))
    return starts[:good], lengths[:good]


def frame(buffer: Any, arr: U8, available: int, tables: CrcTables) -> tuple[I64, I64, list[tuple[int, str]], int]:
    """Header offsets and data lengths of the complete records with a good length CRC, the corrupt spans, end."""
    n = len(arr)
    u64, u32 = u64_at_every_byte(arr), u32_at_every_byte(arr)
    crcs = tables.small_length_crc_list
    parts_offsets: list[I64] = []
    parts_lengths: list[I64] = []
    offsets: list[int] = []
    lengths: list[int] = []
    corrupt: list[tuple[int, str]] = []
    pos = 0
    walk_limit, guess_count = _WALK_MIN, _GUESS_MIN
    recent: list[int] = []
    while True:
        before = len(offsets)
        pos, status = _walk(buffer, pos, n, available, walk_limit, crcs, offsets, lengths)
        recent = (recent + [length + FRAMING for length in lengths[max(before, len(lengths) - 64) :]])[-64:]
        if status == _END:
            break
        if status in (_BAD, _PAST):  # a bad length CRC, or a length that claims more than the file holds
            outcome, resume = resync(buffer, arr, u64, u32, pos + 1, available, status == _PAST, tables)
            if outcome != FOUND:  # where the records resume is not in the buffer (yet): see parse_records
                break
            corrupt.append((pos, LENGTH_CRC if status == _BAD else PAST_END))
            pos, recent = resume, []
            continue
        pattern = _period(recent)
        if pattern is None:
            walk_limit = min(2 * walk_limit, _WALK_MAX)
            continue
        if offsets:
            parts_offsets.append(np.array(offsets, dtype=np.int64))
            parts_lengths.append(np.array(lengths, dtype=np.int64))
            offsets, lengths = [], []
        while True:  # guess while the guesses hold
            starts, found = _guess(arr, u64, u32, pos, pattern, guess_count, tables)
            good = len(starts)
            if good:
                parts_offsets.append(starts)
                parts_lengths.append(found)
                pos = int(starts[-1] + found[-1]) + FRAMING
            if good < guess_count:
                break
            shift = good % len(pattern)
            pattern = pattern[shift:] + pattern[:shift]
            guess_count = min(2 * guess_count, _GUESS_MAX)
        # A wrong guess (or the buffer's end): back to the loop, longer if guessing does not pay.
        walk_limit = _WALK_MIN if good >= 4 * _WALK_MIN else min(2 * walk_limit, _WALK_MAX)
        guess_count = max(_GUESS_MIN, min(guess_count, 2 * good))
        recent = [int(size) for size in (found[-64:] + FRAMING).tolist()] if good else []
    if offsets:
        parts_offsets.append(np.array(offsets, dtype=np.int64))
        parts_lengths.append(np.array(lengths, dtype=np.int64))
    if not parts_offsets:
        return np.empty(0, np.int64), np.empty(0, np.int64), corrupt, pos
    return np.concatenate(parts_offsets), np.concatenate(parts_lengths), corrupt, pos


def resync(
    buffer: Any,
    arr: U8,
    u64: npt.NDArray[np.uint64],
    u32: U32,
    first: int,
    available: int,
    intact: bool,
    tables: CrcTables,
) -> tuple[int, int]:
    """(FOUND, q), (NONE, 0) or (UNDECIDED, q): see :func:`ridgeline.ingest.fastpath.resume_point`."""
    n = len(arr)
    view = memoryview(buffer)
    last = n - HEADER_SIZE  # the last position with a whole header
    start = first
    while start <= last:
        stop = min(start + _RESYNC_WINDOW, last + 1)
        lengths = u64[start:stop]
        hits = np.flatnonzero(tables.masked_length_crc(lengths) == u32[start + 8 : stop + 8])
        for hit in hits.tolist():
            q = start + hit
            length = int(lengths[hit])
            if q + length + FRAMING > available:
                if not intact:
                    return FOUND, q
                continue
            if q + length + FRAMING > n:
                return UNDECIDED, q
            data = view[q + HEADER_SIZE : q + HEADER_SIZE + length]
            if masked_crc(data) == int(u32[q + HEADER_SIZE + length]):
                return FOUND, q
        start = stop
    return NONE, 0
