"""Anomaly alerts over scalar series: streaming detectors, pure numpy, no I/O (see docs/insights.md).

Kinds of alert, per series (run, tag):

* ``outlier`` — the rule users know: ``consecutive`` points in a row (default 3) all outside mean ± k·σ
  (default k=3) of the sliding window of ``window`` finite points (default 50) that precedes the first of
  them (σ: the population standard deviation). The window ends where the run starts, so the run's own points
  do not widen the band they are judged by (a window that took them in would mask a 7σ excursion by its
  third point). The alert is raised at the point that completes the run — the first moment the rule holds,
  so a live page hears of it at once — with that band as ``expected_low``/``expected_high``. One alert per
  excursion: while later runs keep qualifying, nothing new is raised.
* ``spike`` — a sudden departure from the recent trend (a Hampel identifier on the ``spike_window`` finite
  points before the point, default 50): the trend is their median, the scale the larger of 1.4826 × their
  median absolute deviation (MAD; σ for Gaussian noise) and their standard deviation (so a window that is
  mostly one repeated value, a quantised accuracy near 1, does not make every small change a spike); a
  point further than ``spike_k`` scales from the median (default 10) is a spike. Ten robust σ is never
  reached by healthy Gaussian or Laplace noise (very heavy tails, Student-t with 4 degrees of freedom or
  fewer, do reach it now and then: raise ``spike_k`` for such tags), and the median follows a steep descent
  closely enough that the trend itself stays well inside the limit. One alert per excursion, like outliers.
* ``nan`` / ``inf`` — a non-finite value, at once; one alert per streak (NaN after NaN is not news).
  Non-finite points are left out of the windows and of the outlier runs.
* ``stalled`` — a series that stopped while the others of its run continue: see :func:`stalled_alerts`.

Outliers and spikes count departures either way by default; ``direction`` "up" (a loss) or "down" (an
accuracy) keeps one side. The built-in rules already do so for tags named like losses and gradient norms (only
rises count: a loss falling to a lower level after a learning-rate decay is the schedule working) and like
accuracies (only falls count).

Streaming: a :class:`SeriesDetector` keeps the last ``2·max(window, spike_window) + consecutive`` finite
values and a few counters, and :meth:`SeriesDetector.update` costs O(new points), vectorised within a
chunk. Window sums come from block sums at fixed positions in the series
(:func:`ridgeline.analysis.window_stats.window_mean_std`), so the results are exactly the same whether a series
is fed in one chunk or point by point (tests/analysis/test_anomaly.py checks it with hypothesis).

Configuration: one :class:`~ridgeline.analysis.alert_config.DetectorParams` per series, chosen by tag pattern
from an :class:`~ridgeline.analysis.alert_config.AlertConfig` (:mod:`ridgeline.analysis.alert_config`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ridgeline.analysis.alert_config import DetectorParams
from ridgeline.analysis.window_stats import BLOCK, window_mean_std

AlertKind = Literal["outlier", "nan", "inf", "spike", "stalled"]
KINDS: tuple[AlertKind, ...] = ("outlier", "nan", "inf", "spike", "stalled")

MAD_TO_SIGMA = 1.4826  # 1/Φ⁻¹(3/4): the MAD of Gaussian noise times this is its σ
SPIKE_STD_FLOOR = 1.0  # the spike scale is at least the window standard deviation
RELATIVE_TOLERANCE = 1e-9  # departures below this fraction of the level are rounding, never an alert
INTERVAL_POINTS = 11  # the logging interval is the median gap over this many last steps


@dataclass(frozen=True, slots=True)
class Alert:
    """One alert. ``value`` is the point's value (NaN/±Inf for those kinds; the last value for ``stalled``);
    ``expected_low``/``expected_high`` the range the value was expected in (None where there is none)."""

    run: str
    tag: str
    step: int
    wall_time: float
    kind: AlertKind
    value: float
    expected_low: float | None = None
    expected_high: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The API/CLI form: non-finite numbers become null (JSON has none; ``kind`` says which)."""
        return {
            "run": self.run,
            "tag": self.tag,
            "step": self.step,
            "wall_time": self.wall_time,
            "kind": self.kind,
            "value": _finite_or_none(self.value),
            "expected_low": _finite_or_none(self.expected_low),
            "expected_high": _finite_or_none(self.expected_high),
        }


