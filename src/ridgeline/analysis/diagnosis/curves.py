"""Curve statistics: a series cleaned into a :class:`Curve` (sorted, finite, reduced, smoothed), the robust numbers
rules read off curves, and the :class:`Shape` of a loss curve.

Everything is relative to a curve's own level and robust to batch noise (rolling medians, median absolute
deviations), so that noise alone raises nothing."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ridgeline.analysis.diagnosis.inputs import Series

# A gradient norm of the whole model, not of one layer (``grad_norm/total``, ``global_grad_norm``).
AGGREGATE = re.compile(r"(?i)(?:^|[/_.])(?:total|global|all|overall|model)(?:_?(?:grad_?)?norm)?$")


@dataclass(frozen=True, slots=True)
class Curve:
    """A cleaned series: sorted, finite points only (reduced to ``max_points``), its smoothed version, and the
    first step with a non-finite value (None when there is none)."""

    name: str
    step: np.ndarray
    raw: np.ndarray
    smooth: np.ndarray
    first_nonfinite: int | None

    def __len__(self) -> int:
        return len(self.step)

    def at(self, step: float) -> float:
        """The smoothed value at (the point nearest before) ``step``."""
        i = int(np.searchsorted(self.step, step, side="right")) - 1
        return float(self.smooth[max(i, 0)])


def clean_curve(name: str, series: Series, max_points: int) -> Curve:
    """``series`` as a :class:`Curve`: sorted by step, its first non-finite step noted and its non-finite points
    dropped, longer than ``max_points`` reduced to that many bucket medians, then smoothed."""
    step = np.asarray(series.step, dtype=np.float64)
    value = np.asarray(series.value, dtype=np.float64)
    order = np.argsort(step, kind="stable")
    step, value = step[order], value[order]
    finite = np.isfinite(value)
    first_nonfinite = int(step[~finite][0]) if (~finite).any() else None
    step, value = step[finite], value[finite]
    if len(step) > max_points:
        step, value = bucket_medians(step, max_points), bucket_medians(value, max_points)
    return Curve(name, step, value, rolling_median(value), first_nonfinite)


def bucket_medians(values: np.ndarray, buckets: int) -> np.ndarray:
    """The medians of at most ``buckets`` consecutive runs of equal length (the last one shorter)."""
    size = -(-len(values) // buckets)
    full = len(values) // size
    out = np.median(values[: full * size].reshape(full, size), axis=1)
    if full * size < len(values):
        out = np.append(out, np.median(values[full * size :]))
    return out


def rolling_median(value: np.ndarray, fraction: float = 0.08, longest: int = 101) -> np.ndarray:
    """A centred rolling median over about ``fraction`` of the points (odd window, 3..``longest``), the ends
    padded with their nearest values: batch noise goes, trends and level shifts stay. A window of 32 points or
    more is evaluated at every 1/16 of its width and interpolated between (the cost of a 2,000-point curve
    falls 6-fold; the result moves by a small part of the noise)."""
    n = len(value)
    if n < 3:
        return value.copy()
    window = int(min(longest, max(3, round(n * fraction))))
    window += 1 - window % 2
    half = window // 2
    padded = np.concatenate(
        (np.full(half, np.median(value[: half + 1])), value, np.full(half, np.median(value[-half - 1 :])))
    )
    windows = np.lib.stride_tricks.sliding_window_view(padded, window)
    stride = window // 16  # a wide window's median moves little from one point to the next: take every stride-th
    if stride <= 1:
        return np.median(windows, axis=1)
    at = np.unique(np.append(np.arange(0, n, stride), n - 1))
    return np.interp(np.arange(n), at, np.median(windows[at], axis=1))


def head(values: np.ndarray, fraction: float) -> float:
    """The median of the first ``fraction`` of the values (at least 3; NaN when there are none)."""
    return float(np.median(values[: max(3, int(len(values) * fraction))])) if len(values) else math.nan


def tail(values: np.ndarray, fraction: float) -> float:
    """The median of the last ``fraction`` of the values (at least 3; NaN when there are none)."""
    return float(np.median(values[-max(3, int(len(values) * fraction)) :])) if len(values) else math.nan


def mad(values: np.ndarray) -> float:
    return float(1.4826 * np.median(np.abs(values - np.median(values)))) if len(values) else 0.0


def log10(values: np.ndarray) -> np.ndarray:
    return np.log10(np.maximum(np.abs(values), 1e-30))


def ranks(values: np.ndarray) -> np.ndarray:
    """The ranks of ``values`` (0-based), tied values sharing their average rank."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    last = np.cumsum(counts) - 1.0
    return (last - (counts - 1) / 2.0)[inverse.reshape(-1)]


