"""What the diagnosis reads: scalar series, and histogram tags summarised per step."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Series:
    """A scalar series: steps and values (any order, NaN/Inf allowed)."""

    step: np.ndarray
    value: np.ndarray


@dataclass(frozen=True, slots=True)
class HistogramSeries:
    """A histogram tag summarised per step (see :func:`summarise_histogram`): arrays of equal length."""

    step: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    rms: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def vectors(self) -> np.ndarray:
        """One row per step: the numbers compared to tell whether the histogram changed."""
        return np.column_stack((self.mean, self.std, self.rms, self.low, self.high))


def summarise_histogram(lower: np.ndarray, upper: np.ndarray, count: np.ndarray) -> tuple[float, ...]:
    """(mean, std, rms, low, high) of a bucketed histogram, each bucket's values taken at its centre; ``low`` and
    ``high`` are the outer edges of the buckets that hold something. All NaN when it holds nothing."""
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    count = np.asarray(count, dtype=np.float64)
    keep = (count > 0) & np.isfinite(lower) & np.isfinite(upper)
    if not keep.any():
        return (math.nan,) * 5
    lo, hi, c = lower[keep], upper[keep], count[keep]
    centre = (lo + hi) / 2
    total = c.sum()
    mean = float((centre * c).sum() / total)
    second = float((centre * centre * c).sum() / total)
    std = math.sqrt(max(second - mean * mean, 0.0))
    return mean, std, math.sqrt(max(second, 0.0)), float(lo.min()), float(hi.max())


def histogram_series(steps: Sequence[int], summaries: Sequence[tuple[float, ...]]) -> HistogramSeries:
    """A :class:`HistogramSeries` from per-step :func:`summarise_histogram` tuples."""
    table = np.asarray(summaries, dtype=np.float64).reshape(-1, 5)
    return HistogramSeries(np.asarray(steps, dtype=np.int64), *(table[:, i] for i in range(5)))
