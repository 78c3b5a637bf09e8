"""Cheap lossless encodings of the store's step and wall-time columns: runs of constant stride, and deltas.

A column of int64 numbers (steps, or wall times as the bits of their float64) is written as *chunks*, one per
flush, each a self-describing little-endian block::

    int64 pieces, int64 payload bytes          the chunk's header
    PIECE x pieces                             (first, count, base, stride, offset, kind)
    payload                                    int32 deltas, or raw int64 values

Each piece covers ``count`` consecutive points starting at point ``first`` of the series:

* ``RUN``: ``base + stride * i`` (a constant stride: steps 0, 1, 2, ... or 0, 10, 20, ...); no payload at all;
* ``DELTA8``, ``DELTA16``, ``DELTA32``: ``base`` then ``count - 1`` differences as int8, int16 or int32, the
  narrowest that holds them (steps a few apart: 1 byte; wall times a few seconds apart are a few million ulps
  apart: 4 bytes, not 8);
* ``RAW``: ``count`` int64 values, where differences do not fit 32 bits.

Arithmetic wraps modulo 2**64 on the way in and on the way out, so every int64 column, wall times of any sign
included, comes back bit for bit. Pieces of deltas or raw values hold at most :data:`PIECE_POINTS` points, so
finding or reading a few points (a reduced chart's kept points, a step's position) decodes a few small pieces,
never the column.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

PIECE = np.dtype(
    [("first", "<i8"), ("count", "<i8"), ("base", "<i8"), ("stride", "<i8"), ("offset", "<i8"), ("kind", "<i8")]
)
HEADER = np.dtype([("pieces", "<i8"), ("payload", "<i8")])
RUN, DELTA32, RAW, DELTA8, DELTA16 = 0, 1, 2, 3, 4
DELTA_DTYPES: dict[int, np.dtype[Any]] = {DELTA8: np.dtype("<i1"), DELTA16: np.dtype("<i2"), DELTA32: np.dtype("<i4")}
MIN_RUN = 16  # a constant stride shorter than this is left to the deltas
PIECE_POINTS = 257  # 256 deltas: a whole piece's are a multiple of 8 bytes, so a run of pieces is one array


def encode(values: np.ndarray, first: int) -> bytes:
    """One chunk holding ``values`` (int64), points ``first`` onwards of their series."""
    x = np.ascontiguousarray(values, dtype="<i8")
    n = len(x)
    pieces: list[tuple[int, int, int, int, int, int]] = []
    payload: list[bytes] = []
    written = 0
    if n == 0:
        return _chunk(pieces, payload)
    with np.errstate(over="ignore"):
        d = np.diff(x)  # wraps: decoding wraps back the same way
    for start, end in _runs(d):
        # Two runs that meet share their boundary point (steps 0..20 by 1, then 22, 24, ...: point 20 ends the
        # first and starts the second); it stays with the first, so that the pieces tile the column.
        start = max(start, written)
        _delta_pieces(x, d, written, start, first, pieces, payload)
        pieces.append((first + start, end - start, int(x[start]), int(d[start]), -1, RUN))
        written = end
    _delta_pieces(x, d, written, n, first, pieces, payload)
    return _chunk(pieces, payload)


def _runs(d: np.ndarray) -> list[tuple[int, int]]:
    """``(start, end)`` point ranges of constant stride at least :data:`MIN_RUN` points long, ascending."""
    if len(d) < MIN_RUN - 1:
        return []
    if d[0] == d[-1] and (d == d[0]).all():  # one stride throughout (steps 0, 1, 2, ...): the common case
        return [(0, len(d) + 1)]
    differs = d[1:] != d[:-1]
    if len(differs) - np.count_nonzero(differs) < MIN_RUN - 2:  # too few equal neighbours for any run
        return []
    change = np.flatnonzero(differs) + 1  # d[change] starts a new stride
    begins = np.concatenate(([0], change))
    ends = np.append(change, len(d))  # deltas begins..ends-1 are equal: points begins..ends
    long = (ends - begins + 1) >= MIN_RUN
    return [(int(b), int(e) + 1) for b, e in zip(begins[long], ends[long], strict=True)]


def _delta_pieces(
    x: np.ndarray,
    d: np.ndarray,
    start: int,
    end: int,
    first: int,
    pieces: list[tuple[int, int, int, int, int, int]],
    payload: list[bytes],
) -> None:
    """Points ``start`` to ``end`` as pieces of at most :data:`PIECE_POINTS` points: each one's deltas in the
    narrowest of int8/16/32 that holds them, or raw. The widths of all the pieces are found at once (a 1M-point
    series is 3,900 pieces: one Python step and two numpy reductions each were most of its encoding)."""
    if end <= start:
        return
    offset = sum(len(part) for part in payload)
    begins = np.arange(start, end, PIECE_POINTS, dtype=np.int64)
    counts = np.minimum(begins + PIECE_POINTS, end) - begins
    deltas = d[start : end - 1]
    # Piece i's deltas are deltas[at[i] : at[i] + counts[i] - 1]; reduceat also takes the one after them (between
    # two pieces), so that one is neutralised, and one neutral more at the end stands in for a piece of one point.
    at = begins - start
    top, bottom = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    lows, highs = np.append(deltas, top), np.append(deltas, bottom)
    lows[at[1:] - 1], highs[at[1:] - 1] = top, bottom
    low = np.minimum.reduceat(lows, at)
    high = np.maximum.reduceat(highs, at)
    single = counts == 1
    low[single], high[single] = 0, 0
    kinds = np.full(len(begins), RAW, dtype=np.int64)
    for kind, dtype in reversed(DELTA_DTYPES.items()):  # the narrowest that holds them wins: DELTA8 last
        least, most = _BOUNDS[dtype]
        kinds[(least <= low) & (high <= most)] = kind
    views = {kind: deltas.astype(dtype).tobytes() for kind, dtype in DELTA_DTYPES.items() if (kinds == kind).any()}
    raw = x[start:end].tobytes() if (kinds == RAW).any() else b""
    for begin, count, kind in zip(at.tolist(), counts.tolist(), kinds.tolist(), strict=True):
        if kind == RAW:
            data = raw[begin * 8 : (begin + count) * 8]
        else:
            width = DELTA_DTYPES[kind].itemsize
            data = views[kind][begin * width : (begin + count - 1) * width]
        pieces.append((first + start + begin, count, int(x[start + begin]), 0, offset, kind))
        data += _ZEROS[: -len(data) % 8]  # every payload 8-byte aligned: the column is viewed as int8..int64
        payload.append(data)
        offset += len(data)


_BOUNDS = {dtype: (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)) for dtype in DELTA_DTYPES.values()}


def _fits(dtype: np.dtype[Any], low: int, high: int) -> bool:
    bottom, top = _BOUNDS[dtype]
    return bottom <= low and high <= top


def _chunk(pieces: list[tuple[int, int, int, int, int, int]], payload: list[bytes]) -> bytes:
    body = b"".join(payload)
    header = np.array([(len(pieces), len(body))], dtype=HEADER).tobytes()
    return header + np.array(pieces, dtype=PIECE).tobytes() + body


class Column:
    """The pieces of an encoded column's chunks (``data``, read-only bytes or a mapping), and reads of them."""

    __slots__ = ("_data", "bases", "counts", "firsts", "kinds", "length", "offsets", "strides")

    def __init__(self, data: np.ndarray) -> None:
        """``data``: the column's bytes as uint8 (raises ValueError when they are not chunks)."""
        self._data = data
        found = []
        at = 0
        size = len(data)
        while at < size:
            if at + HEADER.itemsize > size:
                raise ValueError("truncated chunk header")
            header = np.frombuffer(data, HEADER, 1, at)[0]
            count, payload = int(header["pieces"]), int(header["payload"])
            table = at + HEADER.itemsize
            body = table + count * PIECE.itemsize
            end = body + payload
            if count < 0 or payload < 0 or payload % 8 or end > size:
                raise ValueError("chunk past the end of the column")
            pieces = np.frombuffer(data, PIECE, count, table).copy()
            pieces["offset"] = np.where(pieces["kind"] == RUN, -1, pieces["offset"] + body)
            found.append(pieces)
            at = end
        pieces = np.concatenate(found) if found else np.zeros(0, dtype=PIECE)
        self.firsts = pieces["first"]
        self.counts = pieces["count"]
        self.bases = pieces["base"]
        self.strides = pieces["stride"]
        self.offsets = pieces["offset"]
        self.kinds = pieces["kind"]
        self.length = int(self.firsts[-1] + self.counts[-1]) if len(pieces) else 0
        if len(pieces) and (
            self.firsts[0] != 0
            or (self.firsts[1:] != self.firsts[:-1] + self.counts[:-1]).any()
            or (self.counts <= 0).any()
            or not np.isin(self.kinds, (RUN, RAW, *DELTA_DTYPES)).all()
            or (self.offsets[self.kinds != RUN] + self._payload_sizes()[self.kinds != RUN] > size).any()
        ):
            raise ValueError("pieces do not tile the column")

    def _payload_sizes(self) -> np.ndarray:
        widths = np.select([self.kinds == k for k in DELTA_DTYPES], [t.itemsize for t in DELTA_DTYPES.values()], 8)
        return np.where(self.kinds == RAW, self.counts * 8, (self.counts - 1) * widths)

    def piece(self, number: int) -> np.ndarray:
        """Every value of one piece (int64)."""
        count, base, kind = int(self.counts[number]), int(self.bases[number]), int(self.kinds[number])
        with np.errstate(over="ignore"):
            if kind == RUN:
                return np.int64(base) + np.int64(self.strides[number]) * np.arange(count, dtype=np.int64)
            offset = int(self.offsets[number])
            if kind == RAW:
                return np.frombuffer(self._data, "<i8", count, offset).astype(np.int64)
            out = np.empty(count, dtype=np.int64)
            out[0] = base
            deltas = np.frombuffer(self._data, DELTA_DTYPES[kind], count - 1, offset)
            np.cumsum(deltas, dtype=np.int64, out=out[1:])
            out[1:] += np.int64(base)
            return out

    def decode(self, start: int = 0, end: int | None = None) -> np.ndarray:
        """Points ``start`` to ``end`` (int64, a new array). Consecutive whole pieces of deltas of one width lie
        end to end: they are decoded together, as one 2-D cumulative sum (a chunk's worth at a time)."""
        end = self.length if end is None else end
        out = np.empty(max(end - start, 0), dtype=np.int64)
        if end <= start:
            return out
        first = int(np.searchsorted(self.firsts, start, side="right")) - 1
        last = int(np.searchsorted(self.firsts, end - 1, side="right")) + 0
        number = first
        while number < last:
            group = self._group(number, last)
            begin = int(self.firsts[number])
            values = self.piece(number) if group == 1 else self._pieces(number, group)
            lo, hi = max(start, begin), min(end, begin + len(values))
            out[lo - start : hi - start] = values[lo - begin : hi - begin]
            number += group
        return out

    def _group(self, number: int, last: int) -> int:
        """How many pieces from ``number`` (before ``last``) are whole pieces of deltas of one width, end to end."""
        kind = int(self.kinds[number])
        if kind not in DELTA_DTYPES or int(self.counts[number]) != PIECE_POINTS:
            return 1
        size = (PIECE_POINTS - 1) * DELTA_DTYPES[kind].itemsize
        kinds, counts, offsets = self.kinds[number:last], self.counts[number:last], self.offsets[number:last]
        fits = (kinds == kind) & (counts == PIECE_POINTS) & (offsets == offsets[0] + size * np.arange(len(kinds)))
        return int(np.argmin(fits)) if not fits.all() else len(kinds)

    def _pieces(self, number: int, group: int) -> np.ndarray:
        dtype = DELTA_DTYPES[int(self.kinds[number])]
        width = PIECE_POINTS - 1
        start = int(self.offsets[number]) // dtype.itemsize
        deltas = self._view(dtype)[start : start + group * width].reshape(group, width)
        values = np.empty((group, PIECE_POINTS), dtype=np.int64)
        values[:, 0] = self.bases[number : number + group]
        with np.errstate(over="ignore"):
            np.cumsum(deltas, axis=1, dtype=np.int64, out=values[:, 1:])
            values[:, 1:] += values[:, :1]
        return values.reshape(-1)

    def gather(self, indices: np.ndarray) -> np.ndarray:
        """The values at ``indices`` (ascending point numbers), without a Python step per point or per piece:
        arithmetic for runs, a read for raw values, and for deltas a sum of at most ``PIECE_POINTS - 1`` of them
        per point, all at once over the column viewed as int8/16/32."""
        indices = np.asarray(indices, dtype=np.int64)
        out = np.empty(len(indices), dtype=np.int64)
        if not len(indices):
            return out
        which = np.searchsorted(self.firsts, indices, side="right") - 1
        kinds, local = self.kinds[which], indices - self.firsts[which]
        with np.errstate(over="ignore"):
            runs = kinds == RUN
            out[runs] = self.bases[which[runs]] + self.strides[which[runs]] * local[runs]
            raw = kinds == RAW
            out[raw] = self._view(np.dtype("<i8"))[self.offsets[which[raw]] // 8 + local[raw]]
            for kind, dtype in DELTA_DTYPES.items():
                mine = np.flatnonzero(kinds == kind)
                out[mine] = self.bases[which[mine]]  # the first point of a piece is its base
                mine = mine[local[mine] > 0]
                if not len(mine):
                    continue
                view = self._view(dtype)
                begin = self.offsets[which[mine]] // dtype.itemsize
                span = np.arange(int(local[mine].max()))
                taken = span < local[mine, None]
                deltas = view[np.where(taken, begin[:, None] + span, 0)]
                out[mine] += np.where(taken, deltas, 0).sum(axis=1, dtype=np.int64)
        return out

    def _view(self, dtype: np.dtype[Any]) -> np.ndarray:
        return np.frombuffer(self._data, dtype, len(self._data) // dtype.itemsize)

    def searchsorted(self, values: np.ndarray, side: str = "left") -> np.ndarray:
        """``numpy.searchsorted`` over the whole column, for an ascending column (steps), without decoding it."""
        queries = np.asarray(values, dtype=np.int64)
        out = np.zeros(len(queries), dtype=np.int64)
        if not self.length or not len(queries):
            return out
        # The piece that may hold the answer: the last whose first value is below (left) / at most (right) it.
        which = np.searchsorted(self.bases, queries, side="left" if side == "left" else "right") - 1
        inside = which >= 0
        for number in np.unique(which[inside]).tolist():
            mine = which == number
            begin, count = int(self.firsts[number]), int(self.counts[number])
            if int(self.kinds[number]) == RUN and int(self.strides[number]) > 0:
                base, stride = int(self.bases[number]), int(self.strides[number])
                local = [min(max(_run_position(q - base, stride, side), 0), count) for q in queries[mine].tolist()]
                out[mine] = begin + np.asarray(local, dtype=np.int64)
            else:
                out[mine] = begin + np.searchsorted(self.piece(number), queries[mine], side=side)  # type: ignore[call-overload]
        return out


def _run_position(offset: int, stride: int, side: str) -> int:
    """How many of ``0, stride, 2 * stride, ...`` are below (left) / at most (right) ``offset`` (Python ints)."""
    if side == "left":
        return -(-offset // stride)
    return offset // stride + 1


_ONE_PIECE = struct.Struct("<qq6q")  # a chunk's header and its one piece
_NO_PIECES = struct.pack("<qq", 0, 0)
_ZEROS = bytes(8)
_GENERAL = -1  # a column encode_many leaves to encode


def encode_many(columns: list[np.ndarray]) -> list[bytes]:
    """``[encode(column, 0) for column in columns]``, the same bytes, for many columns at once (the steps or wall
    times of every short series a pass writes: one call per series was most of a first pass over 10,000 series).
    A column that is one constant stride, or has no run of constant stride in it (pieces of deltas or raw values
    only: irregular wall times), is encoded from numpy reductions over all the columns' pieces together; any
    other goes through :func:`encode`."""
    if not columns:
        return []
    lengths = np.fromiter((len(column) for column in columns), dtype=np.int64, count=len(columns))
    x = np.ascontiguousarray(np.concatenate([np.asarray(column, dtype="<i8") for column in columns]), dtype="<i8")
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    with np.errstate(over="ignore"):
        # d[i] = x[i+1] - x[i], and one more (masked) so that every column's deltas and the one after its last
        # point lie in d: the deltas of column k are d[starts[k] : starts[k] + n - 1]
        d = np.empty(max(len(x), 1), dtype=np.int64)  # np.append(np.diff(x), 0), one allocation and one pass
        d[-1] = 0
        np.subtract(x[1:], x[:-1], out=d[: len(x) - 1] if len(x) else d[:0])
    inside = np.ones(len(d), dtype=bool)  # a delta between two points of one column
    inside[(starts + lengths - 1)[lengths > 0]] = False
    top, bottom = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    lows, highs = np.where(inside, d, top), np.where(inside, d, bottom)
    at = np.minimum(starts, len(d) - 1)  # reduceat: column k reduces d[at[k] : at[k + 1]]
    low = np.minimum.reduceat(lows, at)
    constant = (lengths >= MIN_RUN) & (low == np.maximum.reduceat(highs, at))
    general = _has_run(d, inside, starts, lengths) & ~constant
    pieces, tables, payloads = _pieces_of(x, d, lows, highs, starts, lengths, ~constant & ~general & (lengths > 0))
    bases = x[np.minimum(starts, max(len(x) - 1, 0))].tolist() if len(x) else [0] * len(columns)
    out: list[bytes] = []
    for k, (n, begin, base, stride) in enumerate(
        zip(lengths.tolist(), starts.tolist(), bases, low.tolist(), strict=True)
    ):
        if n == 0:
            out.append(_NO_PIECES)
        elif constant[k]:
            out.append(_ONE_PIECE.pack(1, 0, 0, n, base, stride, -1, RUN))
        elif general[k]:
            out.append(encode(x[begin : begin + n], 0))
        else:
            payload = payloads[k]
            out.append(_HEADER.pack(pieces[k], len(payload)) + tables[k] + payload)
    return out


_HEADER = struct.Struct("<qq")


def _pieces_of(
    x: np.ndarray,
    d: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    chosen: np.ndarray,
) -> tuple[dict[int, int], dict[int, bytes], dict[int, bytes]]:
    """For each ``chosen`` column (see :func:`encode_many`): how many pieces, its piece table's bytes and its
    payload, as :func:`encode` writes them for a column without runs (pieces of :data:`PIECE_POINTS` points)."""
    columns = np.flatnonzero(chosen)
    if not len(columns):
        return {}, {}, {}
    counts_per = (lengths[columns] + PIECE_POINTS - 1) // PIECE_POINTS
    owner = np.repeat(np.arange(len(columns)), counts_per)
    first_piece = np.cumsum(counts_per) - counts_per
    local = (np.arange(len(owner)) - first_piece[owner]) * PIECE_POINTS
    begin = starts[columns][owner] + local
    count = np.minimum(PIECE_POINTS, lengths[columns][owner] - local)
    # Each piece's deltas are d[begin : begin + count - 1]: the one after them is neutralised, and reduceat's
    # ranges are cut at every other column's start too (so none reaches into a column not chosen).
    lows, highs = lows.copy(), highs.copy()
    lows[begin + count - 1], highs[begin + count - 1] = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    cuts = np.union1d(begin, starts[~chosen & (lengths > 0)])
    where = np.searchsorted(cuts, begin)
    low, high = np.minimum.reduceat(lows, cuts)[where], np.maximum.reduceat(highs, cuts)[where]
    low[count == 1], high[count == 1] = 0, 0
    kinds = np.full(len(begin), RAW, dtype=np.int64)
    for kind, dtype in reversed(DELTA_DTYPES.items()):  # the narrowest that holds them wins: DELTA8 last
        least, most = _BOUNDS[dtype]
        kinds[(least <= low) & (high <= most)] = kind
    widths = np.select([kinds == kind for kind in DELTA_DTYPES], [t.itemsize for t in DELTA_DTYPES.values()], 8)
    sizes = np.where(kinds == RAW, count * 8, (count - 1) * widths)
    padded = sizes + (-sizes % 8)
    ends = np.cumsum(padded)
    offsets = ends - padded - (ends - padded)[first_piece][owner]
    table = np.zeros(len(begin), dtype=PIECE)
    table["first"], table["count"], table["base"] = local, count, x[begin]
    table["offset"], table["kind"] = offsets, kinds
    table_bytes = table.tobytes()
    views = {kind: d.astype(dtype).tobytes() for kind, dtype in DELTA_DTYPES.items() if (kinds == kind).any()}
    views[RAW] = x.tobytes() if (kinds == RAW).any() else b""
    parts: list[list[bytes]] = [[] for _ in columns]
    for number, start, size, total, kind in zip(
        owner.tolist(), begin.tolist(), sizes.tolist(), padded.tolist(), kinds.tolist(), strict=True
    ):
        width = 8 if kind == RAW else DELTA_DTYPES[kind].itemsize
        parts[number].append(views[kind][start * width : start * width + size] + _ZEROS[: total - size])
    pieces = dict(zip(columns.tolist(), counts_per.tolist(), strict=True))
    tables = {
        column: table_bytes[first * PIECE.itemsize : (first + many) * PIECE.itemsize]
        for column, first, many in zip(columns.tolist(), first_piece.tolist(), counts_per.tolist(), strict=True)
    }
    payloads = {column: b"".join(part) for column, part in zip(columns.tolist(), parts, strict=True)}
    return pieces, tables, payloads


def _has_run(d: np.ndarray, inside: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per column (see :func:`encode_many`), whether it holds a run of constant stride :func:`encode` would keep:
    :data:`MIN_RUN` points, i.e. ``MIN_RUN - 2`` pairs of equal neighbouring deltas in a row (no pair spans two
    columns: the delta between them is not inside either)."""
    equal = np.zeros(len(d), dtype=bool)  # equal[i]: deltas i and i + 1 are equal, in one column
    equal[:-1] = (d[1:] == d[:-1]) & inside[1:] & inside[:-1]
    breaks = np.concatenate(([-1], np.flatnonzero(~equal), [len(d)]))
    long = np.flatnonzero(np.diff(breaks) - 1 >= MIN_RUN - 2)  # equal pairs breaks[i] + 1 .. breaks[i + 1] - 1
    out = np.zeros(len(lengths), dtype=bool)
    if len(long):
        out[np.searchsorted(starts, breaks[long] + 1, side="right") - 1] = True
    return out