def rank_correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation, ties given their average rank: 0 for a constant ``x`` or ``y`` (a flat curve
    has no trend)."""
    if len(x) < 3:
        return 0.0
    rx, ry = ranks(x), ranks(y)
    rx -= rx.mean()
    ry -= ry.mean()
    denominator = math.sqrt(float((rx * rx).sum() * (ry * ry).sum()))
    return float((rx * ry).sum() / denominator) if denominator > 1e-12 else 0.0


@dataclass(frozen=True, slots=True)
class Shape:
    """Numbers that describe a loss curve, relative to its own level (scale-free)."""

    start: float  # robust value at the start
    end: float  # robust value at the end
    best: float  # lowest smoothed value
    level: float  # |start| (what relative numbers divide by)
    improvement: float  # (start - end) / level
    late_improvement: float  # improvement over the second half, relative to the value at the half
    stop_fraction: float  # where (fraction of the run) 95% of the total log-drop was reached
    tail_log_drop: float  # drop of log(loss) from stop to end (positive: still improving)
    noise: float  # robust spread of raw around smoothed, second half, relative to the level there
    slope_ratio: float  # slope of the last third / slope of the first third (decreasing curves)
    trend: float  # rank correlation of smoothed with step (-1: steadily falling)
    rise: float  # (end - best) / max(start - best, tiny): how much of the gain was given back
    tolerance: float  # how much of late_improvement / tail_log_drop noise alone can explain


def shape_of(c: Curve) -> Shape:
    n = len(c)
    s, raw = c.smooth, c.raw
    start, end = head(raw, 0.02), tail(s, 0.1)
    best = float(s.min())
    level = max(abs(start), 1e-12)
    half = n // 2
    m = max(2, n // 10)
    mid = float(np.median(raw[max(half - m, 0) : half + m]))
    late = (mid - tail(raw, 0.2)) / max(abs(mid), 1e-12)
    residual = raw[half:] - s[half:]
    typical = max(float(np.median(np.abs(raw[half:]))), 1e-12)
    noise = mad(residual) / typical
    # Point-to-point jitter (differences remove the trend): the noise a median of k points still carries is
    # about 1.25 * jitter / sqrt(k); two such medians compared differ by noise alone up to ~2 sqrt(2) of that.
    jitter = mad(np.diff(raw[half:])) / math.sqrt(2) / typical if n - half > 2 else 0.0
    tolerance = 0.02 + 2 * math.sqrt(2) * 1.25 * jitter / math.sqrt(max(2 * m, n // 5, 1))
    positive = bool((s > 0).all())
    curve = np.log(s) if positive else s / level
    final = tail(curve, 0.2)
    total = curve[0] - final
    if total > 0:
        # Where the curve first comes within reach of where it ends (5% of the drop, or the smoothed noise).
        reach = max(0.05 * total, 0.5 * noise)
        reached = np.nonzero(curve <= final + reach)[0]
        stop = int(reached[0]) if len(reached) else n - 1
    else:
        stop = 0
    after = curve[stop : stop + max(3, n // 5)]
    tail_drop = float(np.median(after) - final)
    third = max(2, n // 3)
    first_slope = (s[0] - s[third - 1]) / max(c.step[third - 1] - c.step[0], 1e-12)
    last_slope = (s[n - third] - s[-1]) / max(c.step[-1] - c.step[n - third], 1e-12)
    ratio = float(last_slope / first_slope) if first_slope > 0 else 0.0
    return Shape(
        start=start,
        end=end,
        best=best,
        level=level,
        improvement=(start - end) / level,
        late_improvement=late,
        stop_fraction=stop / max(n - 1, 1),
        tail_log_drop=tail_drop,
        noise=noise,
        slope_ratio=ratio,
        trend=rank_correlation(c.step, s),
        rise=(end - best) / max(start - best, 1e-12 * level),
        tolerance=tolerance,
    )


def constant_from(values: np.ndarray) -> int | None:
    """Index from which ``values`` (rows, or one value per step) are exactly constant to the end (all zero
    included): None when even the last two differ. A live layer's gradients and activations change at every
    step; a dead one's are stuck at zero (or at one value)."""
    v = values.reshape(len(values), -1)
    if len(v) < 2:
        return None
    last = v[-1]
    same = (np.abs(v - last) <= 1e-9 * np.maximum(np.abs(last), 1e-300)).all(axis=1)
    if not same[-2]:
        return None
    changed = np.nonzero(~same)[0]
    return int(changed[-1]) + 1 if len(changed) else 0


DEATH_WITHIN = 0.15  # of the run: how abruptly a dying layer's gradients reach zero


def dead_from(values: np.ndarray, min_points: int, *, zero: bool) -> int | None:
    """Index from which a layer's gradient magnitudes (one per step; or rows of histogram summaries) are dead:
    exactly zero (``zero``) or exactly constant to the end, for at least a fifth of the run (all of it: dead
    from the first step), entered abruptly: from within two orders of magnitude of the early level in at most
    :data:`DEATH_WITHIN` of the run. A smooth decay over longer than that before they stopped moving was
    vanishing, not dying. (A logged norm may be constant without being dead: the norm
    after clipping. So a scalar norm counts only at exactly zero; a whole histogram that never changes counts.)"""
    n = len(values)
    if n < min_points or values.size == 0:  # min_points may be 0 in a config; an empty array cannot be reshaped
        return None
    v = np.abs(values.reshape(n, -1))
    start = constant_from(v)
    if start is None or n - start < max(3, 0.2 * n) or (zero and v[-1].max() > 0):
        return None
    if start > 0:
        size = v.max(axis=1)
        early = head(size[:start], 0.2)
        alive = np.nonzero(size[:start] >= 1e-2 * early)[0]  # within two orders of magnitude of the start
        if early > 0 and (not len(alive) or start - int(alive[-1]) > DEATH_WITHIN * n):
            return None
    return start