def _finite_or_none(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def departure(difference: np.ndarray, params: DetectorParams) -> np.ndarray:
    """How far values departed from their reference in the direction that counts (negative: the other way)."""
    if params.direction == "up":
        return difference
    if params.direction == "down":
        return -difference
    return np.abs(difference)


class _Chunk:
    """A chunk being fed: ``buffer`` = the kept finite history then the chunk's finite values (the first
    ``known`` are history); ``where`` = each new finite value's index in the chunk's ``steps``/``walls``.
    Window statistics are computed once per window length and shared (outliers and spikes with the same
    window, the default, look at the same windows)."""

    def __init__(
        self,
        buffer: np.ndarray,
        known: int,
        origin: int,
        lookback: int,
        where: np.ndarray,
        steps: np.ndarray,
        walls: np.ndarray,
    ) -> None:
        self.buffer = buffer
        self.known = known
        self.origin = origin  # the series' index of buffer[0] (counting finite values only)
        self.lookback = lookback  # how far before the new values windows may end (an outlier run's start)
        self.where = where
        self.steps = steps
        self.walls = walls
        self._stats: dict[int, tuple[int, np.ndarray, np.ndarray]] = {}

    def window_stats(self, window: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """:func:`window_mean_std` for ``j`` in ``start..stop-1``, ``start >= max(window, known - lookback)``."""
        if window not in self._stats:
            first = max(window, self.known - self.lookback)
            stats = window_mean_std(self.buffer, window, first, len(self.buffer), self.origin)
            self._stats[window] = (first, *stats)
        first, mean, std = self._stats[window]
        return mean[start - first : stop - first], std[start - first : stop - first]


class SeriesDetector:
    """The streaming state of one series: feed it chunks of points with :meth:`update`, get the alerts."""

    def __init__(self, params: DetectorParams | None = None, *, run: str = "", tag: str = "") -> None:
        self.params = params or DetectorParams()
        self.run = run
        self.tag = tag
        self.points = 0  # points fed so far (finite or not)
        self.finite_points = 0  # finite values fed so far
        self._history = np.empty(0)  # the last params.history finite values
        # After an outlier alert, the band that raised it and how many more points stay quiet (see _quieted).
        self._quiet: tuple[float, float, int] | None = None
        self._spiking = False  # was the last finite point a spike
        self._nonfinite = 0  # 0: last point finite (or none); 1: in a NaN streak; 2: in an Inf streak
        self.last_step: int | None = None
        self.last_wall_time = math.nan
        self.last_value = math.nan
        self._recent_steps = np.empty(0, dtype=np.int64)
        self._recent_walls = np.empty(0)
        self.stall_reported = False

    # --- feeding -----------------------------------------------------------------------------------------------
    def update(
        self,
        step: Sequence[int] | np.ndarray,
        wall_time: Sequence[float] | np.ndarray,
        value: Sequence[float] | np.ndarray,
    ) -> list[Alert]:
        """Advance over the next points (three equally long 1-D arrays, in the order they were logged) and
        return the alerts they raise, in point order (at one point: nan/inf, outlier, spike)."""
        steps = np.asarray(step, dtype=np.int64).reshape(-1)
        walls = np.asarray(wall_time, dtype=np.float64).reshape(-1)
        values = np.asarray(value, dtype=np.float64).reshape(-1)
        if not len(steps) == len(walls) == len(values):
            raise ValueError(f"step, wall_time and value differ in length: {len(steps)}, {len(walls)}, {len(values)}")
        count = len(values)
        if count == 0:
            return []
        found: list[tuple[int, int, Alert]] = []  # (point index, order at the point, alert)
        self._nonfinite_alerts(steps, walls, values, found)
        finite = np.isfinite(values)
        where = np.flatnonzero(finite)
        if len(where):
            with np.errstate(over="ignore", invalid="ignore"):  # values near the float limits: inf sums, no alert
                self._finite_alerts(values, where, steps, walls, found)
        self.points += count
        self.last_step = int(steps[-1])
        self.last_wall_time = float(walls[-1])
        self.last_value = float(values[-1])
        self._recent_steps = np.concatenate([self._recent_steps, steps[-INTERVAL_POINTS:]])[-INTERVAL_POINTS:]
        self._recent_walls = np.concatenate([self._recent_walls, walls[-INTERVAL_POINTS:]])[-INTERVAL_POINTS:]
        self.stall_reported = False
        found.sort(key=lambda item: (item[0], item[1]))
        return [alert for _, _, alert in found]

    def _finite_alerts(
        self,
        values: np.ndarray,
        where: np.ndarray,
        steps: np.ndarray,
        walls: np.ndarray,
        found: list[tuple[int, int, Alert]],
    ) -> None:
        buffer = np.concatenate([self._history, values[where]])
        known = len(self._history)
        chunk = _Chunk(buffer, known, self.finite_points - known, self.params.consecutive - 1, where, steps, walls)
        if self.params.outlier:
            self._outlier_alerts(chunk, found)
        if self.params.spike:
            self._spiking = self._excursions("spike", self._spike_flags(chunk), self._spiking, chunk, found)
        self._history = buffer[-self.params.history :].copy()
        self.finite_points += len(where)

    def _alert(
        self,
        kind: AlertKind,
        step: np.integer[Any] | int,
        wall: float,
        value: float,
        low: float | None = None,
        high: float | None = None,
    ) -> Alert:
        low, high = (None if bound is None else float(bound) for bound in (low, high))
        return Alert(self.run, self.tag, int(step), float(wall), kind, float(value), low, high)

    def _nonfinite_alerts(
        self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray, found: list[tuple[int, int, Alert]]
    ) -> None:
        code = np.where(np.isnan(values), 1, np.where(np.isinf(values), 2, 0))
        previous = np.concatenate([[self._nonfinite], code[:-1]])
        for index in np.flatnonzero((code != 0) & (code != previous)):
            kind: AlertKind = "nan" if code[index] == 1 else "inf"
            found.append((int(index), 0, self._alert(kind, steps[index], walls[index], values[index])))
        self._nonfinite = int(code[-1])

    def _outlier_flags(self, chunk: _Chunk) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per new finite point (as the end of a run of ``consecutive``): are the run's points all out of the
        band of the ``window`` points before the run's first point; with that band."""
        params = self.params
        window, length = params.window, params.consecutive
        buffer, known = chunk.buffer, chunk.known
        flags = np.zeros(len(buffer) - known, dtype=bool)
        low = np.full(len(flags), np.nan)
        high = np.full(len(flags), np.nan)
        first_end = max(known, window + length - 1)  # the first run end whose start has a full window before it
        if first_end < len(buffer):
            first_start = first_end - length + 1
            mean, std = chunk.window_stats(window, first_start, len(buffer) - length + 1)
            count = len(mean)
            hit = np.ones(count, dtype=bool)
            for offset in range(length):
                deviation = departure(buffer[first_start + offset : first_start + offset + count] - mean, params)
                hit &= (deviation > params.k * std) & (deviation > RELATIVE_TOLERANCE * np.abs(mean))
            flags[first_end - known :] = hit
            low[first_end - known :] = mean - params.k * std
            high[first_end - known :] = mean + params.k * std
        return flags, low, high

    def _outlier_alerts(self, chunk: _Chunk, found: list[tuple[int, int, Alert]]) -> None:
        """One alert per excursion: after an alert, the excursion lasts until a point comes back inside the band
        that raised it, or ``window`` more points went by (a level shift: by then the window has moved to the
        new level). Sequential, but over the (rare) qualifying runs only."""
        flags, low, high = self._outlier_flags(chunk)
        values = chunk.buffer[chunk.known :]
        cursor = 0  # the new points before this have been accounted for in self._quiet
        for position in np.flatnonzero(flags).tolist():
            if self._quiet is not None and self._quieted(values[cursor : position + 1]):
                cursor = position + 1
                continue
            cursor = position + 1
            index = int(chunk.where[position])
            found.append(
                (
                    index,
                    KINDS.index("outlier"),
                    self._alert(
                        "outlier",
                        chunk.steps[index],
                        chunk.walls[index],
                        values[position],
                        low[position],
                        high[position],
                    ),
                )
            )
            self._quiet = (float(low[position]), float(high[position]), self.params.window)
        if self._quiet is not None:
            self._quieted(values[cursor:])

    def _quieted(self, values: np.ndarray) -> bool:
        """Advance the quiet period over ``values``; True when it still holds after the last of them."""
        assert self._quiet is not None
        low, high, left = self._quiet
        inside = np.flatnonzero((values >= low) & (values <= high))
        end = min(int(inside[0]) if len(inside) else len(values), int(left))
        if end < len(values):
            self._quiet = None
            return False
        self._quiet = (low, high, left - len(values))
        return True

    def _spike_flags(self, chunk: _Chunk) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per new finite point: is it a spike; with the range it was expected in (median ± spike_k scales)."""
        params = self.params
        buffer, known = chunk.buffer, chunk.known
        flags = np.zeros(len(buffer) - known, dtype=bool)
        low = np.full(len(flags), np.nan)
        high = np.full(len(flags), np.nan)
        start = max(known, params.spike_window)
        if start < len(buffer):
            # Only points far from the window's mean can be far from its median: |mean - median| <= std, and
            # the scale is at least SPIKE_STD_FLOOR std (and |median| >= |mean| - std for the rounding tolerance).
            # The exact test runs on those candidates alone (rare), so the medians, the costly part, are taken
            # for a few windows, not for every point.
            mean, std = chunk.window_stats(params.spike_window, start, len(buffer))
            current = buffer[start:]
            bound = np.maximum(
                (params.spike_k * SPIKE_STD_FLOOR - 1) * std,
                RELATIVE_TOLERANCE * np.abs(mean) - (1 + RELATIVE_TOLERANCE) * std,
            )
            candidates = np.flatnonzero(np.abs(current - mean) >= bound * (1 - 1e-9))
            if len(candidates):  # (most chunks have none: skip building the view)
                windows = sliding_window_view(buffer[:-1], params.spike_window)[start - params.spike_window :]
            offset = start - known
            for first in range(0, len(candidates), BLOCK):
                chosen = candidates[first : first + BLOCK]
                picked = windows[chosen]
                median = np.median(picked, axis=1)
                mad = np.median(np.abs(picked - median[:, None]), axis=1)
                scale = np.maximum(MAD_TO_SIGMA * mad, SPIKE_STD_FLOOR * std[chosen])
                deviation = departure(current[chosen] - median, params)
                flags[offset + chosen] = (deviation > params.spike_k * scale) & (
                    deviation > RELATIVE_TOLERANCE * np.abs(median)
                )
                low[offset + chosen] = median - params.spike_k * scale
                high[offset + chosen] = median + params.spike_k * scale
        return flags, low, high

    def _excursions(
        self,
        kind: AlertKind,
        flagged: tuple[np.ndarray, np.ndarray, np.ndarray],
        carry: bool,
        chunk: _Chunk,
        found: list[tuple[int, int, Alert]],
    ) -> bool:
        """Alerts where a stretch of flagged points begins (``carry``: the point before the chunk was
        flagged); returns whether the chunk's last point is flagged."""
        flags, low, high = flagged
        previous = np.concatenate([[carry], flags[:-1]])
        order = KINDS.index(kind)
        for position in np.flatnonzero(flags & ~previous):
            index = int(chunk.where[position])
            alert = self._alert(
                kind,
                chunk.steps[index],
                chunk.walls[index],
                chunk.buffer[chunk.known + position],
                float(low[position]),
                float(high[position]),
            )
            found.append((index, order, alert))
        return bool(flags[-1])

    # --- logging interval (for stalls) ---------------------------------------------------------------------
    def interval(self) -> tuple[float, float] | None:
        """The series' usual logging interval as (steps, seconds): the median gap over its last few points;
        None with fewer than 3 points or no forward progress."""
        if len(self._recent_steps) < 3:
            return None
        step_gaps = np.diff(self._recent_steps)
        step_gaps = step_gaps[step_gaps > 0]
        if not len(step_gaps):
            return None
        wall_gaps = np.diff(self._recent_walls)
        wall_gaps = wall_gaps[wall_gaps >= 0]
        return float(np.median(step_gaps)), float(np.median(wall_gaps)) if len(wall_gaps) else 0.0


def stalled_alerts(detectors: Iterable[SeriesDetector]) -> list[Alert]:
    """``stalled`` alerts for the series of ONE run: a series whose last point lags the run's latest step by
    more than ``stall_factor`` of its own step interval AND the run's latest wall time by more than
    ``stall_factor`` of its own wall-time interval (both: a validation metric logged per epoch while training
    logs per batch has steps in other units, but keeps pace in wall time). Needs 3 points to know the interval;
    one alert per stall (new points re-arm it). The alert is at the series' last point, with its last value."""
    series = [detector for detector in detectors if detector.last_step is not None]
    if len(series) < 2:
        return []
    run_step = max(int(detector.last_step) for detector in series if detector.last_step is not None)
    run_wall = max(detector.last_wall_time for detector in series)
    alerts = []
    for detector in series:
        if detector.stall_reported or not detector.params.stalled or detector.last_step is None:
            continue
        interval = detector.interval()
        if interval is None:
            continue
        step_interval, wall_interval = interval
        factor = detector.params.stall_factor
        behind_steps = run_step - detector.last_step > factor * step_interval
        behind_wall = not run_wall - detector.last_wall_time <= factor * wall_interval
        if behind_steps and behind_wall:
            detector.stall_reported = True
            alerts.append(
                Alert(
                    detector.run,
                    detector.tag,
                    detector.last_step,
                    detector.last_wall_time,
                    "stalled",
                    detector.last_value,
                )
            )
    return alerts


def detect(
    step: Sequence[int] | np.ndarray,
    wall_time: Sequence[float] | np.ndarray,
    value: Sequence[float] | np.ndarray,
    params: DetectorParams | None = None,
    *,
    run: str = "",
    tag: str = "",
) -> list[Alert]:
    """The alerts of a whole series at once (the same as feeding it to a fresh :class:`SeriesDetector`)."""
    return SeriesDetector(params, run=run, tag=tag).update(step, wall_time, value)
