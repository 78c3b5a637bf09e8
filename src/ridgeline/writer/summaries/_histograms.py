"""Histograms: torch's default bins, a fast exact count for them, and histograms from raw statistics.

The count for the default bins is the compiled one (``_histogram_core.c``: one pass, no temporaries) where it is
built, else a numpy one; both equal ``np.histogram(values, DEFAULT_BINS)[0]`` exactly. ``bench/writer.py
--histogram-counts`` measured np.histogram (torch's way), the numpy count and the compiled one against each other
at 1M and 10M values: docs/benchmarks.md has the figures. Other bins go to np.histogram, as in torch.
"""

from __future__ import annotations

import functools
import logging
import math
import numbers
from types import ModuleType
from typing import Any

import numpy as np

from ridgeline.format.proto import summary_pb2
from ridgeline.writer.summaries._common import Summary, _positive_int, _real_array
from ridgeline.writer.values import check_tag, to_float


def _tensorflow_bins() -> np.ndarray:
    # Built by repeated multiplication, exactly as torch's SummaryWriter does, so every edge has the same bits.
    edge = 1e-12
    positive: list[float] = []
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    edges = np.array([-e for e in reversed(positive)] + [0.0] + positive, dtype=np.float64)
    edges.flags.writeable = False
    return edges


DEFAULT_BINS: np.ndarray = _tensorflow_bins()
"""torch's default histogram edges: ±1e-12·1.1^k up to 1e20 and 0 (1549 edges, 1548 bins)."""

_NUM_POSITIVE = (DEFAULT_BINS.size - 1) // 2
# Sentinel-padded edges: with r = the number of edges <= x, _BELOW[r] = edges[r - 1] and _ABOVE[r] = edges[r].
_BELOW = np.concatenate([[-np.inf], DEFAULT_BINS])
_ABOVE = np.concatenate([DEFAULT_BINS, [np.inf]])
_LOG_FIRST = math.log(1e-12)
_INV_LOG_RATIO = 1.0 / math.log(1.1)
_CHUNK = 1 << 16
_NUMPY_BIN_RULES = frozenset({"auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"})

_core: ModuleType | None
try:
    from ridgeline.writer.summaries import _histogram_core as _core
except ImportError:  # a source install without a C compiler
    _core = None
    logging.getLogger(__name__).debug("ridgeline's compiled histogram count is not built: using the numpy one")


def _default_bin_counts(values: np.ndarray) -> np.ndarray:
    """Counts per DEFAULT_BINS bin of float64 ``values``: ``np.histogram(values, DEFAULT_BINS)[0]``, faster."""
    if _core is None:
        return _default_bin_counts_numpy(values)
    return _default_bin_counts_core(values)


def _default_bin_counts_core(values: np.ndarray) -> np.ndarray:
    assert _core is not None
    contiguous = np.ascontiguousarray(values, dtype=np.float64)
    return np.frombuffer(_core.count(contiguous, DEFAULT_BINS, _rank_table()), dtype=np.int64)


@functools.cache
def _rank_table() -> np.ndarray:
    """For the compiled count: the number of DEFAULT_BINS edges <= the lowest value of each of the 65,536 cells
    that the top 16 bits of a float64 (mapped to an order-preserving uint64) divide the line into."""
    ordered = np.arange(1 << 16, dtype=np.uint64) << np.uint64(48)
    sign = np.uint64(1 << 63)
    negative = ordered < sign
    lowest = np.where(negative, ~ordered, ordered ^ sign).view(np.float64)
    lowest = np.where(np.isnan(lowest), np.where(negative, -np.inf, np.inf), lowest)  # NaN cells hold ±inf too
    return np.searchsorted(DEFAULT_BINS, lowest, side="right").astype(np.uint16)


