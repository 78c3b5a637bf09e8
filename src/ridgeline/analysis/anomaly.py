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
chunk. Window sums come from block sums at fixed positions in the series (:func:`window_mean_std`), so the
results are exactly the same whether a series is fed in one chunk or point by point
(tests/analysis/test_anomaly.py checks it with hypothesis).

Configuration: :class:`DetectorParams` per tag pattern in an :class:`AlertConfig` (first matching rule wins;
built-in rules, kept after the user's: learning-rate tags are exempt from outlier and spike alerts, since
schedules change them on purpose; losses and gradients alert on rises, accuracies on falls).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

AlertKind = Literal["outlier", "nan", "inf", "spike", "stalled"]
Direction = Literal["both", "up", "down"]  # which departures count: "up" for a loss, "down" for an accuracy
DIRECTIONS: tuple[Direction, ...] = ("both", "up", "down")
KINDS: tuple[AlertKind, ...] = ("outlier", "nan", "inf", "spike", "stalled")

MAD_TO_SIGMA = 1.4826  # 1/Φ⁻¹(3/4): the MAD of Gaussian noise times this is its σ
SPIKE_STD_FLOOR = 1.0  # the spike scale is at least the window standard deviation
RELATIVE_TOLERANCE = 1e-9  # departures below this fraction of the level are rounding, never an alert
BLOCK = 8192  # windows computed at once (keeps the temporaries of a long first chunk in cache)
INTERVAL_POINTS = 11  # the logging interval is the median gap over this many last steps


@dataclass(frozen=True, slots=True)
class DetectorParams:
    """How one series is watched; every field can be set per tag pattern (see :class:`AlertConfig`).

    ``stall_factor``: a series is stalled when the run went on for more than this many of its own logging
    intervals (in steps, and in wall time) since its last point."""

    window: int = 50
    consecutive: int = 3
    k: float = 3.0
    spike_window: int = 50
    spike_k: float = 10.0
    stall_factor: float = 10.0
    outlier: bool = True
    spike: bool = True
    stalled: bool = True
    direction: Direction = "both"

    def __post_init__(self) -> None:
        checks = (
            ("window", self.window >= 2, "an integer >= 2"),
            ("consecutive", self.consecutive >= 1, "an integer >= 1"),
            ("k", self.k > 0 and math.isfinite(self.k), "a positive number"),
            ("spike_window", self.spike_window >= 3, "an integer >= 3"),
            ("spike_k", self.spike_k > 0 and math.isfinite(self.spike_k), "a positive number"),
            ("stall_factor", self.stall_factor > 1 and math.isfinite(self.stall_factor), "a number > 1"),
            ("direction", self.direction in DIRECTIONS, "one of " + ", ".join(map(repr, DIRECTIONS))),
        )
        for name, ok, expected in checks:
            if not ok:
                raise ValueError(f"alert setting {name!r} must be {expected}, got {getattr(self, name)!r}")

    @property
    def history(self) -> int:
        """How many past finite values a detector keeps: its windows, and the block before them (see
        :func:`window_mean_std`)."""
        return 2 * max(self.window, self.spike_window) + self.consecutive


# Learning rates follow schedules (step decay, warm-up, cosine): a drop is intended, not an anomaly.
LEARNING_RATE = r"(?i)(^|[/_.\-\s])(lr|learning[_\-\s]?rate)([/_.\-\s]|$)"
# Lower is better: only a rise is bad news (a step decay of the learning rate drops the loss to a new level).
LOSS = r"(?i)loss|(^|[/_.\-\s])(nll|mse|mae|rmse|perplexity|ppl|err|error)([/_.\-\s]|$)"
# Gradient norms: explosions are the alarm; a collapse is the diagnosis' vanishing_gradients.
GRADIENT = r"(?i)grad"
# Higher is better: only a fall is bad news.
SCORE = r"(?i)acc|(^|[/_.\-\s])(top-?\d+|f1|auc|iou|dice|bleu|rouge\w*|map|precision|recall)([/_.\-\s]|$)"
BUILTIN_RULES: tuple[tuple[str, Mapping[str, Any]], ...] = (
    (LEARNING_RATE, {"outlier": False, "spike": False}),
    (LOSS, {"direction": "up"}),
    (GRADIENT, {"direction": "up"}),
    (SCORE, {"direction": "down"}),
)


