"""The record loop in Python + numpy: the fallback where the compiled core (``_core.c``) is not built, and the
reference the core is tested against. :mod:`ridgeline.ingest.fastpath` states what both do; this module is how
the numpy one does it.

How it is fast in Python + numpy (``bench/fastpath.py`` measures it against the naive alternatives and the core):

1. Framing. Record sizes in a tfevents file repeat (the same few tags, logged in the same order), so the sizes
   of the next W records are *guessed* by repeating the last period of sizes, and the guess is checked for all
   W at once: the length read at each guessed offset must equal the guessed one and its masked CRC must match
   (a table lookup). The first wrong guess ends the run; a plain ``struct.unpack_from`` loop takes over for a
   few records, then guessing resumes (with a longer loop between guesses while they keep failing).
2. Data CRCs. No CRC is computed per record. In a copy of the buffer, each record's 4 stored CRC bytes are
   replaced by the value that brings the *raw* CRC32C register (initial value 0, no final xor) back to 0 after
   the record's data if and only if the stored CRC is right, and each (already checked) header is zeroed.
   Records then chain: the raw register over a run of intact records is 0, so one hardware ``crc32c`` call
   checks a run of about 1 MiB of records. A run that fails is bisected down to its bad records; the check of
   one record alone is exact. A bad record never hides in a run by itself (once the register is off 0, the
   intact records after it never bring it back); only the damage of two or more bad records in one run can
   cancel out, with probability 2^-32 for random damage, as damage escapes one record's own CRC.
3. Scalar events. Records are grouped by data length; each group is one (n, L) byte matrix (a view when its
   records are consecutive). A layout (wall_time present or not, size of the step varint) puts every byte of
   the pattern at a fixed column, so checking the pattern and extracting step, wall time and value take a
   handful of whole-column numpy operations. The first row's layout is tried on all rows at once, then again
   on the rows left over; a group of many layouts has each row's worked out. Tags: in a large group each
   row's tag is hashed into a bucket and compared byte for byte with the bucket's representative (a
   collision costs time, never a wrong tag); a small group uses a dict. Each distinct tag is decoded once.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
from crc32c import crc32c as _crc32c
from numpy.lib.stride_tricks import sliding_window_view

from ridgeline.format.records import FOOTER_SIZE, HEADER_SIZE
from ridgeline.format.records import HEADER as _HEADER
from ridgeline.format.records import MASK_DELTA as _MASK_DELTA
from ridgeline.format.records import mask as _record_mask
from ridgeline.format.wire import encode_varint as _varint
from ridgeline.ingest.fastpath import DATA_CRC, FOUND, LENGTH_CRC, NONE, PAST_END, UNDECIDED


def _masked_crc(data: Any) -> int:
    """``records.masked_crc32c`` with the crc32c package imported here (this fallback checks CRCs in Python)."""
    return _record_mask(_crc32c(data))


_FRAMING = HEADER_SIZE + FOOTER_SIZE
_POLY = 0x82F63B78  # CRC32C (Castagnoli), reflected
_U32 = 0xFFFFFFFF

_SMALL = 1 << 16  # data lengths below this use the precomputed tables
_MIN_SCALAR = 11  # 2a L1 0a L2 0a 00 15 f32: the shortest scalar Event (no wall_time, no step, empty tag)
_MAX_SCALAR = 4096  # longer records (tags over 4,000 bytes) always take the slow path
_CHECK_RUN_BYTES = 1 << 20  # data CRCs are checked in runs of records of about this many bytes

# Framing: how many records the Python loop reads between guesses, and how many records one guess covers.
_WALK_MIN, _WALK_MAX = 32, 4096
_GUESS_MIN, _GUESS_MAX = 64, 1 << 16
_MAX_PERIOD = 16
_RESYNC_WINDOW = 1 << 16  # byte positions tested at once while looking for the next record after a bad header

U8 = npt.NDArray[np.uint8]
U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]


Raw = tuple[int, list[str], list[tuple[int, str]], Any, Any, Any, Any, Any, Any, Any, Any, Any]
"""(end, tags, corrupt, tag_index, step, wall_time, value, scalar_order, other_offsets, other_lengths,
other_order, tag_bounds): what both implementations return, in the order of the compiled core's tuple."""