def _default_bin_counts_numpy(values: np.ndarray) -> np.ndarray:
    """Counts per DEFAULT_BINS bin, equal to ``np.histogram(values, DEFAULT_BINS)[0]`` but several times faster.

    np.histogram sorts the data to place it among 1549 uneven edges. Here the edges are geometric, so a logarithm
    gives each value's edge index to within one; comparing with the true edges then corrects it exactly, and only
    the few values that moved are compared again. Bins are [e_i, e_i+1), the last one closed, as in numpy.
    """
    finite = np.isfinite(values)
    if not finite.all():
        values = values[finite]  # NaN and ±inf lie outside every bin
    num_edges = DEFAULT_BINS.size
    totals = np.zeros(num_edges + 1, dtype=np.intp)
    for start in range(0, values.size, _CHUNK):  # chunks stay in cache and reuse memory
        chunk = values[start : start + _CHUNK]
        with np.errstate(divide="ignore"):  # log(0) = -inf, clipped below
            approx = np.abs(chunk)
            np.log(approx, out=approx)
        approx -= _LOG_FIRST
        approx *= _INV_LOG_RATIO
        np.floor(approx, out=approx)
        approx += 1
        np.clip(approx, 0, _NUM_POSITIVE, out=approx)
        # magnitude: about how many positive edges are <= |x|; rank: how many edges are <= x.
        magnitude = approx.astype(np.intp)
        rank = magnitude + (_NUM_POSITIVE + 1)  # x >= 0: 0 and the negative edges, then `magnitude` more
        magnitude *= 2
        magnitude += 1
        magnitude *= chunk < 0  # x < 0: NUM_POSITIVE - magnitude edges lie at or below x
        rank -= magnitude
        # step: +1 where x lies at or above edges[rank] (rank too small), -1 below edges[rank - 1] (too large).
        step = np.greater_equal(chunk, _ABOVE.take(rank)).view(np.int8)
        step -= np.less(chunk, _BELOW.take(rank)).view(np.int8)
        moving = np.flatnonzero(step)
        while moving.size:
            rank[moving] += step[moving]
            x, r = chunk[moving], rank[moving]
            again = (x >= _ABOVE[r]).view(np.int8) - (x < _BELOW[r]).view(np.int8)
            still = again != 0
            moving = moving[still]
            step[moving] = again[still]
        totals += np.bincount(rank, minlength=num_edges + 1)
    counts = totals[1:num_edges].copy()  # rank 0: below the first edge; rank num_edges: at or above the last
    counts[-1] += np.count_nonzero(values == DEFAULT_BINS[-1])  # the last bin is closed
    return counts


def _bin_edges(bins: Any, *, method: str) -> np.ndarray:
    edges = _real_array(bins, method=method, argument="bins")
    if edges.ndim != 1 or edges.size < 2:
        raise ValueError(f"{method}: bins must be a 1-D sequence of at least 2 bin edges, got shape {edges.shape}")
    edges = edges.astype(np.float64)
    if not np.isfinite(edges).all():
        raise ValueError(f"{method}: bins must hold finite bin edges, got {float(edges[~np.isfinite(edges)][0])}")
    decreasing = np.flatnonzero(edges[1:] < edges[:-1])
    if decreasing.size:
        i = int(decreasing[0])
        raise ValueError(
            f"{method}: bins must be increasing bin edges, "
            f"got bins[{i}] = {edges[i]!r} > bins[{i + 1}] = {edges[i + 1]!r}"
        )
    return edges


