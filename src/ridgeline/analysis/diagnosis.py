"""Training diagnosis: read a run's curves the way an experienced practitioner would, and say what is wrong.

Pure functions over numpy arrays (no I/O): :func:`diagnose` takes a run's scalar series and histogram summaries
keyed by name and returns :class:`Finding` objects, each with a kind, a confidence in 0..1, the step where the
problem starts, the tags that show it, the numbers that triggered it and a message in plain words. The adapter
that reads a log directory is :mod:`ridgeline.analysis.diagnosis_source`.

Kinds (:data:`KINDS`):

- ``overfitting``: the training loss keeps falling while the validation loss rises from its best (or the gap
  between them keeps widening while validation stays flat).
- ``underfitting``: training (and validation) loss high and flat from the start; accuracy low where logged.
- ``plateau``: the loss fell, then stopped improving early and stayed flat for most of the run.
- ``lr_too_high``: the training loss oscillates with a large amplitude, diverges, or turns NaN/Inf.
- ``lr_too_low``: the loss falls steadily but so slowly that it is nowhere near converging.
- ``vanishing_gradients``: gradient norms collapse by orders of magnitude while the loss stalls.
- ``exploding_gradients``: gradient norms grow by orders of magnitude (NaN/Inf often follows).
- ``dead_units``: a layer's weights stop changing, or its gradients drop to exactly zero, while training goes on.

Everything is judged on robust statistics of smoothed curves (rolling medians, median absolute deviations, values
relative to the curve's own level) so that batch noise alone raises nothing. Tags are recognised by the naming
conventions in :class:`DiagnosisConfig`, whose regular expressions can all be overridden.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args

import numpy as np

Kind = Literal[
    "overfitting",
    "underfitting",
    "plateau",
    "lr_too_high",
    "lr_too_low",
    "vanishing_gradients",
    "exploding_gradients",
    "dead_units",
]
KINDS: tuple[Kind, ...] = get_args(Kind)

_SEP = r"[/_.\-\s:]"
_AGGREGATE = re.compile(r"(?i)(?:^|[/_.])(?:total|global|all|overall|model)(?:_?norm)?$")


@dataclass(frozen=True)
class DiagnosisConfig:
    """How tags are recognised (regular expressions, searched anywhere in the name, case-insensitive unless the
    pattern says otherwise) and the few thresholds a user may want to move.

    ``train``/``validation`` are matched against ``<run part>/<tag>`` names, so a run named ``exp/val`` or a tag
    ``loss/val`` both count; removing the match gives the key that pairs a training series with its validation
    twin (``train/loss`` with ``val/loss``, ``loss_train`` with ``loss_valid``). ``gradient`` marks gradient
    norms and gradient histograms; every other histogram that is not an ``activation`` is taken as a layer's
    weights (as written by ``add_histogram(name, param)``).
    """

    train: str = rf"(?i)(?:^|(?<={_SEP}))(?:train|training|trn)(?=$|{_SEP})"
    validation: str = rf"(?i)(?:^|(?<={_SEP}))(?:val|valid|validation|eval|evaluation|test|dev|holdout)(?=$|{_SEP})"
    loss: str = r"(?i)loss|nll|cross_?entropy|(?:^|[/_.])(?:mse|mae|ce)(?:$|[/_.])|perplexity|ppl"
    accuracy: str = r"(?i)acc(?:uracy)?|top_?1"
    gradient: str = r"(?i)(?:^|[/_.\-])grads?(?:$|[/_.\-])|grad_?norm|gradient"
    activation: str = r"(?i)activation|(?:^|[/_.])(?:act|acts|relu|out|output|logits|preact)(?:$|[/_.])"
    max_points: int = 2000  # longer series are reduced to this many bucket medians first
    min_points: int = 8  # fewer points than this: too short to judge
    min_confidence: float = 0.5  # findings below are dropped

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> DiagnosisConfig:
        """A config from settings by field name (a parsed TOML or JSON file); the others keep their defaults.
        ValueError names an unknown setting, a value of the wrong type or a pattern that does not compile."""
        known = {f.name: f.type for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"diagnosis config: unknown setting(s) {unknown}; known: {sorted(known)}")
        for name, value in data.items():
            kind = known[name]
            if kind == "str":
                if not isinstance(value, str):
                    raise ValueError(f"diagnosis config: {name!r} must be a regular expression (a string)")
                try:
                    re.compile(value)
                except re.error as error:
                    raise ValueError(f"diagnosis config: {name!r}: {value!r} does not compile: {error}") from None
            elif (
                isinstance(value, bool) or not isinstance(value, int | float) or (kind == "int" and value != int(value))
            ):
                raise ValueError(f"diagnosis config: {name!r} must be a number ({kind}), got {value!r}")
        settings: dict[str, Any] = {name: int(v) if known[name] == "int" else v for name, v in data.items()}  # type: ignore[call-overload]
        return cls(**settings)

    def compiled(self) -> _Patterns:
        return _Patterns(
            train=re.compile(self.train),
            validation=re.compile(self.validation),
            loss=re.compile(self.loss),
            accuracy=re.compile(self.accuracy),
            gradient=re.compile(self.gradient),
            activation=re.compile(self.activation),
        )


@dataclass(frozen=True)
class _Patterns:
    train: re.Pattern[str]
    validation: re.Pattern[str]
    loss: re.Pattern[str]
    accuracy: re.Pattern[str]
    gradient: re.Pattern[str]
    activation: re.Pattern[str]


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


@dataclass(frozen=True)
class Finding:
    """One diagnosed problem of a run (the JSON shape of ``GET /api/diagnosis`` via :meth:`to_dict`).

    ``runs`` lists every run whose series took part (a ``exp/train`` + ``exp/val`` pair); ``run`` is the one it
    is reported under."""

    run: str
    kind: Kind
    confidence: float
    step: int | None
    tags: list[str]
    evidence: dict[str, float | int | str]
    message: str
    runs: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, object]:
        return {
            "run": self.run,
            "kind": self.kind,
            "confidence": round(self.confidence, 3),
            "step": self.step,
            "tags": self.tags,
            "evidence": self.evidence,
            "message": self.message,
        }


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


# --- curve helpers -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Curve:
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


def _curve(name: str, series: Series, max_points: int) -> _Curve:
    step = np.asarray(series.step, dtype=np.float64)
    value = np.asarray(series.value, dtype=np.float64)
    order = np.argsort(step, kind="stable")
    step, value = step[order], value[order]
    finite = np.isfinite(value)
    first_nonfinite = int(step[~finite][0]) if (~finite).any() else None
    step, value = step[finite], value[finite]
    if len(step) > max_points:
        step, value = _bucket_medians(step, max_points), _bucket_medians(value, max_points)
    return _Curve(name, step, value, rolling_median(value), first_nonfinite)


def _bucket_medians(values: np.ndarray, buckets: int) -> np.ndarray:
    """The medians of ``buckets`` consecutive runs of (nearly) equal length (the last ones padded with NaN)."""
    size = -(-len(values) // buckets)
    padded = np.full(size * buckets, np.nan)
    padded[: len(values)] = values
    table = padded.reshape(buckets, size)
    keep = ~np.isnan(table).all(axis=1)
    return np.nanmedian(table[keep], axis=1)


def rolling_median(value: np.ndarray, fraction: float = 0.08, longest: int = 101) -> np.ndarray:
    """A centred rolling median over about ``fraction`` of the points (odd window, 3..``longest``), the ends
    padded with their nearest values: batch noise goes, trends and level shifts stay."""
    n = len(value)
    if n < 3:
        return value.copy()
    window = int(min(longest, max(3, round(n * fraction))))
    window += 1 - window % 2
    half = window // 2
    padded = np.concatenate(
        (np.full(half, np.median(value[: half + 1])), value, np.full(half, np.median(value[-half - 1 :])))
    )
    return np.median(np.lib.stride_tricks.sliding_window_view(padded, window), axis=1)


def _head(values: np.ndarray, fraction: float) -> float:
    """The median of the first ``fraction`` of the values (at least 3; NaN when there are none)."""
    return float(np.median(values[: max(3, int(len(values) * fraction))])) if len(values) else math.nan


def _tail(values: np.ndarray, fraction: float) -> float:
    """The median of the last ``fraction`` of the values (at least 3; NaN when there are none)."""
    return float(np.median(values[-max(3, int(len(values) * fraction)) :])) if len(values) else math.nan


def _mad(values: np.ndarray) -> float:
    return float(1.4826 * np.median(np.abs(values - np.median(values)))) if len(values) else 0.0


def _ramp(x: float, low: float, high: float) -> float:
    """0 at ``low``, 1 at ``high`` (clipped): how far past its threshold a number is."""
    if high == low:
        return 1.0
    return float(min(1.0, max(0.0, (x - low) / (high - low))))


def _confidence(*ramps: float, floor: float = 0.5) -> float:
    return round(floor + (1 - floor) * float(np.mean(ramps)), 3)


def _log10(values: np.ndarray) -> np.ndarray:
    return np.log10(np.maximum(np.abs(values), 1e-30))


def _rank_correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (no ties handling needed for steps; values rarely tie)."""
    if len(x) < 3:
        return 0.0
    rx = np.argsort(np.argsort(x)).astype(np.float64)
    ry = np.argsort(np.argsort(y)).astype(np.float64)
    rx -= rx.mean()
    ry -= ry.mean()
    denominator = math.sqrt(float((rx * rx).sum() * (ry * ry).sum()))
    return float((rx * ry).sum() / denominator) if denominator else 0.0


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _num(x: float) -> str:
    return f"{x:.3g}"


