"""One tag across the ranks of a distributed run, by step: mean, median, min, max, standard deviation, how many
ranks logged the step, and which rank gave the min and the max (Megatron-LM's ``min/rank``, ``max/rank``).

NaN values are left out of a step's statistics (a rank that diverged shows in its own line); a step where every
rank logged NaN has NaN statistics and rank -1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

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


def aggregate(ranks: Sequence[int], steps: Sequence[np.ndarray], values: Sequence[np.ndarray]) -> Aggregate:
    """The statistics of ``values[i]`` (rank ``ranks[i]``, at ``steps[i]``) per step. Each rank's steps are
    expected once each (a series' visible points); O(n log n) in the total number of points."""
    if not (len(ranks) == len(steps) == len(values)):
        raise ValueError(
            f"ranks, steps and values must have one entry per rank, got {len(ranks)}, {len(steps)}, {len(values)}"
        )
    all_steps = np.concatenate([np.asarray(s, dtype=np.int64) for s in steps]) if steps else np.zeros(0, np.int64)
    all_values = (
        np.concatenate([np.asarray(v, dtype=np.float64) for v in values]) if values else np.zeros(0, np.float64)
    )
    all_ranks = np.repeat(np.asarray(ranks, dtype=np.int64), [len(s) for s in steps]) if steps else all_steps
    finite = ~np.isnan(all_values)
    unique_steps = np.unique(all_steps)
    n = len(unique_steps)
    kept_steps, kept_values, kept_ranks = all_steps[finite], all_values[finite], all_ranks[finite]
    # Sorted by step, then value: each step's points are one contiguous slice, its min first and its max last.
    order = np.lexsort((kept_values, kept_steps))
    s, v, r = kept_steps[order], kept_values[order], kept_ranks[order]
    slot = np.searchsorted(unique_steps, s)
    count = np.bincount(slot, minlength=n)
    total = np.bincount(slot, weights=v, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        # Two passes (deviations from the mean), not sum-of-squares minus square-of-sum: no cancellation.
        deviation = v - mean[slot]
        std = np.sqrt(np.bincount(slot, weights=deviation * deviation, minlength=n) / count)
    start = np.zeros(n, dtype=np.int64)
    start[1:] = np.cumsum(count)[:-1]
    has = count > 0
    minimum = np.full(n, np.nan)
    maximum = np.full(n, np.nan)
    median = np.full(n, np.nan)
    min_rank = np.full(n, -1, dtype=np.int64)
    max_rank = np.full(n, -1, dtype=np.int64)
    first, last = start[has], start[has] + count[has] - 1
    minimum[has], maximum[has] = v[first], v[last]
    min_rank[has], max_rank[has] = r[first], r[last]
    low_mid = start[has] + (count[has] - 1) // 2
    high_mid = start[has] + count[has] // 2
    median[has] = (v[low_mid] + v[high_mid]) / 2
    mean[~has] = np.nan
    std[~has] = np.nan
    return Aggregate(unique_steps, mean, median, minimum, maximum, std, count, min_rank, max_rank)