def builtin_rules(default: DetectorParams) -> tuple[tuple[re.Pattern[str], DetectorParams], ...]:
    """:data:`BUILTIN_RULES` on top of ``default``."""
    return tuple((re.compile(pattern), replace(default, **settings)) for pattern, settings in BUILTIN_RULES)


@dataclass(frozen=True)
class AlertConfig:
    """Detector settings per tag pattern: ``rules`` are ``(regex, params)`` tried in order with ``re.search``
    on the tag, the first match wins; ``default`` applies when none matches."""

    rules: tuple[tuple[re.Pattern[str], DetectorParams], ...] = field(
        default_factory=lambda: builtin_rules(DetectorParams())
    )
    default: DetectorParams = field(default_factory=DetectorParams)

    def params_for(self, tag: str) -> DetectorParams:
        for pattern, params in self.rules:
            if pattern.search(tag):
                return params
        return self.default

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> AlertConfig:
        """From ``{"default": {setting: value}, "rules": [{"tag": regex, setting: value, ...}]}`` (the shape of
        the TOML/JSON config file). A rule's unset settings come from ``default``; the built-in rules
        (:data:`BUILTIN_RULES`) are kept after the given rules unless ``"builtin_rules": false``."""
        if not isinstance(data, Mapping):
            raise ValueError("alert config must be a table/object with 'default' and/or 'rules'")
        unknown = set(data) - {"default", "rules", "builtin_rules"}
        if unknown:
            raise ValueError(f"alert config: unknown key(s) {sorted(unknown)}; expected 'default', 'rules'")
        default = _params(DetectorParams(), data.get("default", {}), "default")
        rules: list[tuple[re.Pattern[str], DetectorParams]] = []
        entries = data.get("rules", [])
        if not isinstance(entries, list):
            raise ValueError("alert config: 'rules' must be a list of tables with a 'tag' regex")
        for number, entry in enumerate(entries, 1):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("tag"), str):
                raise ValueError(f"alert config: rule {number} needs a 'tag' (a regular expression)")
            try:
                pattern = re.compile(entry["tag"])
            except re.error as error:
                raise ValueError(f"alert config: rule {number}: invalid tag regex {entry['tag']!r}: {error}") from None
            settings = {key: value for key, value in entry.items() if key != "tag"}
            rules.append((pattern, _params(default, settings, f"rule {number}")))
        if data.get("builtin_rules", True):
            rules.extend(builtin_rules(default))
        return cls(rules=tuple(rules), default=default)

    @classmethod
    def load(cls, path: str | Path) -> AlertConfig:
        """Read a ``.toml`` or ``.json`` config file (see :meth:`from_mapping`); ValueError names the problem."""
        from ridgeline.settings_files import read_table

        return cls.from_mapping(read_table(path, "alert config"))


def _params(base: DetectorParams, settings: Mapping[str, Any], where: str) -> DetectorParams:
    if not isinstance(settings, Mapping):
        raise ValueError(f"alert config: {where} must be a table of settings")
    known = {item.name: item.type for item in fields(DetectorParams)}
    unknown = set(settings) - set(known)
    if unknown:
        raise ValueError(f"alert config: {where}: unknown setting(s) {sorted(unknown)}; known: {sorted(known)}")
    for name, value in settings.items():
        if known[name] == "Direction":
            if value not in DIRECTIONS:
                raise ValueError(f"alert config: {where}: {name!r} must be one of {list(DIRECTIONS)}, got {value!r}")
            continue
        wanted = bool if known[name] == "bool" else int if known[name] == "int" else float
        if isinstance(value, bool) != (wanted is bool) or not isinstance(value, (int, float)):
            raise ValueError(f"alert config: {where}: {name!r} must be a {wanted.__name__}, got {value!r}")
        if wanted is int and not float(value).is_integer():
            raise ValueError(f"alert config: {where}: {name!r} must be an integer, got {value!r}")
    converted: dict[str, Any] = {
        name: (int(value) if known[name] == "int" else value) for name, value in settings.items()
    }
    return replace(base, **converted)


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


