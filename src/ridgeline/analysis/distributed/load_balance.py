"""Load balance across ranks: the spread of GPU utilisation over time, and input-bound ranks.

- **GPU utilisation** (``sys/gpu{i}/utilization_percent``, a rank's GPUs averaged): the standard deviation across
  ranks in time bins (aligned clocks), flagged when its median exceeds 5 percentage points, the usual target.
- **Input-bound ranks**: from a data-loader queue-depth tag, a rank whose queue is empty (≤ 0) while another
  rank's is not, at a quarter or more of the steps every rank logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

UTILISATION_SPREAD_LIMIT = 5.0  # percentage points
INPUT_BOUND_SHARE = 0.25


@dataclass(frozen=True)
class Spread:
    """The standard deviation across ranks per time bin (bin starts in seconds from the first sample)."""

    time: np.ndarray
    std: np.ndarray
    median: float
    flagged: bool


def utilisation_spread(
    series: Mapping[int, tuple[np.ndarray, np.ndarray]], bin_seconds: float, limit: float = UTILISATION_SPREAD_LIMIT
) -> Spread | None:
    """``series``: per rank (aligned wall times, values). None with fewer than two ranks or no common bin."""
    if len(series) < 2 or not bin_seconds > 0:
        return None
    start = min(float(np.min(t)) for t, _ in series.values() if len(t))
    means: list[dict[int, float]] = []
    for wall, value in series.values():
        bins = np.floor((np.asarray(wall) - start) / bin_seconds).astype(np.int64)
        per_bin: dict[int, float] = {}
        for b in np.unique(bins):
            per_bin[int(b)] = float(np.nanmean(value[bins == b]))
        means.append(per_bin)
    common = sorted(set.intersection(*(set(m) for m in means)))
    if not common:
        return None
    matrix = np.array([[m[b] for b in common] for m in means])
    std = matrix.std(axis=0)
    median = float(np.median(std))
    return Spread(np.array(common, dtype=np.float64) * bin_seconds, std, median, median > limit)


def input_bound_ranks(queues: Mapping[int, tuple[np.ndarray, np.ndarray]]) -> list[int]:
    """The ranks whose queue (per rank: steps, depths) is empty while another's is not, often (module doc)."""
    if len(queues) < 2:
        return []
    common: np.ndarray | None = None
    for step, _ in queues.values():
        unique = np.unique(step)
        common = unique if common is None else np.intersect1d(common, unique, assume_unique=True)
    if common is None or len(common) == 0:
        return []
    ranks = sorted(queues)
    depth = np.empty((len(ranks), len(common)))
    for row, rank in enumerate(ranks):
        step, value = queues[rank]
        order = np.argsort(step, kind="stable")
        depth[row] = np.asarray(value)[order][np.searchsorted(step[order], common, side="right") - 1]
    empty = depth <= 0
    others_full = (~empty).sum(axis=0)[None, :] - (~empty).astype(np.int64) > 0
    share = (empty & others_full).mean(axis=1)
    return [rank for rank, s in zip(ranks, share, strict=True) if s >= INPUT_BOUND_SHARE]
