"""Reducing a series to what a chart of a given width can show, without hiding a spike.

:func:`minmax_indices` splits the step range into equal buckets (about one per pair of pixels) and keeps, per
bucket, the points with the lowest and the highest value, in step order, plus the first and the last point of
the series. Every local extreme that a pixel column could show survives, which a plain stride or an average
would lose. NaN and infinite values are kept too (one of each kind per bucket), so a divergence stays visible.

:func:`reduce_indexed` gives the same answer for a long series of the on-disk store from its level-of-detail
pyramid (``ridgeline.store.lod``, seen through the :class:`Indexed` protocol: analysis imports no store),
reading O(buckets x levels) blocks and points instead of every point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True, slots=True)
class Reduction:
    """What :func:`reduce_series` kept: ``indices`` (ascending) and, per kept point, the lowest and highest finite
    value of the bucket it stands for (NaN where the bucket holds no finite value): a chart draws the band."""

    indices: np.ndarray
    band_low: np.ndarray
    band_high: np.ndarray


def reduce_series(step: np.ndarray, value: np.ndarray, max_points: int) -> Reduction | None:
    """:func:`minmax_indices` plus each kept point's bucket extent; None when the series fits in ``max_points``."""
    buckets = _buckets_over(step, value, max_points)
    if buckets is None:
        return None
    rank = buckets.rank_of(buckets.indices)
    low, high = buckets.low[rank], buckets.high[rank]
    return Reduction(
        buckets.indices, np.where(np.isfinite(low), low, np.nan), np.where(np.isfinite(high), high, np.nan)
    )


def reduce_with_envelope(
    step: np.ndarray, value: np.ndarray, low: np.ndarray, high: np.ndarray, max_points: int
) -> Reduction | None:
    """:func:`reduce_series` of ``value``, with each kept point's band taken from two other columns of the same
    rows: the lowest ``low`` and the highest ``high`` of its bucket (NaN left out; NaN where a bucket has none).
    An aggregate over ranks keeps its mean line's shape and a min-max band that covers every rank's extremes.
    None when the series fits in ``max_points``."""
    buckets = _buckets_over(step, value, max_points)
    if buckets is None:
        return None
    rank = buckets.rank_of(buckets.indices)
    with np.errstate(invalid="ignore"):
        lowest = np.fmin.reduceat(np.asarray(low, dtype=np.float64), buckets.starts)
        highest = np.fmax.reduceat(np.asarray(high, dtype=np.float64), buckets.starts)
    return Reduction(buckets.indices, lowest[rank], highest[rank])


def _buckets_over(step: np.ndarray, value: np.ndarray, max_points: int) -> _Buckets | None:
    """The buckets a reduction to ``max_points`` keeps; None when the series already fits."""
    if max_points < 2:
        raise ValueError(f"max_points must be at least 2, got {max_points}")
    if len(step) <= max_points:
        return None
    return _Buckets(step, value, max_points)


def minmax_indices(step: np.ndarray, value: np.ndarray, max_points: int) -> np.ndarray:
    """Indices (ascending) of at most ``max_points`` points of a series sorted by step that keep its shape.

    Args:
        step: int64 steps, ascending.
        value: float64 values, one per step.
        max_points: the budget; at least 2. A series that fits is returned whole.
    """
    if max_points < 2:
        raise ValueError(f"max_points must be at least 2, got {max_points}")
    if len(step) <= max_points:
        return np.arange(len(step), dtype=np.int64)
    return _Buckets(step, value, max_points).indices