def window_mean_std(
    values: np.ndarray, window: int, start: int, stop: int, origin: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population standard deviation of ``values[j - window:j]`` for each ``j`` in ``start..stop-1``
    (``start >= window``), where ``values[0]`` is the series' ``origin``-th value.

    O(1) per window: the series is cut into blocks of ``window`` values at fixed positions (multiples of
    ``window`` from the series' start), each with prefix and suffix sums of its values minus the block's first
    value; a window is a suffix of one block plus a prefix of the next. The sums depend on a block's contents
    alone, so a window's result does not depend on how the series was chunked: streaming equals batch, bit for
    bit (``values`` must reach back to the start of the block before ``start``'s). Where ``E[d²] - E[d]²``
    would lose more than six digits to cancellation (a window far from its blocks' first values, say after a
    1e12 outlier), the window is summed again directly, in two passes. Computed in pieces of BLOCK windows, so
    the temporaries stay in cache."""
    pieces = [
        _block_mean_std(values, window, first, min(first + BLOCK, stop), origin) for first in range(start, stop, BLOCK)
    ]
    if not pieces:
        return np.empty(0), np.empty(0)
    return np.concatenate([mean for mean, _ in pieces]), np.concatenate([std for _, std in pieces])


def _block_mean_std(
    values: np.ndarray, window: int, start: int, stop: int, origin: int
) -> tuple[np.ndarray, np.ndarray]:
    rows = stop - start
    if rows <= 0:
        return np.empty(0), np.empty(0)
    first_block = (origin + start) // window - 1
    begin = first_block * window - origin
    if begin < 0:
        raise ValueError("values must reach back to the start of the block before start's")
    segment = values[begin:stop]
    count = -(-len(segment) // window)
    padded = np.zeros(count * window)
    padded[: len(segment)] = segment
    blocks = padded.reshape(count, window)
    reference = np.repeat(blocks[:, 0], window)
    deviation = blocks - blocks[:, :1]
    squared = deviation * deviation
    prefix1 = np.cumsum(deviation, axis=1).ravel()
    prefix2 = np.cumsum(squared, axis=1).ravel()
    suffix1 = np.cumsum(deviation[:, ::-1], axis=1)[:, ::-1].ravel()
    suffix2 = np.cumsum(squared[:, ::-1], axis=1)[:, ::-1].ravel()
    first = start - begin  # the first window's end, in segment positions
    here = slice(first, first + rows)
    back = slice(first - window, first - window + rows)
    previous = slice(first - 1, first - 1 + rows)
    offset = np.arange(first, first + rows) % window  # values in the prefix part
    has_prefix = offset > 0
    head1 = np.where(has_prefix, prefix1[previous], 0.0)
    head2 = np.where(has_prefix, prefix2[previous], 0.0)
    shift = reference[here] - reference[back]
    total1 = suffix1[back] + head1 + offset * shift
    total2 = suffix2[back] + head2 + 2 * shift * head1 + offset * shift * shift
    mean_deviation = total1 / window
    variance = total2 / window - mean_deviation * mean_deviation
    means = reference[back] + mean_deviation
    stds = np.sqrt(np.maximum(variance, 0.0))
    redo = np.flatnonzero(~(variance * 1e6 >= total2 / window))
    if len(redo):
        again = sliding_window_view(values, window)[start - window + redo]
        total = np.zeros(len(redo))
        for column in range(window):
            total += again[:, column]
        mean = total / window
        squares = np.zeros(len(redo))
        for column in range(window):
            step = again[:, column] - mean
            squares += step * step
        means[redo] = mean
        stds[redo] = np.sqrt(squares / window)
    return means, stds


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
