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
    indices, bucket, starts = _reduce(step, value, max_points)
    finite = np.isfinite(value)
    low = np.minimum.reduceat(np.where(finite, value, np.inf), starts)
    high = np.maximum.reduceat(np.where(finite, value, -np.inf), starts)
    empty = np.add.reduceat(finite.astype(np.int64), starts) == 0
    low[empty] = np.nan
    high[empty] = np.nan
    # Buckets are numbered by step range; ``starts`` lists only the non-empty ones, in the same order.
    rank = np.cumsum(np.r_[True, bucket[1:] != bucket[:-1]]) - 1
    kept = rank[indices]
    return Reduction(indices, low[kept], high[kept])


def minmax_indices(step: np.ndarray, value: np.ndarray, max_points: int) -> np.ndarray:
    """Indices (ascending) of at most ``max_points`` points of a series sorted by step that keep its shape.

    Args:
        step: int64 steps, ascending.
        value: float64 values, one per step.
        max_points: the budget; at least 2. A series that fits is returned whole.
    """
    if max_points < 2:
        raise ValueError(f"max_points must be at least 2, got {max_points}")
    count = len(step)
    if count <= max_points:
        return np.arange(count, dtype=np.int64)
    return _reduce(step, value, max_points)[0]


def _reduce(step: np.ndarray, value: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kept indices, every point's bucket number, and where each non-empty bucket starts."""
    count = len(step)
    # Each bucket may keep up to 4 points (min, max, and a NaN and an infinity when there are such values).
    non_finite = ~np.isfinite(value)
    per_bucket = 4 if non_finite.any() else 2
    buckets = max(1, (max_points - 2) // per_bucket)
    edges = np.linspace(float(step[0]), float(step[-1]), buckets + 1)
    bucket = np.clip(np.searchsorted(edges, step, side="right") - 1, 0, buckets - 1)
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])  # steps ascend: buckets are contiguous
    finite_values = np.where(non_finite, np.nan, value)
    keep = [np.array([0, count - 1], dtype=np.int64)]
    has_finite = np.add.reduceat((~non_finite).astype(np.int64), starts) > 0
    lowest = np.where(np.isnan(finite_values), np.inf, finite_values)
    highest = np.where(np.isnan(finite_values), -np.inf, finite_values)
    keep.append(_argreduce(lowest, starts, np.minimum)[has_finite])
    keep.append(_argreduce(highest, starts, np.maximum)[has_finite])
    if per_bucket == 4:
        for kind in (np.isnan(value), np.isposinf(value), np.isneginf(value)):
            positions = np.flatnonzero(kind)
            if len(positions):
                first_per_bucket = np.unique(bucket[positions], return_index=True)[1]
                keep.append(positions[first_per_bucket])
    indices = np.unique(np.concatenate(keep))
    return (indices if len(indices) <= max_points else _thin(indices, max_points)), bucket, starts


def _argreduce(values: np.ndarray, starts: np.ndarray, reduce: np.ufunc) -> np.ndarray:
    """Per contiguous bucket (starting at ``starts``), the index of its first element equal to the reduction."""
    extreme = reduce.reduceat(values, starts)
    lengths = np.diff(np.r_[starts, len(values)])
    matches = np.flatnonzero(values == np.repeat(extreme, lengths))
    bucket_of_match = np.searchsorted(starts, matches, side="right") - 1
    first = np.unique(bucket_of_match, return_index=True)[1]
    return matches[first]


def _thin(indices: np.ndarray, max_points: int) -> np.ndarray:
    """Keep the first and last, and an even spread of the rest (only when buckets held many non-finite kinds)."""
    chosen = np.linspace(0, len(indices) - 1, max_points).round().astype(np.int64)
    return indices[np.unique(chosen)]