# --- shape of a loss curve ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Shape:
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


def _shape(c: _Curve) -> _Shape:
    n = len(c)
    s, raw = c.smooth, c.raw
    start, end = _head(raw, 0.02), _tail(s, 0.1)
    best = float(s.min())
    level = max(abs(start), 1e-12)
    half = n // 2
    m = max(2, n // 10)
    mid = float(np.median(raw[max(half - m, 0) : half + m]))
    late = (mid - _tail(raw, 0.2)) / max(abs(mid), 1e-12)
    residual = raw[half:] - s[half:]
    typical = max(float(np.median(np.abs(raw[half:]))), 1e-12)
    noise = _mad(residual) / typical
    # Point-to-point jitter (differences remove the trend): the noise a median of k points still carries is
    # about 1.25 * jitter / sqrt(k); two such medians compared differ by noise alone up to ~2 sqrt(2) of that.
    jitter = _mad(np.diff(raw[half:])) / math.sqrt(2) / typical if n - half > 2 else 0.0
    tolerance = 0.02 + 2 * math.sqrt(2) * 1.25 * jitter / math.sqrt(max(2 * m, n // 5, 1))
    positive = bool((s > 0).all())
    curve = np.log(s) if positive else s / level
    final = _tail(curve, 0.2)
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
    return _Shape(
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
        trend=_rank_correlation(c.step, s),
        rise=(end - best) / max(start - best, 1e-12 * level),
        tolerance=tolerance,
    )


# --- recognising tags --------------------------------------------------------------------------------------


@dataclass
class _Roles:
    train_loss: dict[str, str] = field(default_factory=dict)  # pairing key -> name
    val_loss: dict[str, str] = field(default_factory=dict)
    other_loss: list[str] = field(default_factory=list)
    train_acc: list[str] = field(default_factory=list)
    val_acc: list[str] = field(default_factory=list)
    other_acc: list[str] = field(default_factory=list)
    grad_scalars: list[str] = field(default_factory=list)
    grad_hists: list[str] = field(default_factory=list)
    weight_hists: list[str] = field(default_factory=list)


def _key(name: str, pattern: re.Pattern[str]) -> str:
    """``name`` without its train/validation word and separators, lowercased: the pairing key."""
    return re.sub(r"[/_.\-\s:]+", "/", pattern.sub("", name)).strip("/").lower()


def _roles(scalars: Mapping[str, Series], histograms: Mapping[str, HistogramSeries], p: _Patterns) -> _Roles:
    roles = _Roles()
    for name in scalars:
        if p.gradient.search(name):
            roles.grad_scalars.append(name)
        elif p.loss.search(name):
            if p.validation.search(name):
                roles.val_loss.setdefault(_key(name, p.validation), name)
            elif p.train.search(name):
                roles.train_loss.setdefault(_key(name, p.train), name)
            else:
                roles.other_loss.append(name)
        elif p.accuracy.search(name):
            (
                roles.val_acc
                if p.validation.search(name)
                else roles.train_acc
                if p.train.search(name)
                else roles.other_acc
            ).append(name)
    for name in histograms:
        if p.gradient.search(name):
            roles.grad_hists.append(name)
        elif not p.activation.search(name):
            roles.weight_hists.append(name)
    return roles


def _primary(keys: Mapping[str, str] | Sequence[str]) -> str | None:
    """The main loss among several: the one whose name is shortest (``loss`` over ``loss/kl``)."""
    names = list(keys.values()) if isinstance(keys, Mapping) else list(keys)
    return min(names, key=lambda n: (len(n), n)) if names else None


# --- detectors ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Hit:
    kind: Kind
    confidence: float
    step: int | None
    tags: list[str]
    evidence: dict[str, float | int | str]
    message: str


def _overfitting(train: _Curve, val: _Curve) -> _Hit | None:
    if len(val) < 5:
        return None
    vs = val.smooth
    i_best = int(np.argmin(vs))
    best_step = float(val.step[i_best])
    val_best = float(vs[i_best])
    val_end = _tail(val.raw, 0.15)
    level = max(abs(val_best), 1e-12)
    rise = (val_end - val_best) / level
    val_noise = _mad(val.raw - vs) / level
    train_at = train.at(best_step)
    train_end = _tail(train.raw, 0.1)
    train_drop = (train_at - train_end) / max(abs(train_at), 1e-12)
    position = i_best / max(len(val) - 1, 1)
    later = train.step >= best_step
    train_trend = _rank_correlation(train.step[later], train.smooth[later]) if later.sum() >= 5 else 0.0
    evidence: dict[str, float | int | str] = {
        "val_best": round(val_best, 6),
        "val_end": round(val_end, 6),
        "val_rise": round(rise, 4),
        "train_at_val_best": round(train_at, 6),
        "train_end": round(train_end, 6),
        "train_drop_after": round(train_drop, 4),
    }
    if train_trend > -0.6:
        return None  # training loss not falling steadily: oscillation or divergence, not overfitting
    if position < 0.85 and rise > max(0.05, 2 * val_noise) and train_drop > 0.1:
        confidence = _confidence(_ramp(rise, 0.05, 0.4), _ramp(train_drop, 0.1, 0.6), _ramp(0.85 - position, 0, 0.4))
        message = (
            f"Overfitting from step {int(best_step)}: the validation loss ({val.name}) rose {_pct(rise)} above its "
            f"best ({_num(val_best)} -> {_num(val_end)}) while the training loss ({train.name}) kept falling "
            f"{_pct(train_drop)}. Stop earlier (keep the checkpoint from step {int(best_step)}), add regularisation "
            "or more data."
        )
        return _Hit("overfitting", confidence, int(best_step), [train.name, val.name], evidence, message)
    # The gap keeps widening while validation no longer improves.
    common = np.intersect1d(train.step, val.step)
    if len(common) < 8:
        common = val.step
    gaps = np.array([val.at(s) - train.at(s) for s in common])
    k = max(2, len(gaps) // 5)
    gap_early, gap_late = float(np.median(gaps[:k])), float(np.median(gaps[-k:]))
    val_late = (val.at(float(common[len(common) // 2])) - val_end) / level
    train_late = (train.at(float(common[len(common) // 2])) - train_end) / max(abs(train_end), 1e-12)
    widened = (gap_late - max(gap_early, 0.0)) / max(abs(val_end), 1e-12)
    evidence.update({"gap_early": round(gap_early, 6), "gap_end": round(gap_late, 6)})
    material = gap_late > 0.05 * abs(_head(train.raw, 0.02))  # not a gap of 0.003 between two losses near 0
    if widened > 0.3 and material and val_late < 0.02 and train_late > 0.3 and gap_late > 3 * max(gap_early, 1e-12):
        start = int(common[int(np.argmax(gaps > (gap_early + gap_late) / 2))])
        confidence = _confidence(_ramp(widened, 0.3, 1.0), _ramp(train_late, 0.3, 1.0), floor=0.5)
        message = (
            f"Overfitting from about step {start}: the gap between validation loss ({val.name}) and training loss "
            f"({train.name}) widened from {_num(gap_early)} to {_num(gap_late)} while validation stopped improving. "
            "Stop earlier, add regularisation or more data."
        )
        return _Hit("overfitting", confidence, start, [train.name, val.name], evidence, message)
    return None


def _lr_too_high(c: _Curve, shape: _Shape) -> _Hit | None:
    evidence: dict[str, float | int | str] = {
        "start": round(shape.start, 6),
        "best": round(shape.best, 6),
        "end": round(shape.end, 6),
        "noise": round(shape.noise, 4),
    }
    if c.first_nonfinite is not None:
        evidence["first_nonfinite_step"] = c.first_nonfinite
        message = (
            f"The training loss ({c.name}) became NaN/Inf at step {c.first_nonfinite}: the learning rate is "
            "probably too high (lower it, add warm-up or gradient clipping)."
        )
        return _Hit("lr_too_high", 0.9, c.first_nonfinite, [c.name], evidence, message)
    diverged = shape.rise > 0.5 and (shape.end - shape.best) / max(abs(shape.best), 1e-12) > 0.3
    if diverged and shape.end > shape.start * 0.8:
        i = int(np.argmin(c.smooth))
        step = int(c.step[i])
        confidence = _confidence(_ramp(shape.rise, 0.5, 1.5))
        message = (
            f"The training loss ({c.name}) diverged: it fell to {_num(shape.best)} by step {step}, then climbed "
            f"back to {_num(shape.end)}. Lower the learning rate or add gradient clipping."
        )
        evidence["rise"] = round(shape.rise, 4)
        return _Hit("lr_too_high", confidence, step, [c.name], evidence, message)
    peak_at = int(np.argmax(c.raw))
    peak = float(c.raw[peak_at])
    if peak > 10 * max(abs(shape.start), abs(shape.end)) and shape.improvement < 0.25:
        step = int(c.step[peak_at])
        evidence["peak"] = float(f"{peak:.4g}")
        message = (
            f"The training loss ({c.name}) blew up to {_num(peak)} at step {step}, then got stuck near "
            f"{_num(shape.end)} and did not learn after that: the learning rate is probably too high (units may "
            "have died in the blow-up)."
        )
        return _Hit(
            "lr_too_high",
            _confidence(_ramp(peak / max(abs(shape.end), 1e-12), 10, 100)),
            step,
            [c.name],
            evidence,
            message,
        )
    half = len(c) // 2
    swing = float(np.percentile(c.raw[half:], 90) - np.percentile(c.raw[half:], 10)) / max(
        abs(float(np.median(c.raw[half:]))), 1e-12
    )
    evidence["swing"] = round(swing, 4)
    # Minibatch noise can be large too (label noise, small batches); a loss that still trends down is learning.
    if shape.noise > 0.25 and swing > 0.5 and shape.improvement < 0.45 and shape.trend > -0.5:
        confidence = _confidence(_ramp(shape.noise, 0.2, 0.5), _ramp(0.6 - shape.improvement, 0, 0.6))
        message = (
            f"The training loss ({c.name}) oscillates wildly (it swings {_pct(swing)} of its level) and improved "
            f"only {_pct(max(shape.improvement, 0))}: the learning rate is probably too high."
        )
        return _Hit("lr_too_high", confidence, int(c.step[0]), [c.name], evidence, message)
    return None


def _lr_too_low(c: _Curve, shape: _Shape) -> _Hit | None:
    # Falling all the way (rank correlation), still as fast at the end as at the start, by more than noise.
    noise_floor = 2 * (shape.tolerance - 0.02)
    if not (max(0.01, noise_floor) < shape.improvement < 0.5 and shape.late_improvement > 0.3 * shape.improvement):
        return None
    if shape.trend > -0.9 or shape.slope_ratio < 0.25 or shape.noise > 0.2:
        return None
    confidence = _confidence(_ramp(shape.slope_ratio, 0.25, 0.7), _ramp(-shape.trend, 0.9, 0.98))
    evidence: dict[str, float | int | str] = {
        "start": round(shape.start, 6),
        "end": round(shape.end, 6),
        "improvement": round(shape.improvement, 4),
        "slope_ratio": round(shape.slope_ratio, 4),
    }
    message = (
        f"The loss ({c.name}) falls steadily but slowly: only {_pct(shape.improvement)} over the whole run "
        f"({_num(shape.start)} -> {_num(shape.end)}), still at the pace it started with. The learning rate is "
        "probably too low (try 3-10x higher)."
    )
    return _Hit("lr_too_low", confidence, int(c.step[0]), [c.name], evidence, message)


def _plateau(c: _Curve, shape: _Shape) -> _Hit | None:
    if shape.improvement < 0.25 or shape.stop_fraction > 0.4 or shape.noise > 0.25:
        return None
    if shape.tail_log_drop > shape.tolerance + 0.01 or shape.late_improvement > shape.tolerance or shape.rise > 0.3:
        return None
    if shape.end < 0.02 * shape.level:  # it reached (near) zero: converged, not stuck
        return None
    i = round(shape.stop_fraction * (len(c) - 1))
    step = int(c.step[i])
    confidence = _confidence(
        _ramp(0.4 - shape.stop_fraction, 0, 0.3), _ramp(shape.tolerance - shape.late_improvement, 0, 0.03)
    )
    evidence: dict[str, float | int | str] = {
        "plateau_value": round(shape.end, 6),
        "start": round(shape.start, 6),
        "stopped_at_fraction": round(shape.stop_fraction, 3),
        "improvement_after": round(shape.tail_log_drop, 4),
    }
    message = (
        f"The loss ({c.name}) stopped improving at step {step} ({_pct(shape.stop_fraction)} into the run) and has "
        f"stayed near {_num(shape.end)} since. Try a learning-rate schedule (decay on plateau), a larger model, or "
        "stop the run earlier."
    )
    return _Hit("plateau", confidence, step, [c.name], evidence, message)


def _underfitting(
    train: _Curve, shape: _Shape, val: tuple[_Curve, _Shape] | None, accuracy: tuple[str, float] | None
) -> _Hit | None:
    if shape.improvement > 0.25 or shape.late_improvement > shape.tolerance + 0.01 or shape.noise > 0.2:
        return None
    if shape.trend < -0.9 and shape.slope_ratio > 0.25 and shape.improvement > 0.03:
        return None  # a steady slow fall is lr_too_low
    tags = [train.name]
    evidence: dict[str, float | int | str] = {
        "train_start": round(shape.start, 6),
        "train_end": round(shape.end, 6),
        "improvement": round(shape.improvement, 4),
    }
    ramps = [_ramp(0.25 - shape.improvement, 0, 0.2)]
    if val is not None:
        vc, vshape = val
        if vshape.improvement > 0.25 or vshape.late_improvement > vshape.tolerance + 0.01:
            return None
        gap = (vshape.end - shape.end) / max(abs(vshape.end), 1e-12)
        if gap > 0.3:
            return None  # validation far above training is not underfitting
        tags.append(vc.name)
        evidence["val_end"] = round(vshape.end, 6)
    if accuracy is not None:
        name, value = accuracy
        evidence["accuracy"] = round(value, 4)
        if value > 0.75:
            return None
        tags.append(name)
        ramps.append(_ramp(0.75 - value, 0, 0.4))
    else:
        ramps.append(0.0)
    acc_words = f", accuracy only {_pct(accuracy[1])}" if accuracy else ""
    message = (
        f"Underfitting: the loss ({train.name}{' and ' + val[0].name if val else ''}) stayed high and flat "
        f"({_num(shape.start)} -> {_num(shape.end)}){acc_words}. The model is not learning enough: use a larger "
        "model, train longer, or check the inputs and the learning rate."
    )
    return _Hit("underfitting", _confidence(*ramps), int(train.step[0]), tags, evidence, message)


def _gradient_curves(
    scalars: Mapping[str, Series], histograms: Mapping[str, HistogramSeries], roles: _Roles, max_points: int
) -> list[_Curve]:
    """Gradient magnitudes over steps: the norms logged as scalars, and the RMS of gradient histograms."""
    curves = [_curve(name, scalars[name], max_points) for name in roles.grad_scalars]
    for name in roles.grad_hists:
        h = histograms[name]
        curves.append(_curve(name, Series(h.step, h.rms), max_points))
    return curves


def _exploding(grads: list[_Curve], loss: _Curve | None) -> _Hit | None:
    best: tuple[float, _Curve, int, float, float] | None = None
    for g in grads:
        if len(g) < 5 and g.first_nonfinite is None:
            continue
        logs = _log10(rolling_median(g.raw, 0.04, 9)) if len(g) else np.zeros(0)
        base = _head(logs, 0.2) if len(logs) >= 3 else math.nan
        if math.isnan(base):
            continue
        k = max(3, int(len(logs) * 0.2))
        growth = float(logs[k:].max() - base) if len(logs) > k else 0.0
        nonfinite = g.first_nonfinite is not None
        if growth >= 2 or (nonfinite and growth >= 1):
            above = np.nonzero(logs > base + 1)[0]
            start = int(g.step[above[0]]) if len(above) else int(g.first_nonfinite or g.step[-1])
            if best is None or growth > best[0]:
                best = (growth, g, start, base, float(logs.max()))
    if best is None:
        return None
    growth, g, start, base, peak = best
    nan_step = g.first_nonfinite
    if loss is not None and loss.first_nonfinite is not None:
        nan_step = loss.first_nonfinite if nan_step is None else min(nan_step, loss.first_nonfinite)
    evidence: dict[str, float | int | str] = {
        "grad_start": round(10**base, 8),
        "grad_peak": round(10**peak, 8),
        "orders_of_magnitude": round(growth, 2),
    }
    tags = [g.name]
    nan_words = ""
    if nan_step is not None:
        evidence["first_nonfinite_step"] = nan_step
        nan_words = f"; NaN/Inf follows at step {nan_step}"
        if loss is not None:
            tags.append(loss.name)
    confidence = _confidence(_ramp(growth, 2, 4), 1.0 if nan_step is not None else 0.3)
    message = (
        f"Exploding gradients from step {start}: the gradient norm ({g.name}) grew {growth:.1f} orders of magnitude "
        f"({_num(10**base)} -> {_num(10**peak)}){nan_words}. Clip gradients (e.g. clip_grad_norm_ 1.0), lower the "
        "learning rate, or add normalisation."
    )
    return _Hit("exploding_gradients", confidence, start, tags, evidence, message)


def _abrupt_zero(g: _Curve) -> int | None:
    """Index from which a gradient magnitude is (near) exactly zero to the end, having been clearly non-zero."""
    values = np.abs(g.raw)
    scale = _head(values, 0.2)
    if not scale > 0 or len(values) < 5:
        return None
    dead = values <= max(1e-12, 1e-7 * scale)
    if not dead[-1]:
        return None
    alive = np.nonzero(~dead)[0]
    if not len(alive):
        return None
    start = int(alive[-1]) + 1
    if len(values) - start < max(3, 0.2 * len(values)):
        return None
    return start


def _vanishing(grads: list[_Curve], loss: _Curve | None) -> _Hit | None:
    best: tuple[float, _Curve, int, float, float, int] | None = None
    for g in grads:
        if len(g) < 8 or _abrupt_zero(g) is not None:
            continue
        logs = _log10(rolling_median(np.abs(g.raw), 0.04, 9))
        base = float(logs[: max(3, len(logs) // 5)].max())  # the early level, before a fast collapse pulls medians
        final = _tail(logs, 0.2)
        drop = base - final
        if drop >= 2 or (final < -7 and drop >= 1):
            below = np.nonzero(logs < base - 1)[0]
            start = int(g.step[below[0]]) if len(below) else int(g.step[0])
            low = np.nonzero(logs < final + 0.5)[0]
            collapsed = int(g.step[low[0]]) if len(low) else start
            if best is None or drop > best[0]:
                best = (drop, g, start, base, final, collapsed)
    if best is None:
        return None
    drop, g, start, base, final, collapsed = best
    evidence: dict[str, float | int | str] = {
        "grad_start": float(f"{10**base:.4g}"),
        "grad_end": float(f"{10**final:.4g}"),
        "orders_of_magnitude": round(drop, 2),
    }
    tags = [g.name]
    stall = 0.5
    if loss is not None:
        after = loss.smooth[loss.step >= collapsed]
        if len(after) >= 3:
            change = (_head(after, 0.1) - _tail(after, 0.1)) / max(abs(_head(after, 0.1)), 1e-12)
            evidence["loss_change_after"] = round(change, 4)
            if change > 0.1:
                return None  # the loss keeps improving: gradients shrink because the model converges
            stall = 1.0
            tags.append(loss.name)
    confidence = _confidence(_ramp(drop, 2, 4), stall)
    message = (
        f"Vanishing gradients from step {start}: the gradient norm ({g.name}) collapsed {drop:.1f} orders of "
        f"magnitude ({_num(10**base)} -> {_num(10**final)})"
        + (" while the loss stalled" if stall == 1.0 else "")
        + ". Try residual connections, normalisation, ReLU-like activations or a better initialisation."
    )
    return _Hit("vanishing_gradients", confidence, start, tags, evidence, message)


def _vanishing_by_depth(grads: list[_Curve], loss: _Curve | None) -> _Hit | None:
    """Per-layer gradient norms that differ by three or more orders of magnitude (the layers far from the loss
    get almost nothing, as in a deep sigmoid network) while the loss does not improve."""
    levels: dict[str, float] = {}
    for g in grads:
        if _AGGREGATE.search(g.name):  # a total norm is no layer
            continue
        if len(g) >= 8 and _abrupt_zero(g) is None:
            positive = np.abs(g.raw[g.raw != 0])
            if len(positive):
                levels[g.name] = float(np.median(_log10(positive)))
    if len(levels) < 3 or loss is None or len(loss) < 8:
        return None
    weakest = min(levels, key=levels.__getitem__)
    strongest = max(levels, key=levels.__getitem__)
    spread = levels[strongest] - levels[weakest]
    shape = _shape(loss)
    if spread < 3 or shape.improvement > 0.25:
        return None
    evidence: dict[str, float | int | str] = {
        "weakest": weakest,
        "weakest_norm": float(f"{10 ** levels[weakest]:.4g}"),
        "strongest": strongest,
        "strongest_norm": float(f"{10 ** levels[strongest]:.4g}"),
        "orders_of_magnitude": round(spread, 2),
        "loss_improvement": round(shape.improvement, 4),
    }
    message = (
        f"Vanishing gradients: the gradients of {weakest} are {spread:.1f} orders of magnitude smaller than those "
        f"of {strongest} ({_num(10 ** levels[weakest])} vs {_num(10 ** levels[strongest])}), and the loss "
        f"({loss.name}) improved only {_pct(max(shape.improvement, 0))}. Try residual connections, normalisation, "
        "ReLU-like activations or a better initialisation."
    )
    confidence = _confidence(_ramp(spread, 3, 6), _ramp(0.25 - shape.improvement, 0, 0.2))
    return _Hit(
        "vanishing_gradients", confidence, int(loss.step[0]), [weakest, strongest, loss.name], evidence, message
    )


def _frozen_from(h: HistogramSeries) -> tuple[int, float] | None:
    """Index from which a histogram never changes again (it changed before), and its earlier typical change."""
    v = h.vectors()
    ok = np.isfinite(v).all(axis=1)
    v = v[ok]
    n = len(v)
    if n < 6:
        return None
    scale = np.maximum(np.abs(v).max(axis=0), 1e-12)
    change = (np.abs(np.diff(v, axis=0)) / scale).max(axis=1)
    moving = change > 1e-7
    if not moving.any() or moving[-1]:
        return None
    last = int(np.nonzero(moving)[0][-1]) + 1  # the first index of the frozen stretch
    if n - last < max(3, 0.25 * n):
        return None
    return last, float(np.median(change[:last]))


def _dead_units(
    histograms: Mapping[str, HistogramSeries], roles: _Roles, grads: list[_Curve], loss: _Curve | None
) -> _Hit | None:
    dead: list[tuple[str, int, str]] = []  # (tag, step, how)
    frozen: dict[str, int] = {}
    for name in roles.weight_hists:
        h = histograms[name]
        found = _frozen_from(h)
        if found is not None:
            frozen[name] = int(h.step[np.isfinite(h.vectors()).all(axis=1)][found[0]])
    moving_weights = [n for n in roles.weight_hists if n not in frozen and _frozen_from(histograms[n]) is None]
    for name, step in frozen.items():
        still = [n for n in moving_weights if histograms[n].step.max() > step]
        loss_moves = loss is not None and len(loss.raw[loss.step > step]) >= 3 and _mad(loss.raw[loss.step > step]) > 0
        if still or loss_moves:
            dead.append((name, step, "weights stopped changing"))
    for g in grads:
        i = _abrupt_zero(g)
        if i is not None:
            dead.append((g.name, int(g.step[i]), "gradients dropped to zero"))
    if not dead:
        return None
    dead.sort(key=lambda d: d[1])
    total_layers = max(len(roles.weight_hists) + len(grads), 1)
    evidence: dict[str, float | int | str] = {
        "layers": len(dead),
        "of_layers": total_layers,
        "first": dead[0][0],
        "first_step": dead[0][1],
    }
    names = ", ".join(f"{tag} ({how} at step {step})" for tag, step, how in dead[:4])
    more = f" and {len(dead) - 4} more" if len(dead) > 4 else ""
    message = (
        f"Dead units: {names}{more} while training went on. Check for dying ReLUs (try LeakyReLU/GELU, a lower "
        "learning rate), parameters left out of the optimiser, or a frozen layer."
    )
    confidence = _confidence(0.8, _ramp(len(dead) / total_layers, 0, 0.5))
    return _Hit("dead_units", confidence, dead[0][1], [d[0] for d in dead], evidence, message)


# --- the whole run -----------------------------------------------------------------------------------------


def diagnose(
    run: str,
    scalars: Mapping[str, Series],
    histograms: Mapping[str, HistogramSeries] | None = None,
    config: DiagnosisConfig | None = None,
    *,
    runs: Sequence[str] = (),
) -> list[Finding]:
    """The findings of one run (at most one per kind, most confident first).

    ``scalars`` and ``histograms`` are keyed by name: a tag, or ``<run part>/<tag>`` when a training and a
    validation run are diagnosed together (``train/epoch_loss`` + ``validation/epoch_loss``). ``runs`` lists the
    runs involved (default: ``run``).
    """
    # Overflow and 0/0 on extreme values become inf/NaN, which no rule accepts (errstate is thread-local).
    with np.errstate(all="ignore"):
        return _diagnose(run, scalars, histograms or {}, config or DiagnosisConfig(), tuple(runs) or (run,))


def _diagnose(
    run: str,
    scalars: Mapping[str, Series],
    histograms: Mapping[str, HistogramSeries],
    config: DiagnosisConfig,
    runs: tuple[str, ...],
) -> list[Finding]:
    p = config.compiled()
    roles = _roles(scalars, histograms, p)
    limit = config.max_points

    def curve(name: str | None) -> _Curve | None:
        if name is None:
            return None
        c = _curve(name, scalars[name], limit)
        return c if len(c) >= config.min_points or c.first_nonfinite is not None else None

    train_name = _primary(roles.train_loss) or _primary(roles.other_loss)
    train = curve(train_name)
    val: _Curve | None = None
    if train_name is not None and roles.val_loss:
        key = _key(train_name, p.train)
        val = curve(roles.val_loss.get(key) or _primary(roles.val_loss))
    elif train is None and roles.val_loss:  # only a validation loss: judge its shape on its own
        train = curve(_primary(roles.val_loss))

    hits: list[_Hit] = []
    grads = [g for g in _gradient_curves(scalars, histograms, roles, limit) if len(g) >= 5 or g.first_nonfinite]
    exploding = _exploding(grads, train)
    vanishing = (_vanishing(grads, train) or _vanishing_by_depth(grads, train)) if exploding is None else None
    hits += [h for h in (exploding, vanishing, _dead_units(histograms, roles, grads, train)) if h is not None]

    if train is not None and len(train) >= config.min_points:
        shape = _shape(train)
        high = _lr_too_high(train, shape) if exploding is None else None
        if high is not None:
            hits.append(high)
        elif val is not None and len(val) >= 5:  # (a wild training loss says nothing about overfitting)
            over = _overfitting(train, val)
            if over is not None:
                hits.append(over)
        kinds = {h.kind for h in hits}
        if not kinds & {"lr_too_high", "vanishing_gradients", "exploding_gradients", "overfitting"}:
            accuracy = _final_accuracy(scalars, roles, limit, config.min_points)
            val_pair = (val, _shape(val)) if val is not None and len(val) >= config.min_points else None
            slow = _lr_too_low(train, shape)
            if slow is None and val_pair is not None:  # a noisy training loss can hide what validation shows
                slow = _lr_too_low(*val_pair)
            for found in (
                slow,
                _plateau(train, shape),
                _underfitting(train, shape, val_pair, accuracy),
            ):
                if found is not None:
                    hits.append(found)
                    break
    elif train is not None and train.first_nonfinite is not None and exploding is None:
        hits.append(_nan_only(train))  # too few finite points for a shape, but a NaN says enough

    findings = [
        Finding(run, h.kind, h.confidence, h.step, h.tags, h.evidence, h.message, runs)
        for h in hits
        if h.confidence >= config.min_confidence
    ]
    return sorted(findings, key=lambda f: (-f.confidence, KINDS.index(f.kind)))


def _nan_only(c: _Curve) -> _Hit:
    step = c.first_nonfinite or 0
    message = f"The training loss ({c.name}) became NaN/Inf at step {step}: the learning rate is probably too high."
    return _Hit("lr_too_high", 0.9, step, [c.name], {"first_nonfinite_step": step}, message)


def _final_accuracy(
    scalars: Mapping[str, Series], roles: _Roles, max_points: int, min_points: int
) -> tuple[str, float] | None:
    """The last accuracy (validation first), when it looks like a fraction (0..1) or a percentage (0..100)."""
    for names in (roles.val_acc, roles.other_acc, roles.train_acc):
        name = _primary(names)
        if name is None:
            continue
        c = _curve(name, scalars[name], max_points)
        if len(c) < min(3, min_points):
            continue
        value = _tail(c.raw, 0.1)
        if c.raw.min() >= 0 and c.raw.max() <= 1:
            return name, value
        if c.raw.min() >= 0 and c.raw.max() <= 100 and c.raw.max() > 1:
            return name, value / 100
    return None


__all__ = [
    "KINDS",
    "DiagnosisConfig",
    "Finding",
    "HistogramSeries",
    "Kind",
    "Series",
    "diagnose",
    "histogram_series",
    "rolling_median",
    "summarise_histogram",
]
