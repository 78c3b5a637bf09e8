"""Reducing a series to what a chart of a given width can show, without hiding a spike.

:func:`minmax_indices` splits the step range into equal buckets (about one per pair of pixels) and keeps, per
bucket, the points with the lowest and the highest value, in step order, plus the first and the last point of
the series. Every local extreme that a pixel column could show survives, which a plain stride or an average
would lose. NaN and infinite values are kept too (one of each kind per bucket), so a divergence stays visible.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    if max_points < 2:
        raise ValueError(f"max_points must be at least 2, got {max_points}")
    if len(step) <= max_points:
        return None
    buckets = _Buckets(step, value, max_points)
    rank = buckets.rank_of(buckets.indices)
    low, high = buckets.low[rank], buckets.high[rank]
    return Reduction(
        buckets.indices, np.where(np.isfinite(low), low, np.nan), np.where(np.isfinite(high), high, np.nan)
    )


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
