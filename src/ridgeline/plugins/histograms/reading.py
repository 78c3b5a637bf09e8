"""Reading histograms for the histograms and distributions dashboards: which steps to decode (an even sample
of at most ``max_steps``, first and last always kept), decoding them one by one so that a corrupt value stays an
error of its own step, and putting them on common bins.

TensorBoard's histogram data is a list of buckets (left edge, right edge, count); torch writes the legacy
``HistogramProto`` (bucket limits and counts), TF2 a ``[k, 3]`` tensor; :class:`ridgeline.ingest.values.Histogram`
holds either as ``lower``/``upper``/``count`` arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ridgeline.ingest.values import DecodeError, Histogram
from ridgeline.server.responses import missing_as_404
from ridgeline.store.logdir import Entry, LogDir


@dataclass(frozen=True, slots=True)
class Decoded:
    """One step's histogram, or why it could not be read."""

    step: int
    wall_time: float
    histogram: Histogram | None
    error: str | None = None


def entries(logdir: LogDir, run: str, tag: str) -> list[Entry]:
    """The histogram entries of ``run``/``tag`` in step order (404 when either is unknown); nothing is decoded."""
    with missing_as_404(f"no histograms {run!r} / {tag!r}"):
        found = logdir.histograms(run, tag)
    return sorted(found, key=lambda e: e.step)


def sample(n: int, max_steps: int | None) -> np.ndarray:
    """Indices of at most ``max_steps`` of ``n`` items, evenly spread, the first and the last always in."""
    if max_steps is None or n <= max_steps:
        return np.arange(n)
    if max_steps == 1:
        return np.array([n - 1])
    return np.unique(np.round(np.linspace(0, n - 1, max_steps)).astype(np.int64))


def decode(entry: Entry) -> Decoded:
    """The entry's histogram; a value that does not decode, or whose arrays disagree, becomes an error."""
    try:
        value = entry.value
    except DecodeError as error:
        return Decoded(entry.step, entry.wall_time, None, str(error))
    if not isinstance(value, Histogram) or not len(value.lower) == len(value.upper) == len(value.count):
        return Decoded(entry.step, entry.wall_time, None, "not a histogram (bucket arrays of different lengths)")
    return Decoded(entry.step, entry.wall_time, value)


def finite_range(histograms: list[Histogram]) -> tuple[float, float] | None:
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


def rebin(histogram: Histogram, edges: np.ndarray) -> np.ndarray:
    """The counts of ``histogram`` on the bins between consecutive ``edges``, each bucket's count spread evenly
    over its width (a zero-width bucket counts in the bin that holds it; mass outside lands in the end bins)."""
    lower, upper, count = histogram.lower, histogram.upper, histogram.count
    keep = np.isfinite(lower) & np.isfinite(upper) & np.isfinite(count)
    lower, upper, count = lower[keep], upper[keep], count[keep]
    bins = len(edges) - 1
    if count.size == 0 or bins < 1:
        return np.zeros(max(bins, 0))
    width = upper - lower
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.clip((edges[:, None] - lower[None, :]) / width[None, :], 0.0, 1.0)
    point = (edges[:, None] >= lower[None, :]).astype(np.float64)
    fraction = np.where(width[None, :] > 0, spread, point)
    cumulative = fraction @ count
    out = np.diff(cumulative)
    out[0] += cumulative[0]  # what lies at (or below) the first edge
    out[-1] += count.sum() - cumulative[-1]  # what lies above the last edge
    return np.maximum(out, 0.0)