def parse(buffer: Any, check_crc: bool, available: int | None) -> Raw:
    """The numpy implementation of :func:`ridgeline.ingest.fastpath.parse_records` (``buffer`` already bytes-like
    with 1-byte items)."""
    arr = np.frombuffer(buffer, dtype=np.uint8)
    limit = len(arr) if available is None else available
    tables = _tables()
    hoff, dlen, corrupt, end = _frame(buffer, arr, limit, tables)
    if check_crc and len(hoff):
        bad = _bad_data_crcs(arr, hoff, dlen, corrupt, end, tables)
        if len(bad):
            keep = np.ones(len(hoff), dtype=bool)
            keep[bad] = False
            corrupt = sorted([*corrupt, *((int(hoff[i]), DATA_CRC) for i in bad.tolist())])
            hoff, dlen = hoff[keep], dlen[keep]
    return _decode(arr, hoff, dlen, end, corrupt)


def resume_point(buffer: Any, first: int, available: int | None, intact: bool) -> tuple[int, int]:
    """The numpy implementation of :func:`ridgeline.ingest.fastpath.resume_point`: (status, position)."""
    arr = np.frombuffer(buffer, dtype=np.uint8)
    limit = len(arr) if available is None else available
    return _resync(buffer, arr, _u64_at_every_byte(arr), _u32_at_every_byte(arr), first, limit, intact, _tables())


# --- CRC32C ----------------------------------------------------------------------------------------------
def _byte_table() -> U32:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_POLY), table >> 1).astype(np.uint32)
    return table


_BYTE_TABLE = _byte_table()