def histogram(
    tag: str, values: Any, bins: Any = "tensorflow", max_bins: int | None = None, *, method: str = "add_histogram"
) -> Summary:
    """A HistogramProto of ``values``, the same as torch's ``make_histogram``.

    ``bins``: "tensorflow" (DEFAULT_BINS), a bin count, a numpy bin rule ("auto", "fd", ...), or increasing edges.
    """
    check_tag(tag, method=method)
    array = _real_array(values, method=method, argument="values")
    if array.size == 0:
        raise ValueError(f"{method}: values is empty; a histogram needs at least one value")
    if max_bins is not None:
        max_bins = _positive_int(max_bins, method=method, argument="max_bins")
    flat = array.astype(np.float64).reshape(-1)  # the same float64 copy torch sums, so the sums have the same bits

    if isinstance(bins, str) and bins == "tensorflow":
        counts, limits = _default_bin_counts(flat), DEFAULT_BINS
    elif isinstance(bins, bool | float | np.floating):
        raise TypeError(
            f"{method}: bins must be 'tensorflow', a numpy bin rule, an integer count or a sequence of bin edges, "
            f"got {type(bins).__name__} {bins!r}"
        )
    elif isinstance(bins, str | numbers.Integral):
        if isinstance(bins, str) and bins not in _NUMPY_BIN_RULES:
            choices = ", ".join(sorted(_NUMPY_BIN_RULES))
            raise ValueError(f"{method}: bins must be 'tensorflow', {choices}, a bin count or bin edges; got {bins!r}")
        if not isinstance(bins, str):
            _positive_int(bins, method=method, argument="bins")
        if not np.isfinite(flat).all():
            raise ValueError(
                f"{method}: values must all be finite when bins={bins!r} (the range is taken from the data); "
                "NaN and ±inf are only skipped with explicit bin edges or bins='tensorflow'"
            )
        try:
            counts, limits = np.histogram(flat, bins=bins)
        except ValueError as error:  # e.g. 'auto' asked for more bins than numpy allows
            raise ValueError(f"{method}: numpy cannot bin these values with bins={bins!r}: {error}") from error
    else:
        edges = bins if bins is DEFAULT_BINS else _bin_edges(bins, method=method)
        if edges is DEFAULT_BINS or (edges.size == DEFAULT_BINS.size and np.array_equal(edges, DEFAULT_BINS)):
            counts, limits = _default_bin_counts(flat), DEFAULT_BINS
        else:
            # Measured: for arbitrary edges numpy's blocked sort is faster than searchsorted + bincount.
            counts, limits = np.histogram(flat, bins=edges)

    num_bins = counts.size
    if max_bins is not None and num_bins > max_bins:
        # torch pads to a multiple of `group` using num_bins % group (not % max_bins), so a few more than
        # max_bins bins can remain; kept as is so the buckets match torch's.
        group = num_bins // max_bins
        remainder = num_bins % group
        if remainder:
            counts = np.concatenate([counts, np.zeros(group - remainder, dtype=counts.dtype)])
        counts = counts.reshape(-1, group).sum(axis=1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])

    occupied = np.flatnonzero(counts)
    if occupied.size:
        first, last = int(occupied[0]), int(occupied[-1])
    elif counts.size == 1:
        first, last = 1, 0  # torch's output for one empty bin: a single empty bucket at the right edge
    else:
        raise ValueError(
            f"{method}: no value of values lies within the bins [{float(limits[0])!r}, {float(limits[-1])!r}] "
            "(NaN and ±inf are never counted)"
        )
    # TensorBoard keeps only right edges: one empty bucket on the left records where the first bin starts.
    proto = summary_pb2.HistogramProto(
        min=float(flat.min()),
        max=float(flat.max()),
        num=float(flat.size),
        sum=float(flat.sum()),
        sum_squares=float(flat.dot(flat)),
        bucket_limit=limits[first : last + 2].tolist(),
        bucket=[0.0, *counts[first : last + 1].tolist()],
    )
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def histogram_raw(
    tag: str,
    min: Any,  # torch's argument names, builtins shadowed here only
    max: Any,
    num: Any,
    sum: Any,
    sum_squares: Any,
    bucket_limits: Any,
    bucket_counts: Any,
    *,
    method: str = "add_histogram_raw",
) -> Summary:
    """A HistogramProto from statistics computed elsewhere; bucket i counts values in (limit[i-1], limit[i]]."""
    check_tag(tag, method=method)
    stats = {
        name: to_float(value, method=method, argument=name)
        for name, value in (("min", min), ("max", max), ("num", num), ("sum", sum), ("sum_squares", sum_squares))
    }
    limits = _real_array(bucket_limits, method=method, argument="bucket_limits")
    counts = _real_array(bucket_counts, method=method, argument="bucket_counts")
    if limits.ndim != 1 or counts.ndim != 1:
        raise ValueError(
            f"{method}: bucket_limits and bucket_counts must be 1-D, got shapes {limits.shape} and {counts.shape}"
        )
    if limits.size != counts.size:
        raise ValueError(
            f"{method}: bucket_limits and bucket_counts must have the same length, got {limits.size} and {counts.size}"
        )
    proto = summary_pb2.HistogramProto(
        bucket_limit=limits.astype(np.float64).tolist(), bucket=counts.astype(np.float64).tolist(), **stats
    )
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])
