"""What ``ridgeline compare`` and ``ridgeline check`` compute over a log directory (read through
:class:`~ridgeline.store.logdir.LogDir`): per scalar tag the last and best visible value of each run, their
difference and relative change, the hyperparameters that differ, and each run's duration; and the thresholds
``check`` takes (``val/loss<=+2%``), parsed and judged.

Best is the smallest value for a tag that names an error (loss, err, mse, ...: ``goal_of`` of the hparams
dashboard), else the largest. NaN values are left out of best; a series with no finite value has no best.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ridgeline.store.logdir import LogDir
    from ridgeline.store.selection import Matcher

Goal = Literal["min", "max"]


@dataclass(frozen=True)
class Summary:
    """One run's series of one tag, summed up."""

    last: float
    last_step: int
    best: float | None
    best_step: int | None
    points: int


@dataclass(frozen=True)
class TagComparison:
    tag: str
    goal: Goal
    a: Summary | None
    b: Summary | None

    @property
    def difference(self) -> float | None:
        """``b.last - a.last``."""
        return None if self.a is None or self.b is None else self.b.last - self.a.last

    @property
    def relative(self) -> float | None:
        """The difference over ``|a.last|`` (None when a's last value is 0 or missing)."""
        diff = self.difference
        return None if diff is None or self.a is None or self.a.last == 0 else diff / abs(self.a.last)


@dataclass(frozen=True)
class Comparison:
    run_a: str
    run_b: str
    tags: list[TagComparison]
    hparams: list[tuple[str, Any, Any]]  # (name, a's value, b's value) of the hyperparameters that differ
    duration_a: float | None
    duration_b: float | None

    def to_dict(self) -> dict[str, Any]:
        def summary(s: Summary | None) -> dict[str, Any] | None:
            return None if s is None else {**s.__dict__}

        return {
            "runs": [self.run_a, self.run_b],
            "duration_s": [self.duration_a, self.duration_b],
            "tags": [
                {
                    "tag": t.tag,
                    "goal": t.goal,
                    "a": summary(t.a),
                    "b": summary(t.b),
                    "difference": t.difference,
                    "relative": t.relative,
                }
                for t in self.tags
            ],
            "hparams": [{"name": name, "a": a, "b": b} for name, a, b in self.hparams],
        }


def goal_of(tag: str) -> Goal:
    from ridgeline.plugins.hparams.table import goal_of as hparams_goal

    return hparams_goal(tag)


def summarise(logdir: LogDir, run: str, tag: str) -> Summary | None:
    """The run's visible series of ``tag`` summed up, or None when the run has no such tag (or no point)."""
    import numpy as np

    if tag not in logdir.tags(run).get("scalars", []):
        return None
    series = logdir.scalars(run, tag)
    if not len(series):
        return None
    finite = np.flatnonzero(~np.isnan(series.value))
    best_index: int | None = None
    if len(finite):
        values = series.value[finite]
        pick = np.argmin(values) if goal_of(tag) == "min" else np.argmax(values)
        best_index = int(finite[pick])
    return Summary(
        last=float(series.value[-1]),
        last_step=int(series.step[-1]),
        best=None if best_index is None else float(series.value[best_index]),
        best_step=None if best_index is None else int(series.step[best_index]),
        points=len(series),
    )


def duration(logdir: LogDir, run: str) -> float | None:
    info = logdir.run_info(run)
    if info.first_wall_time is None or info.last_wall_time is None:
        return None
    return max(0.0, info.last_wall_time - info.first_wall_time)


def compare(logdir: LogDir, run_a: str, run_b: str, tags: Matcher | None) -> Comparison:
    """``run_a`` against ``run_b`` over their scalar tags that ``tags`` matches (every tag when None)."""
    names = set(logdir.tags(run_a).get("scalars", [])) | set(logdir.tags(run_b).get("scalars", []))
    chosen = sorted(tag for tag in names if tags is None or tags.search(tag))
    compared = [
        TagComparison(tag, goal_of(tag), summarise(logdir, run_a, tag), summarise(logdir, run_b, tag)) for tag in chosen
    ]
    ha = logdir.hparams(run_a)
    hb = logdir.hparams(run_b)
    va, vb = (ha.hparams if ha else {}), (hb.hparams if hb else {})
    differ = [(name, va.get(name), vb.get(name)) for name in sorted(set(va) | set(vb)) if va.get(name) != vb.get(name)]
    return Comparison(run_a, run_b, compared, differ, duration(logdir, run_a), duration(logdir, run_b))


# --- thresholds -------------------------------------------------------------------------------------------------
_THRESHOLD = re.compile(
    r"^(?P<tag>.+?)\s*(?P<op><=|>=|<|>)\s*(?P<number>[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)(?P<unit>%|pt)?$"
)


@dataclass(frozen=True)
class Threshold:
    """``TAG OP BOUND``: ``val/loss<=+2%`` (at most 2% above the baseline), ``val/acc>=-0.5pt`` (at most half a
    percentage point, 0.005, below it), ``val/loss<=+0.01`` (at most 0.01 above it), ``val/loss<=0.3`` (at most 0.3,
    no baseline needed). A signed number or a unit makes the bound relative to the baseline."""

    text: str
    tag: str
    op: str
    number: float
    unit: Literal["%", "pt", ""]
    relative_to_baseline: bool

    @classmethod
    def parse(cls, text: str) -> Threshold:
        match = _THRESHOLD.match(text.strip())
        if match is None:
            raise ValueError(
                f"{text!r} is not a threshold: expected TAG, one of <= >= < >, and a bound such as +2%, -0.5pt, "
                "+0.01 (relative to the baseline) or 0.3 (absolute); e.g. 'val/loss<=+2%'"
            )
        number = match["number"]
        unit = match["unit"] or ""
        return cls(
            text=text.strip(),
            tag=match["tag"],
            op=match["op"],
            number=float(number),
            unit=unit,  # type: ignore[arg-type]
            relative_to_baseline=bool(unit) or number[0] in "+-",
        )

    def bound(self, baseline: float | None) -> float | None:
        """The value the run's must stay within (None when it needs a baseline and there is none)."""
        if not self.relative_to_baseline:
            return self.number
        if baseline is None or math.isnan(baseline):
            return None
        if self.unit == "%":
            return baseline + abs(baseline) * self.number / 100
        if self.unit == "pt":
            return baseline + self.number / 100
        return baseline + self.number

    def holds(self, value: float, bound: float) -> bool:
        if math.isnan(value):
            return False
        return {"<=": value <= bound, ">=": value >= bound, "<": value < bound, ">": value > bound}[self.op]


@dataclass(frozen=True)
class Verdict:
    threshold: Threshold
    value: float | None
    baseline: float | None
    bound: float | None
    passed: bool
    reason: str  # why it failed ("" when it passed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.threshold.text,
            "tag": self.threshold.tag,
            "value": self.value,
            "baseline": self.baseline,
            "bound": self.bound,
            "passed": self.passed,
            "reason": self.reason,
        }


def judge(threshold: Threshold, value: float | None, baseline: float | None) -> Verdict:
    if value is None:
        return Verdict(threshold, None, baseline, None, False, f"the run has no value of {threshold.tag!r}")
    bound = threshold.bound(baseline)
    if bound is None:
        return Verdict(threshold, value, baseline, None, False, f"the baseline has no value of {threshold.tag!r}")
    passed = threshold.holds(value, bound)
    reason = "" if passed else f"{value:.6g} is not {threshold.op} {bound:.6g}"
    return Verdict(threshold, value, baseline, bound, passed, reason)
