"""Training phases of a loss curve: warm-up, fast descent and convergence.

The curve is smoothed first (a running median against spikes, then a running mean against noise), so the
boundaries follow the trend, not single points. With ``D`` the curve's total drop (from its early peak to its
smoothed end) and the span the steps it covers:

- **warm-up** runs from the first step until the smoothed curve first falls at ``WARMUP_RATE`` (50 %) of its
  fastest rate (a flat or rising start, as with a learning-rate warm-up; the rate is a secant over 1/10 of the
  points). Shorter than ``MIN_SEGMENT`` (3 %) of the span, it is no warm-up: the curve starts in descent.
- **convergence** starts at the first step from which, at every later step, what is left to fall until the end
  is no more than a slope of ``CONVERGED_SLOPE`` (10 %) of ``D`` per span would give (plus the trend's noise),
  and only when that tail is at least ``MIN_CONVERGED`` (10 %) of the span: a curve still falling at its end has
  no convergence segment.
- **descent** is what lies between.

The direction of progress is the caller's ``progress``: ``"down"`` (a loss, an error) or ``"up"`` (an accuracy,
read upside down); :func:`progress_of` tells it from a tag's name. Without it, the curve's larger move away from
its start decides (a fall more than a rise: ``"down"``).

The phases end at the curve's best point (its smoothed minimum, for ``"down"``) when the curve then worsens by
more than ``WORSENED`` (10 %) of its progress and more than its noise (an overfitting validation loss that
rises again): the part after it is no warm-up, descent or convergence and is left unsegmented, and the phases
are found over the part up to the best point alone.

Segments adjoin: one's ``end_step`` is the next one's ``start_step``. Pure numpy; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ridgeline.analysis.alert_config import LOSS, SCORE

Phase = Literal["warmup", "descent", "convergence"]
Progress = Literal["down", "up"]

WARMUP_RATE = 0.5
MIN_SEGMENT = 0.03
CONVERGED_SLOPE = 0.10
MIN_CONVERGED = 0.10
WORSENED = 0.10
MIN_POINTS = 8
MAX_POINTS = 4000  # longer series are sampled down: phases and trends need no more


@dataclass(frozen=True, slots=True)
class Segment:
    phase: Phase
    start_step: int
    end_step: int

    def as_dict(self) -> dict[str, int | str]:
        return {"phase": self.phase, "start_step": self.start_step, "end_step": self.end_step}


def finite_points(step: np.ndarray, value: np.ndarray, max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """The finite points of a series, in step order, as (int64 steps, float64 values); a longer series is
    sampled down to ``max_points`` evenly spaced points (first and last kept; single points keep their noise,
    which the forecast's band measures)."""
    step = np.asarray(step, dtype=np.int64)
    value = np.asarray(value, dtype=np.float64)
    keep = np.isfinite(value)
    step, value = step[keep], value[keep]
    order = np.argsort(step, kind="stable")
    step, value = step[order], value[order]
    if len(step) > max_points:
        picked = np.unique(np.linspace(0, len(step) - 1, max_points).round().astype(np.int64))
        step, value = step[picked], value[picked]
    return step, value


def _running(values: np.ndarray, width: int, reduce: str) -> np.ndarray:
    """A centred running median or mean over ``width`` (odd) points; near the ends the window keeps the points
    that exist (so the first value is the mean of the first half-window, not one noisy point)."""
    half = width // 2
    if half == 0 or len(values) < 3:
        return values.astype(np.float64, copy=True)
    padded = np.concatenate([np.full(half, np.nan), values, np.full(half, np.nan)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1)
    return np.nanmedian(windows, axis=1) if reduce == "median" else np.nanmean(windows, axis=1)


def window(n: int) -> int:
    """The smoothing width for a curve of ``n`` points: 1/25 of them, at least 5, odd."""
    return max(5, n // 25) | 1


def smooth(values: np.ndarray, width: int | None = None) -> np.ndarray:
    """The trend of a noisy curve: running median (spikes out) then running mean (noise out)."""
    width = window(len(values)) if width is None else width | 1
    return _running(_running(values, width, "median"), width, "mean")


_LOSS = re.compile(LOSS)
_SCORE = re.compile(SCORE)


def progress_of(tag: str) -> Progress | None:
    """The direction of progress a tag's name tells: ``"down"`` for losses and errors, ``"up"`` for accuracies
    and scores (the alert detector's built-in rules, :data:`ridgeline.analysis.alert_config.LOSS` and ``SCORE``,
    the loss rule first), None for any other name (:func:`segment` then reads it from the curve)."""
    if _LOSS.search(tag):
        return "down"
    if _SCORE.search(tag):
        return "up"
    return None


def segment(step: np.ndarray, value: np.ndarray, progress: Progress | None = None) -> list[Segment]:
    """The phases of a loss curve, or of a curve progressing ``progress`` (see the module docstring); ``[]`` for
    fewer than ``MIN_POINTS`` finite points (up to the best point, when the curve worsens after it). A curve that
    never progresses by more than its noise is one convergence segment."""
    steps, values = finite_points(step, value)
    n = len(steps)
    if n < MIN_POINTS or steps[-1] == steps[0]:
        return []
    width = window(n)
    trend = smooth(values, width)
    if progress is None:  # the larger move away from the start
        progress = "up" if trend.max() - trend[0] > trend[0] - trend.min() else "down"
    sign = -1.0 if progress == "up" else 1.0  # a rising metric (accuracy): the same phases upside down
    trend, values = sign * trend, sign * values
    residual = values - trend
    noise = 1.4826 * float(np.median(np.abs(residual - np.median(residual))))
    tolerance = 2.0 * noise / np.sqrt(width)  # how far the trend itself may wander by noise alone

    # Worse again after its best point (overfitting): the phases are those of the curve up to that point.
    best = int(np.argmin(trend))
    gained = float(np.max(trend[: best + 1]) - trend[best])
    worse = float(np.mean(trend[-max(1, width // 2) :]) - trend[best])
    if worse > max(4 * tolerance, WORSENED * gained):
        n = best + 1
        steps, values, trend = steps[:n], values[:n], trend[:n]
        if n < MIN_POINTS or steps[-1] == steps[0]:
            return []

    peak = int(np.argmax(trend[: max(1, n // 2)]))
    end_level = float(np.mean(trend[-max(1, width // 2) :]))
    drop = float(trend[peak] - end_level)
    span = float(steps[-1]) - float(steps[0])  # in floats: int64 steps near ±2**63 would wrap
    first, last = int(steps[0]), int(steps[-1])
    if not drop > 4 * tolerance:
        return [Segment("convergence", first, last)]

    # Slope as drop per whole span: a secant over +-1/20 of the points (differences of neighbours are noise).
    reach = max(1, n // 20)
    ahead = np.minimum(np.arange(n) + reach, n - 1)
    behind = np.maximum(np.arange(n) - reach, 0)
    slope = (trend[behind] - trend[ahead]) / (steps[ahead] - steps[behind]) * span / drop
    fast = np.nonzero(slope >= WARMUP_RATE * float(np.max(slope)))[0]
    warm_end = int(fast[0]) if len(fast) else 0
    if steps[warm_end] - steps[0] < MIN_SEGMENT * span:
        warm_end = 0

    # Converged from t on when what remains to fall from t to the end is no more than a slow slope would give.
    remaining = trend - end_level
    allowed = CONVERGED_SLOPE * drop * (steps[-1] - steps) / span + tolerance
    violating = np.nonzero(remaining > allowed)[0]
    converge = max(int(violating[-1]) + 1 if len(violating) else 0, warm_end)
    if converge >= n - 1 or steps[-1] - steps[converge] < MIN_CONVERGED * span:
        converge = n - 1  # still falling at the end: no convergence segment

    segments = []
    if warm_end > 0:
        segments.append(Segment("warmup", first, int(steps[warm_end])))
    if converge > warm_end:
        segments.append(Segment("descent", int(steps[warm_end]), int(steps[converge])))
    if converge < n - 1:
        segments.append(Segment("convergence", int(steps[converge]), last))
    return segments


__all__ = ["Phase", "Progress", "Segment", "finite_points", "progress_of", "segment", "smooth", "window"]
