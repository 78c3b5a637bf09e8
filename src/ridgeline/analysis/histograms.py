"""Histogram arithmetic for display: an even sample of steps, the common range of several histograms, and one
histogram's counts put on other bins.

TensorBoard's histogram data is a list of buckets (left edge, right edge, count); a histogram here is anything
with ``lower``/``upper``/``count`` arrays (the store's payload type).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class Buckets(Protocol):
    @property
    def lower(self) -> np.ndarray: ...
    @property
    def upper(self) -> np.ndarray: ...
    @property
    def count(self) -> np.ndarray: ...


def sample(n: int, max_steps: int | None) -> np.ndarray:
    """Indices of at most ``max_steps`` of ``n`` items, evenly spread, the first and the last always in."""
    if max_steps is None or n <= max_steps:
        return np.arange(n)
    if max_steps == 1:
        return np.array([n - 1])
    return np.unique(np.round(np.linspace(0, n - 1, max_steps)).astype(np.int64))


def finite_range(histograms: Sequence[Buckets]) -> tuple[float, float] | None:
    """The smallest left edge and the largest right edge over the buckets that hold something (finite edges)."""
    lows: list[float] = []
    highs: list[float] = []
    for h in histograms:
        keep = (h.count != 0) & np.isfinite(h.lower) & np.isfinite(h.upper)
        if keep.any():
            lows.append(float(h.lower[keep].min()))
            highs.append(float(h.upper[keep].max()))
    if not lows:
        return None
    return min(lows), max(highs)


REBIN_CELLS = 1 << 20  # edges x buckets cells one slice of rebin() computes at once (8 MiB per array)


def rebin(histogram: Buckets, edges: np.ndarray) -> np.ndarray:
    """The counts of ``histogram`` on the bins between consecutive ``edges``, each bucket's count spread evenly
    over its width (a zero-width bucket counts in the bin that holds it; mass outside lands in the end bins)."""
    lower, upper, count = histogram.lower, histogram.upper, histogram.count
    keep = np.isfinite(lower) & np.isfinite(upper) & np.isfinite(count)
    lower, upper, count = lower[keep], upper[keep], count[keep]
    bins = len(edges) - 1
    if count.size == 0 or bins < 1:
        return np.zeros(max(bins, 0))
    cumulative = np.zeros(len(edges))
    # Edges x buckets at a time would be (bins + 1) x buckets floats (15 GiB for 1,000 bins of 2M buckets):
    # the buckets are taken in slices, so that the transient arrays stay near REBIN_CELLS floats.
    step = max(1, REBIN_CELLS // len(edges))
    for start in range(0, count.size, step):
        cumulative += _cumulative(
            edges, lower[start : start + step], upper[start : start + step], count[start : start + step]
        )
    out = np.diff(cumulative)
    out[0] += cumulative[0]  # what lies at (or below) the first edge
    out[-1] += count.sum() - cumulative[-1]  # what lies above the last edge
    return np.maximum(out, 0.0)


def _cumulative(edges: np.ndarray, lower: np.ndarray, upper: np.ndarray, count: np.ndarray) -> np.ndarray:
    """How much of these buckets' counts lies at or below each edge."""
    width = upper - lower
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # an edge near ±1e308 overflows to ±inf
        spread = np.clip((edges[:, None] - lower[None, :]) / width[None, :], 0.0, 1.0)
    point = (edges[:, None] >= lower[None, :]).astype(np.float64)
    fraction = np.where(width[None, :] > 0, spread, point)
    result: np.ndarray = fraction @ count
    return result