def _crc32c_rows(rows: U8) -> U32:
    """The CRC32C of each row of a 2-D uint8 array, one table lookup per column for all rows at once."""
    crc = np.full(rows.shape[0], _U32, dtype=np.uint32)
    for column in range(rows.shape[1]):
        crc = _BYTE_TABLE[(crc ^ rows[:, column]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(_U32)


def _mask(crc: U32) -> U32:
    return (((crc >> 15) | (crc << 17)) + np.uint32(_MASK_DELTA)).astype(np.uint32)


def _unmask(masked: U32) -> U32:
    rotated = (masked - np.uint32(_MASK_DELTA)).astype(np.uint32)
    return ((rotated << 15) | (rotated >> 17)).astype(np.uint32)


class _Tables:
    """Lookup tables, built on first use (about 20 ms, 4 MB)."""

    def __init__(self) -> None:
        words = np.arange(_SMALL, dtype=np.uint32)
        self.zero8 = int(_crc32c_rows(np.zeros((1, 8), dtype=np.uint8))[0])
        # word[j][w]: what the 16-bit little-endian word j = w of an 8-byte message adds (xor) to its CRC.
        self.word: list[U32] = []
        for j in range(4):
            rows = np.zeros((_SMALL, 8), dtype=np.uint8)
            rows[:, 2 * j] = words & 0xFF
            rows[:, 2 * j + 1] = words >> 8
            self.word.append((_crc32c_rows(rows) ^ np.uint32(self.zero8)).astype(np.uint32))
        # The masked length CRC of every length below 2^16, as an array and as a list (for the Python loop).
        self.small_length_crc: U32 = _mask((self.word[0] ^ np.uint32(self.zero8)).astype(np.uint32))
        self.small_length_crc_list: list[int] = self.small_length_crc.tolist()
        # zeros[n]: the raw CRC register (no final xor) after n zero bytes from the initial 0xFFFFFFFF.
        zeros = [0] * _SMALL
        register = _U32
        table = _BYTE_TABLE.tolist()
        for n in range(_SMALL):
            zeros[n] = register
            register = table[register & 0xFF] ^ (register >> 8)
        self.zeros: U32 = np.array(zeros, dtype=np.uint32)

    def masked_length_crc(self, lengths: npt.NDArray[np.uint64]) -> U32:
        """The masked CRC32C of each 8-byte little-endian length (any uint64)."""
        if len(lengths) and int(lengths.max()) < _SMALL:
            return self.small_length_crc[lengths.astype(np.intp)]
        crc = np.full(len(lengths), self.zero8, dtype=np.uint32)
        for j in range(4):
            crc ^= self.word[j][((lengths >> np.uint64(16 * j)) & np.uint64(0xFFFF)).astype(np.intp)]
        return _mask(crc)


@functools.cache
def _tables() -> _Tables:
    return _Tables()


@functools.lru_cache(maxsize=1024)
def _zeros_register(length: int) -> int:
    """The raw CRC register after ``length`` zero bytes from 0xFFFFFFFF (for lengths past the table)."""
    return _crc32c(bytes(length)) ^ _U32


def _u64_at_every_byte(arr: U8) -> npt.NDArray[np.uint64]:
    """A view: element i is the little-endian uint64 at byte i."""
    return np.ndarray(shape=(max(0, len(arr) - 7),), dtype="<u8", buffer=arr, strides=(1,))


def _u32_at_every_byte(arr: U8) -> U32:
    """A view: element i is the little-endian uint32 at byte i."""
    return np.ndarray(shape=(max(0, len(arr) - 3),), dtype="<u4", buffer=arr, strides=(1,))


# --- framing -----------------------------------------------------------------------------------------------
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
        if length < _SMALL:
            if crcs[length] != crc:
                return pos, _BAD
        elif _masked_crc(memoryview(buffer)[pos : pos + 8]) != crc:
            return pos, _BAD
        if pos + length + _FRAMING > n:
            return pos, _END if pos + length + _FRAMING <= available else _PAST
        offsets.append(pos)
        lengths.append(length)
        pos += length + _FRAMING
        limit -= 1
    return pos, _MORE


def _period(sizes: list[int]) -> list[int] | None:
    """The shortest k such that the last 2k record sizes repeat with period k, as the next k sizes expected."""
    for k in range(1, min(_MAX_PERIOD, len(sizes) // 2) + 1):
        if sizes[-k:] == sizes[-2 * k : -k]:
            return sizes[-k:]
    return None


def _guess(
    arr: U8, u64: npt.NDArray[np.uint64], u32: U32, pos: int, pattern: list[int], count: int, tables: _Tables
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
    ok = lengths == sizes - _FRAMING
    if max(pattern) - _FRAMING < _SMALL:  # where ok, the length is small: one table lookup
        ok &= tables.small_length_crc[lengths & (_SMALL - 1)] == u32[starts + 8]
    else:
        ok &= tables.masked_length_crc(lengths.astype(np.uint64)) == u32[starts + 8]
    good = fits if ok.all() else int(np.argmin(ok))
    return starts[:good], lengths[:good]


def _frame(buffer: Any, arr: U8, available: int, tables: _Tables) -> tuple[I64, I64, list[tuple[int, str]], int]:
    """Header offsets and data lengths of the complete records with a good length CRC, the corrupt spans, end."""
    n = len(arr)
    u64, u32 = _u64_at_every_byte(arr), _u32_at_every_byte(arr)
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
        recent = (recent + [length + _FRAMING for length in lengths[max(before, len(lengths) - 64) :]])[-64:]
        if status == _END:
            break
        if status in (_BAD, _PAST):  # a bad length CRC, or a length that claims more than the file holds
            outcome, resume = _resync(buffer, arr, u64, u32, pos + 1, available, status == _PAST, tables)
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
                pos = int(starts[-1] + found[-1]) + _FRAMING
            if good < guess_count:
                break
            shift = good % len(pattern)
            pattern = pattern[shift:] + pattern[:shift]
            guess_count = min(2 * guess_count, _GUESS_MAX)
        # A wrong guess (or the buffer's end): back to the loop, longer if guessing does not pay.
        walk_limit = _WALK_MIN if good >= 4 * _WALK_MIN else min(2 * walk_limit, _WALK_MAX)
        guess_count = max(_GUESS_MIN, min(guess_count, 2 * good))
        recent = [int(size) for size in (found[-64:] + _FRAMING).tolist()] if good else []
    if offsets:
        parts_offsets.append(np.array(offsets, dtype=np.int64))
        parts_lengths.append(np.array(lengths, dtype=np.int64))
    if not parts_offsets:
        return np.empty(0, np.int64), np.empty(0, np.int64), corrupt, pos
    return np.concatenate(parts_offsets), np.concatenate(parts_lengths), corrupt, pos


def _resync(
    buffer: Any,
    arr: U8,
    u64: npt.NDArray[np.uint64],
    u32: U32,
    first: int,
    available: int,
    intact: bool,
    tables: _Tables,
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
            if q + length + _FRAMING > available:
                if not intact:
                    return FOUND, q
                continue
            if q + length + _FRAMING > n:
                return UNDECIDED, q
            data = view[q + HEADER_SIZE : q + HEADER_SIZE + length]
            if _masked_crc(data) == int(u32[q + HEADER_SIZE + length]):
                return FOUND, q
        start = stop
    return NONE, 0


# --- data CRCs ---------------------------------------------------------------------------------------------
def _bad_data_crcs(arr: U8, hoff: I64, dlen: I64, corrupt: list[tuple[int, str]], end: int, tables: _Tables) -> I64:
    """Indices (into hoff) of the records whose data CRC does not match."""
    chained = arr[:end].copy()
    c32 = _u32_at_every_byte(chained)
    stored = _u32_at_every_byte(arr)[hoff + (HEADER_SIZE + dlen)]
    zeros = tables.zeros[np.minimum(dlen, _SMALL - 1)]
    big = np.flatnonzero(dlen >= _SMALL)
    if len(big):
        zeros[big] = [_zeros_register(length) for length in dlen[big].tolist()]
    # raw register of data from 0 = ~crc32c(data) ^ zeros[len]; writing it after the data zeroes the register.
    c32[hoff + (HEADER_SIZE + dlen)] = ~_unmask(stored) ^ zeros
    _u64_at_every_byte(chained)[hoff] = 0  # headers were checked while framing: out of the chain
    c32[hoff + 8] = 0
    for offset, _ in corrupt:  # the bytes skipped after a bad length CRC: out of the chain
        if offset < end:
            following = int(np.searchsorted(hoff, offset))
            stop = int(hoff[following]) if following < len(hoff) else end
            chained[offset:stop] = 0
    view = memoryview(chained)  # type: ignore[arg-type]
    record_end = hoff + dlen + _FRAMING

    # A chain of records checks out as a whole, or is halved until the bad records are found. Iterative on
    # purpose: a recursive closure is a reference cycle that would keep this chunk's buffers alive until the
    # garbage collector runs (tens of MB on a large file).
    bad: list[int] = []
    bounds = [*np.searchsorted(hoff, np.arange(0, end, _CHECK_RUN_BYTES)).tolist(), len(hoff)]
    pending = [(first, last) for first, last in itertools.pairwise(bounds) if first < last]
    while pending:
        first, last = pending.pop()
        if _crc32c(view[int(hoff[first]) : int(record_end[last - 1])], _U32) == _U32:
            continue
        if last - first == 1:
            bad.append(first)
            continue
        middle = (first + last) // 2
        pending += [(middle, last), (first, middle)]  # first half popped first: bad records stay in order
    return np.array(bad, dtype=np.int64)


# --- scalar events -----------------------------------------------------------------------------------------
def _field_with_length(total: int) -> int | None:
    """The length L such that a 1-byte key, varint(L) and L bytes take ``total`` bytes."""
    for size in range(1, 4):
        length = total - 1 - size
        if length >= 0 and len(_varint(length)) == size:
            return length
    return None


@functools.lru_cache(maxsize=4096)
def _summary_layout(rest: int) -> tuple[U8, int] | None:
    """For a summary field that takes the last ``rest`` bytes of a scalar Event: its bytes up to the tag (key
    and length of the summary, the value and the tag), and the tag's length. None if no such layout exists."""
    summary = _field_with_length(rest)
    value = None if summary is None else _field_with_length(summary)
    tag = None if value is None else _field_with_length(value - 5)
    if summary is None or value is None or tag is None:
        return None
    head = b"\x2a" + _varint(summary) + b"\x0a" + _varint(value) + b"\x0a" + _varint(tag)
    return np.frombuffer(head, dtype=np.uint8), tag


class _Scalars:
    """Fast-path results, gathered group by group, indexed by record number."""

    def __init__(self, count: int) -> None:
        self.is_scalar = np.zeros(count, dtype=bool)
        self.tag_index = np.empty(count, dtype=np.int32)
        self.step = np.empty(count, dtype=np.int64)
        self.wall_time = np.empty(count, dtype=np.float64)
        self.value = np.empty(count, dtype=np.float64)
        self.tags: list[str] = []
        self.tag_numbers: dict[str, int] = {}

    def tag_number(self, tag: str) -> int:
        number = self.tag_numbers.get(tag)
        if number is None:
            number = self.tag_numbers[tag] = len(self.tags)
            self.tags.append(tag)
        return number


def _decode(arr: U8, hoff: I64, dlen: I64, end: int, corrupt: list[tuple[int, str]]) -> Raw:
    count = len(hoff)
    out = _Scalars(count)
    if count:
        data = hoff + HEADER_SIZE
        # Records by data length; length 0 stands for every record too short or too long to be a scalar.
        lengths = np.where((dlen >= _MIN_SCALAR) & (dlen <= _MAX_SCALAR), dlen, 0).astype(np.uint16)
        by_length = np.argsort(lengths, kind="stable")
        counts = np.bincount(lengths)
        bounds = np.cumsum(counts).tolist()
        for length in np.flatnonzero(counts[_MIN_SCALAR:]).tolist():
            length += _MIN_SCALAR
            group = by_length[bounds[length] - counts[length] : bounds[length]]
            _decode_group(_rows(arr, data, group, length), length, group, out)
    scalar = np.flatnonzero(out.is_scalar)
    other = np.flatnonzero(~out.is_scalar)
    # Group the scalars by tag as the core does: tags numbered in the order they first appear, each tag's scalars
    # together and in record order.
    by_number = np.argsort(out.tag_index[scalar], kind="stable")
    numbers, starts = np.unique(out.tag_index[scalar][by_number], return_index=True)
    first_seen = np.argsort(by_number[starts], kind="stable")  # by_number[starts]: each number's first scalar
    renumber = np.empty(len(out.tags), dtype=np.int32)
    renumber[numbers[first_seen]] = np.arange(len(first_seen), dtype=np.int32)
    tags = [out.tags[number] for number in numbers[first_seen].tolist()]
    tag_index = renumber[out.tag_index[scalar]]
    grouped = scalar[np.argsort(tag_index, kind="stable")]
    tag_bounds = np.zeros(len(tags) + 1, dtype=np.int64)
    np.cumsum(np.bincount(tag_index, minlength=len(tags)), out=tag_bounds[1:])
    return (
        end,
        tags,
        corrupt,
        renumber[out.tag_index[grouped]],
        out.step[grouped],
        out.wall_time[grouped],
        out.value[grouped],
        grouped.astype(np.int64),
        hoff[other] + HEADER_SIZE,
        dlen[other],
        other.astype(np.int64),
        tag_bounds,
    )


def _rows(arr: U8, data: I64, group: npt.NDArray[np.intp], length: int) -> U8:
    """The data of the records ``group`` (all ``length`` bytes long) as an (n, length) matrix."""
    first, last = int(data[group[0]]), int(data[group[-1]])
    stride = length + _FRAMING
    if last - first == stride * (len(group) - 1):  # consecutive records: a view, no copy
        return np.lib.stride_tricks.as_strided(
            arr[first:], shape=(len(group), length), strides=(stride, 1), writeable=False
        )
    return sliding_window_view(arr, length)[data[group]]


def _layout_of(row: bytes) -> tuple[int, int] | None:
    """(where the step field would start: 9 after a wall_time, else 0; the step varint's size, 0 for no step)
    of one record's data, or None if its step varint is not a valid one."""
    start = 9 if row[0] == 0x09 else 0
    if start >= len(row) or row[start] != 0x10:
        return start, 0
    for size, byte in enumerate(row[start + 1 : start + 11], 1):
        if byte < 0x80:
            return start, size
    return None


def _decode_group(matrix: U8, length: int, group: npt.NDArray[np.intp], out: _Scalars) -> None:
    """Decode the rows of ``matrix`` (records ``group``, all ``length`` bytes) that are scalar Events."""
    # Most groups hold one layout: try the first row's on all rows, and again on the rows left over.
    for _ in range(4):
        layout = _layout_of(matrix[0].tobytes())
        if layout is None:
            break
        matched = _decode_layout(matrix, group, length, *layout, out)
        if not matched[0]:  # the first row is no scalar Event
            break
        if matched.all():
            return
        if matched.any():
            matrix, group = matrix[~matched], group[~matched]
    # Many layouts: work out each row's.
    has_wall = matrix[:, 0] == 0x09
    for start in (9, 0):
        select = has_wall if start else ~has_wall
        if not select.any():
            continue
        sub, rows = (matrix, group) if select.all() else (matrix[select], group[select])
        has_step = sub[:, start] == 0x10
        # The step varint's size (1..10 bytes); 0 where there is no step field, -1 where its varint is bad.
        ends = sub[:, start + 1 : min(start + 11, length)] < 0x80  # length >= _MIN_SCALAR > start + 1
        size = np.where(ends.any(axis=1), np.argmax(ends, axis=1) + 1, -1)
        key = np.where(has_step, size, 0)
        for step_size in np.unique(key).tolist():
            if step_size >= 0:
                select = key == step_size
                _decode_layout(sub[select], rows[select], length, start, step_size, out)


def _decode_layout(
    sub: U8, rows: npt.NDArray[np.intp], length: int, start: int, step_size: int, out: _Scalars
) -> npt.NDArray[np.bool_]:
    """Decode the rows that are scalar Events laid out as: a wall_time iff ``start`` is 9, a step varint of
    ``step_size`` bytes (0: no step field). Returns which rows have that layout (including the few of them
    whose tag is not UTF-8, left to the slow path)."""
    summary_at = start + (1 + step_size if step_size else 0)
    layout = _summary_layout(length - summary_at)
    if layout is None:
        return np.zeros(len(sub), dtype=bool)
    head, tag_length = layout
    tag_at = summary_at + len(head)
    ok = sub[:, 0] == 0x09 if start else sub[:, 0] != 0x09
    if step_size:
        ok &= sub[:, start] == 0x10
        for column in range(start + 1, start + step_size):
            ok &= sub[:, column] >= 0x80
        ok &= sub[:, start + step_size] < (0x80 if step_size < 10 else 2)  # bits past 64: left to protobuf
    for column, byte in enumerate(head.tolist(), summary_at):
        ok &= sub[:, column] == byte
    ok &= sub[:, length - 5] == 0x15
    matched = ok
    if not ok.any():
        return matched
    if not ok.all():
        sub, rows = sub[ok], rows[ok]
    tag_numbers, valid = _tag_numbers(sub, tag_at, tag_length, out)
    if not valid.all():
        sub, rows, tag_numbers = sub[valid], rows[valid], tag_numbers[valid]
        if not len(rows):
            return matched
    if step_size:
        step = (sub[:, start + 1] & 0x7F).astype(np.uint64)
        for k in range(1, step_size):
            step |= (sub[:, start + 1 + k] & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        out.step[rows] = step.view(np.int64)
    else:
        out.step[rows] = 0
    out.wall_time[rows] = sub[:, 1:9].view("<f8")[:, 0] if start else 0.0
    with np.errstate(invalid="ignore"):  # a signalling NaN turns quiet, as protobuf's C cast does
        out.value[rows] = sub[:, length - 4 : length].view("<f4")[:, 0]
    out.tag_index[rows] = tag_numbers
    out.is_scalar[rows] = True
    return matched


_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_FEW_ROWS = 128


def _tag_numbers(sub: U8, tag_at: int, size: int, out: _Scalars) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_]]:
    """The global tag number of the tag in columns ``tag_at:tag_at + size`` of each row, and whether the tag is
    valid UTF-8. The bytes before ``tag_at`` must be the same in every row."""
    count = len(sub)
    if size == 0:
        return np.full(count, out.tag_number(""), dtype=np.int32), np.ones(count, dtype=bool)
    if count <= _FEW_ROWS:  # a dict costs less than the arrays below
        raw = np.ascontiguousarray(sub[:, tag_at : tag_at + size]).tobytes()
        known: dict[bytes, int] = {}
        listed = []
        for at in range(0, count * size, size):
            key = raw[at : at + size]
            number = known.get(key)
            if number is None:
                try:
                    number = known[key] = out.tag_number(key.decode("utf-8"))
                except UnicodeDecodeError:
                    number = known[key] = -1
            listed.append(number)
        numbers = np.array(listed, dtype=np.int32)
        return numbers, numbers >= 0
    # The tag as 64-bit words, read in place: whole words from its start, then the 8 bytes that end it (which
    # reach back into the previous word, or into the equal bytes before the tag). Equal words, equal tags.
    if tag_at + size >= 8:
        starts = [*range(tag_at, tag_at + size - 8, 8), tag_at + size - 8]
        words = [np.ascontiguousarray(sub[:, at : at + 8].view("<u8")[:, 0]) for at in starts]
    else:
        padded = np.zeros((count, 8), dtype=np.uint8)
        padded[:, :size] = sub[:, tag_at : tag_at + size]
        words = [padded.view("<u8")[:, 0]]
    hashed = words[0] * _HASH_MULTIPLIER
    for word in words[1:]:
        hashed += word
        hashed *= _HASH_MULTIPLIER
    bucket = (hashed >> np.uint64(48)).astype(np.intp)
    first_row = np.full(1 << 16, -1, dtype=np.intp)
    first_row[bucket] = np.arange(count, dtype=np.intp)  # any row of a bucket will do as its representative
    representative = first_row[bucket]
    same = np.ones(count, dtype=bool)
    for word in words:
        same &= word[representative] == word
    if same.all():
        distinct = first_row[first_row >= 0]
    else:  # two tags in one bucket: sort it out exactly (slower, and rare)
        keys = np.ascontiguousarray(sub[:, tag_at : tag_at + size]).view(np.dtype((np.void, size)))[:, 0]
        _, distinct, inverse = np.unique(keys, return_index=True, return_inverse=True)
        representative = distinct[inverse.reshape(-1)]
    lookup = np.empty(count, dtype=np.int32)
    for row in distinct.tolist():
        try:
            tag = sub[row, tag_at : tag_at + size].tobytes().decode("utf-8")
        except UnicodeDecodeError:
            lookup[row] = -1
            continue
        lookup[row] = out.tag_number(tag)
    numbers = lookup[representative]
    valid = numbers >= 0
    return numbers, valid
