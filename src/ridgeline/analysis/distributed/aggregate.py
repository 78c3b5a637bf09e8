"""One tag across the ranks of a distributed run, by step: mean, median, min, max, standard deviation, how many
ranks logged the step, and which rank gave the min and the max (Megatron-LM's ``min/rank``, ``max/rank``).

NaN values are left out of a step's statistics (a rank that diverged shows in its own line); a step where every
rank logged NaN has NaN statistics and rank -1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ridgeline.analysis.downsample import reduce_with_envelope

STATISTICS = ("mean", "median", "min", "max")


@dataclass(frozen=True)
class Aggregate:
    """Per step (sorted, every step any rank logged): the statistics over the ranks that logged it."""

    step: np.ndarray
    mean: np.ndarray
    median: np.ndarray
    min: np.ndarray
    max: np.ndarray
    std: np.ndarray
    count: np.ndarray
    min_rank: np.ndarray
    max_rank: np.ndarray

    def statistic(self, name: str) -> np.ndarray:
        if name not in STATISTICS:
            raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, got {name!r}")
        values: np.ndarray = getattr(self, name)
        return values


def rank_matrix(steps: Sequence[np.ndarray], values: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(union of the steps, sorted; a ranks × steps matrix of the values, NaN where a rank has no point). A step a
    rank logged twice keeps its last value."""
    arrays = [np.asarray(s, dtype=np.int64) for s in steps]
    first = arrays[0] if arrays else np.zeros(0, np.int64)
    if bool(np.all(first[1:] > first[:-1])) and all(np.array_equal(a, first) for a in arrays[1:]):
        union = first  # every rank logged the same increasing steps: no sort needed
    else:
        union = np.unique(np.concatenate(arrays))
    matrix = np.full((len(arrays), len(union)), np.nan)
    for row, (step, value) in enumerate(zip(arrays, values, strict=True)):
        if len(step) == len(union) and np.array_equal(step, union):
            matrix[row] = value  # the usual case: every rank logs every step, in order
        else:
            matrix[row, np.searchsorted(union, step)] = value
    return union, matrix


def aggregate(ranks: Sequence[int], steps: Sequence[np.ndarray], values: Sequence[np.ndarray]) -> Aggregate:
    """The statistics of ``values[i]`` (rank ``ranks[i]``, at ``steps[i]``) per step, over a ranks × steps matrix:
    O(ranks × steps) memory, column-wise reductions. Ties for the min or max go to the first rank given."""
    if not (len(ranks) == len(steps) == len(values)):
        raise ValueError(
            f"ranks, steps and values must have one entry per rank, got {len(ranks)}, {len(steps)}, {len(values)}"
        )
    union, matrix = rank_matrix(steps, values)
    rank_ids = np.asarray(ranks, dtype=np.int64)
    n = len(union)
    present = ~np.isnan(matrix)
    complete = bool(present.all())  # the usual case: no NaN, so no stand-ins and no masked copies of the matrix
    count = present.sum(axis=0)
    has = count > 0
    columns = np.arange(n)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean = (matrix if complete else np.where(present, matrix, 0.0)).sum(axis=0) / count
        deviation = matrix - mean if complete else np.where(present, matrix - mean, 0.0)  # two passes: no cancellation
        std = np.sqrt((deviation * deviation).sum(axis=0) / count)
    # The min's row: +inf stands in for a missing value; where every present value is +inf, the first present row.
    low = matrix if complete else np.where(present, matrix, np.inf)
    low_row = np.argmin(low, axis=0) if len(rank_ids) else np.zeros(n, np.int64)
    high = matrix if complete else np.where(present, matrix, -np.inf)
    high_row = np.argmax(high, axis=0) if len(rank_ids) else np.zeros(n, np.int64)
    if n and len(rank_ids) and not complete:
        first_present = np.argmax(present, axis=0)
        low_row = np.where(present[low_row, columns], low_row, first_present)
        high_row = np.where(present[high_row, columns], high_row, first_present)
    # The median from the column sorted (NaN sorts last): the middle one or two of its `count` values.
    ordered = np.sort(matrix, axis=0)
    median = np.full(n, np.nan)
    minimum = np.full(n, np.nan)
    maximum = np.full(n, np.nan)
    min_rank = np.full(n, -1, dtype=np.int64)
    max_rank = np.full(n, -1, dtype=np.int64)
    if len(rank_ids):
        kept = columns[has]
        low_mid, high_mid = (count[has] - 1) // 2, count[has] // 2
        median[has] = (ordered[low_mid, kept] + ordered[high_mid, kept]) / 2
        minimum[has] = matrix[low_row[has], kept]
        maximum[has] = matrix[high_row[has], kept]
        min_rank[has] = rank_ids[low_row[has]]
        max_rank[has] = rank_ids[high_row[has]]
    mean[~has] = np.nan
    std[~has] = np.nan
    return Aggregate(union, mean, median, minimum, maximum, std, count, min_rank, max_rank)


def reduce_aggregate(full: Aggregate, max_points: int) -> Aggregate | None:
    """At most ``max_points`` rows of ``full`` for a chart of about ``max_points / 2`` pixels: the rows that keep
    the mean line's lowest and highest point per bucket (:func:`ridgeline.analysis.downsample.reduce_series`),
    each with its own statistics, except ``min`` and ``max``, which become the lowest min and the highest max of
    the bucket the row stands for, so the min-max band still covers every rank's extremes. None when ``full``
    fits in ``max_points``."""
    reduction = reduce_with_envelope(full.step, full.mean, full.min, full.max, max_points)
    if reduction is None:
        return None
    keep = reduction.indices
    return Aggregate(
        step=full.step[keep],
        mean=full.mean[keep],
        median=full.median[keep],
        min=reduction.band_low,
        max=reduction.band_high,
        std=full.std[keep],
        count=full.count[keep],
        min_rank=full.min_rank[keep],
        max_rank=full.max_rank[keep],
    )