class _Buckets:
    """One pass of O(n) numpy over a series (no sort, no Python loop per point): equal step-range buckets, each
    one's lowest and highest finite value (±inf when it has none) and the kept ``indices``.

    Bucket ``k`` of ``B`` holds the steps with ``k <= (step - first) * B / (last - first) < k + 1`` (the last step
    goes in the last bucket); steps ascend, so buckets are contiguous runs, starting at ``starts``.
    """

    def __init__(self, step: np.ndarray, value: np.ndarray, max_points: int) -> None:
        count = len(step)
        non_finite = ~np.isfinite(value)
        some_non_finite = bool(non_finite.any())
        # Each bucket may keep up to 4 points (min, max, and a NaN and an infinity when there are such values).
        buckets = max(1, (max_points - 2) // (4 if some_non_finite else 2))
        self.starts = _bucket_starts(step, buckets)
        lowest = np.where(non_finite, np.inf, value) if some_non_finite else value
        highest = np.where(non_finite, -np.inf, value) if some_non_finite else value
        self.low = np.minimum.reduceat(lowest, self.starts)
        self.high = np.maximum.reduceat(highest, self.starts)
        lengths = np.diff(np.append(self.starts, count))
        keep = np.zeros(count, dtype=bool)
        keep[0] = keep[-1] = True
        has_finite = np.isfinite(self.low)
        keep[self._first_where(lowest == np.repeat(self.low, lengths))[has_finite]] = True
        keep[self._first_where(highest == np.repeat(self.high, lengths))[has_finite]] = True
        if some_non_finite:
            for kind in (np.isnan(value), np.isposinf(value), np.isneginf(value)):
                first = self._first_where(kind)
                keep[first[first < count]] = True
        indices = np.flatnonzero(keep)
        self.indices = indices if len(indices) <= max_points else _thin(indices, max_points)

    def _first_where(self, condition: np.ndarray) -> np.ndarray:
        """Per bucket, the index of its first point where ``condition`` holds (``len`` when none does)."""
        count = len(condition)
        return np.minimum.reduceat(np.where(condition, np.arange(count), count), self.starts)

    def rank_of(self, indices: np.ndarray) -> np.ndarray:
        """Which non-empty bucket (0, 1, ... in step order) each of these points is in."""
        return np.searchsorted(self.starts, indices, side="right") - 1


def _bucket_starts(step: np.ndarray, buckets: int) -> np.ndarray:
    """Where each non-empty bucket starts, ascending. With exact integers, from the buckets' first steps and one
    binary search each (no pass over the points: the pass and its integer division were a third of the time);
    else from each point's bucket number."""
    count = len(step)
    first, last = int(step[0]), int(step[-1])
    span = last - first
    if 0 < span < 2**62 // buckets:
        # Step s is in bucket >= k  <=>  (s - first) * buckets >= k * span  <=>  s >= first + ceil(k * span / buckets)
        k = np.arange(1, buckets, dtype=np.int64)
        bounds = np.searchsorted(step, first - (-k * np.int64(span) // np.int64(buckets)), side="left")
        begin = np.concatenate(([0], bounds))
        end = np.append(bounds, count)
        return begin[begin < end]
    number = _bucket_numbers(step, buckets)
    change = np.empty(count, dtype=bool)
    change[0] = True
    np.not_equal(number[1:], number[:-1], out=change[1:])
    return np.flatnonzero(change)


def _bucket_numbers(step: np.ndarray, buckets: int) -> np.ndarray:
    """Each step's bucket of ``buckets`` equal parts of the step range, exactly (integers) when that cannot
    overflow, else in floating point."""
    first, last = int(step[0]), int(step[-1])
    span = last - first
    if span <= 0:
        return np.zeros(len(step), dtype=np.int64)
    if span < 2**62 // buckets:  # offset * buckets stays within int64
        number = (step - np.int64(first)) * np.int64(buckets) // np.int64(span)
    else:
        number = np.floor((step.astype(np.float64) - float(first)) * (buckets / span)).astype(np.int64)
    return np.minimum(number, buckets - 1, out=number)


def _thin(indices: np.ndarray, max_points: int) -> np.ndarray:
    """Keep the first and last, and an even spread of the rest (only when buckets held many non-finite kinds)."""
    chosen = np.linspace(0, len(indices) - 1, max_points).round().astype(np.int64)
    return indices[np.unique(chosen)]


# --- the same reduction over a level-of-detail index -------------------------------------------------------------


class Indexed(Protocol):
    """A series with a pyramid (``ridgeline.store.lod.IndexedScalars``): ``levels[k]`` holds one record per
    ``block_sizes[k]`` points (fields ``min``, ``max`` over finite values, ±inf when none, and the counts ``nan``,
    ``posinf``, ``neginf``), whole blocks only; each block size divides the next."""

    @property
    def value(self) -> np.ndarray: ...
    @property
    def levels(self) -> Sequence[np.ndarray]: ...
    @property
    def block_sizes(self) -> Sequence[int]: ...
    def steps(self, indices: np.ndarray) -> np.ndarray: ...
    def search(self, steps: np.ndarray, side: str = "left") -> np.ndarray: ...


def reduce_indexed(series: Indexed, start: int, end: int, max_points: int) -> Reduction | None:
    """:func:`reduce_series` of points ``start`` to ``end`` of an indexed series, equal to it (indices relative
    to ``start``), read from the series' pyramid (:mod:`ridgeline.store.lod`): per bucket, a few blocks of each
    level and a few points at each end, O(buckets x levels) whatever the length of the range."""
    if max_points < 2:
        raise ValueError(f"max_points must be at least 2, got {max_points}")
    count = end - start
    if count <= max_points:
        return None
    index = _Pyramid(series)
    whole = index.stats(index.cut(np.array([start]), np.array([end])))
    some_non_finite = bool(whole.nan[0] or whole.posinf[0] or whole.neginf[0])
    buckets = max(1, (max_points - 2) // (4 if some_non_finite else 2))
    first, last = (int(s) for s in series.steps(np.array([start, end - 1])))
    span = last - first
    if not 0 < span < 2**62 // buckets:  # steps far apart: the full scan's floating-point buckets
        step = series.steps(np.arange(start, end))
        return reduce_series(step, np.asarray(series.value[start:end], dtype=np.float64), max_points)
    k = np.arange(1, buckets, dtype=np.int64)
    bounds = np.clip(series.search(first - (-k * np.int64(span) // np.int64(buckets)), "left"), start, end) - start
    begin = np.concatenate(([0], bounds))
    finish = np.append(bounds, count)
    starts = begin[begin < finish]
    lo = starts + start
    hi = np.append(starts[1:], count) + start
    cut = index.cut(lo, hi)
    stats = index.stats(cut)
    keep = [np.array([start, end - 1])]
    has_finite = np.isfinite(stats.low)
    keep.append(index.first(cut, "low", stats.low, has_finite))
    keep.append(index.first(cut, "high", stats.high, has_finite))
    if some_non_finite:
        for kind, counts in (("nan", stats.nan), ("posinf", stats.posinf), ("neginf", stats.neginf)):
            keep.append(index.first(cut, kind, stats.low, counts > 0))
    indices = np.unique(np.concatenate(keep)) - start
    if len(indices) > max_points:
        indices = _thin(indices, max_points)
    rank = np.searchsorted(starts, indices, side="right") - 1
    low, high = stats.low[rank], stats.high[rank]
    return Reduction(indices, np.where(np.isfinite(low), low, np.nan), np.where(np.isfinite(high), high, np.nan))


def nonfinite_indices(series: Indexed, start: int, end: int) -> np.ndarray:
    """Every point of ``start`` to ``end`` whose value is NaN or infinite (ascending), found from the level-0
    blocks' counts: only the blocks that hold one are read."""
    if not series.levels:
        candidates = np.arange(start, end)
        return candidates[~np.isfinite(series.value[candidates])]
    level0, size = series.levels[0], series.block_sizes[0]
    blocks = np.arange(-(-start // size), min(end // size, len(level0)))
    flagged = blocks[(level0["nan"][blocks] + level0["posinf"][blocks] + level0["neginf"][blocks]) > 0]
    edges = [np.arange(start, min(end, int(blocks[0]) * size if len(blocks) else end))]
    if len(blocks):
        edges.append(np.arange((int(blocks[-1]) + 1) * size, end))
    candidates = np.concatenate([*edges, (flagged[:, None] * size + np.arange(size)).reshape(-1)])
    candidates.sort()
    return candidates[~np.isfinite(series.value[candidates])]


@dataclass(frozen=True, slots=True)
class _Stats:
    """Per range: lowest and highest finite value (±inf when none), how many NaN, +inf and -inf."""

    low: np.ndarray
    high: np.ndarray
    nan: np.ndarray
    posinf: np.ndarray
    neginf: np.ndarray


class _Pyramid:
    """Ranges of an indexed series answered from its pyramid: each range ``[lo, hi)`` is cut, in position order,
    into raw points at its start, blocks of rising then falling size, and raw points at its end (at most
    as many blocks of a level at each end as make one of the next, fewer points than make the smallest block)."""

    def __init__(self, series: Indexed) -> None:
        self.value = series.value
        self.levels = series.levels
        self.sizes = list(series.block_sizes)

    def parts(self, lo: np.ndarray, hi: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """``(level, first, end)`` per part, in position order; level -1 is raw points, else block numbers."""
        lo, hi = np.asarray(lo, np.int64), np.asarray(hi, np.int64)
        aligned_lo = [-(-lo // size) * size for size in self.sizes]
        aligned_hi = [hi // size * size for size in self.sizes]
        levels = len(self.sizes)
        top = np.full(len(lo), -1)
        for k in range(levels):
            top[aligned_lo[k] < aligned_hi[k]] = k
        left: list[tuple[int, np.ndarray, np.ndarray]] = []
        right: list[tuple[int, np.ndarray, np.ndarray]] = []
        for k, size in enumerate(self.sizes):
            upper_lo = aligned_lo[k + 1] if k + 1 < levels else aligned_hi[k]
            upper_hi = aligned_hi[k + 1] if k + 1 < levels else aligned_hi[k]
            below, at = k < top, k == top
            a = np.where(below | at, aligned_lo[k], 0)
            b = np.where(below, upper_lo, np.where(at, aligned_hi[k], 0))
            c = np.where(below, upper_hi, 0)
            d = np.where(below, aligned_hi[k], 0)
            left.append((k, a // size, b // size))
            right.append((k, c // size, d // size))
        none = top < 0
        raw_left = (-1, lo, np.where(none, hi, aligned_lo[0]))
        raw_right = (-1, np.where(none, hi, aligned_hi[0]), hi)
        return [raw_left, *left, *reversed(right), raw_right]

    def _elements(self, level: int, flat: np.ndarray) -> tuple[np.ndarray, ...]:
        """lowest, highest, NaN, +inf, -inf of each element (raw points or blocks)."""
        if level < 0:
            v = np.asarray(self.value[flat], dtype=np.float64)
            finite = np.isfinite(v)
            if finite.all():
                none = np.zeros(len(v), np.int64)
                return (v, v, none, none, none)
            return (
                np.where(finite, v, np.inf),
                np.where(finite, v, -np.inf),
                np.isnan(v).astype(np.int64),
                np.isposinf(v).astype(np.int64),
                np.isneginf(v).astype(np.int64),
            )
        rec = self.levels[level][flat]
        return rec["min"], rec["max"], rec["nan"], rec["posinf"], rec["neginf"]

    def cut(self, lo: np.ndarray, hi: np.ndarray) -> _Cut:
        """The ranges cut into parts, each part's elements laid end to end with what they hold."""
        parts = []
        for level, first, end in self.parts(lo, hi):
            flat, offsets, nonempty = _flat(first, end)
            if len(flat):
                lengths = (end - first)[nonempty]
                parts.append(_Part(level, flat, offsets, nonempty, lengths, self._elements(level, flat)))
        return _Cut(len(lo), parts)

    def stats(self, cut: _Cut) -> _Stats:
        n = cut.ranges
        low, high = np.full(n, np.inf), np.full(n, -np.inf)
        counts = [np.zeros(n, np.int64) for _ in range(3)]
        for part in cut.parts:
            offsets, nonempty = part.offsets, part.nonempty
            lowest, highest, *kinds = part.elements
            np.minimum.at(low, nonempty, np.minimum.reduceat(lowest, offsets))
            np.maximum.at(high, nonempty, np.maximum.reduceat(highest, offsets))
            for total, kind in zip(counts, kinds, strict=True):
                total[nonempty] += np.add.reduceat(np.asarray(kind, np.int64), offsets)
        return _Stats(low, high, *counts)

    def _match(self, kind: str, level: int, flat: np.ndarray, target: np.ndarray) -> np.ndarray:
        """What :func:`_matching` says, computing only the one property asked about."""
        if level >= 0:
            rec = self.levels[level][flat]
            if kind in ("low", "high"):
                return np.asarray(rec["min" if kind == "low" else "max"] == target)
            return np.asarray(rec[kind] > 0)
        v = np.asarray(self.value[flat], dtype=np.float64)
        if kind in ("low", "high"):  # the target is finite: equal means finite and equal
            return np.asarray(v == target)
        if kind == "nan":
            return np.isnan(v)
        return np.isposinf(v) if kind == "posinf" else np.isneginf(v)

    def first(self, cut: _Cut, kind: str, target: np.ndarray, wanted: np.ndarray) -> np.ndarray:
        """Per wanted range, the first point where ``kind`` holds (``low``/``high``: the value equals
        ``target``; or ``nan``, ``posinf``, ``neginf``); each wanted range must have one. The first part with a
        match, its first element, then down that block's children to the point."""
        found_level = np.where(wanted, -2, -3)  # -2: not found yet; -3: not asked
        found_at = np.zeros(cut.ranges, np.int64)
        for part in cut.parts:
            size = len(part.flat)
            match = _matching(kind, part.elements, np.repeat(target[part.nonempty], part.lengths))
            position = np.minimum.reduceat(np.where(match, np.arange(size), size), part.offsets)
            new = (position < size) & (found_level[part.nonempty] == -2)
            rows = part.nonempty[new]
            found_level[rows] = part.level
            found_at[rows] = part.flat[position[new]]
        for level in range(len(self.levels) - 1, -1, -1):
            rows = np.flatnonzero(found_level == level)
            if not len(rows):
                continue
            width = self.sizes[level] // self.sizes[level - 1] if level > 0 else self.sizes[0]
            children = found_at[rows, None] * width + np.arange(width)
            match = self._match(kind, level - 1, children.reshape(-1), np.repeat(target[rows], width))
            found_at[rows] = children[np.arange(len(rows)), match.reshape(len(rows), width).argmax(axis=1)]
            found_level[rows] = level - 1
        return found_at[wanted]


@dataclass(frozen=True, slots=True, eq=False)
class _Part:
    level: int
    flat: np.ndarray
    offsets: np.ndarray
    nonempty: np.ndarray
    lengths: np.ndarray
    elements: tuple[np.ndarray, ...]


@dataclass(frozen=True, slots=True, eq=False)
class _Cut:
    ranges: int
    parts: list[_Part]


def _matching(kind: str, elements: tuple[np.ndarray, ...], target: np.ndarray) -> np.ndarray:
    """Which elements (raw points or blocks) hold what :meth:`_Pyramid.first` looks for."""
    lowest, highest, nan, posinf, neginf = elements
    if kind == "low":
        return np.asarray(lowest == target)
    if kind == "high":
        return np.asarray(highest == target)
    return np.asarray({"nan": nan, "posinf": posinf, "neginf": neginf}[kind] > 0)


def _flat(first: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The elements of ranges ``[first, end)`` laid end to end; where each non-empty range starts among them;
    and which ranges are non-empty."""
    lengths = np.maximum(end - first, 0)
    nonempty = np.flatnonzero(lengths)
    lengths = lengths[nonempty]
    offsets = np.cumsum(lengths) - lengths
    flat = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(offsets - first[nonempty], lengths)
    return flat, offsets, nonempty
