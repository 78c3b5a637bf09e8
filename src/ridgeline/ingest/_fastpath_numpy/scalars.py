"""Scalar events in the numpy record loop: the records that are scalar Events decoded to step, wall time, value
and tag in bulk; the others left to the slow path.

Records are grouped by data length; each group is one (n, L) byte matrix (a view when its records are
consecutive). A layout (wall_time present or not, size of the step varint) puts every byte of the pattern at a
fixed column, so checking the pattern and extracting step, wall time and value take a handful of whole-column
numpy operations. The first row's layout is tried on all rows at once, then again on the rows left over; a
group of many layouts has each row's worked out. Tags: in a large group each row's tag is hashed into a bucket
and compared byte for byte with the bucket's representative (a collision costs time, never a wrong tag); a
small group uses a dict. Each distinct tag is decoded once.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from ridgeline.format.records import HEADER_SIZE
from ridgeline.format.wire import encode_varint as _varint
from ridgeline.ingest._fastpath_numpy.buffers import FRAMING, I64, U8

_MIN_SCALAR = 11  # 2a L1 0a L2 0a 00 15 f32: the shortest scalar Event (no wall_time, no step, empty tag)
_MAX_SCALAR = 4096  # longer records (tags over 4,000 bytes) always take the slow path

Raw = tuple[int, list[str], list[tuple[int, str]], Any, Any, Any, Any, Any, Any, Any, Any, Any]
"""(end, tags, corrupt, tag_index, step, wall_time, value, scalar_order, other_offsets, other_lengths,
other_order, tag_bounds): what both implementations return, in the order of the compiled core's tuple."""


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


def decode_records(arr: U8, hoff: I64, dlen: I64, end: int, corrupt: list[tuple[int, str]]) -> Raw:
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
    stride = length + FRAMING
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
