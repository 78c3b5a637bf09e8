"""Who makes the others wait: arrivals at the synchronisation points, or step rates when there are none.

**With sync records** (``SummaryWriter.sync_step``: per step, when the rank left the barrier and how long it
waited, so when it arrived), on clocks aligned by :mod:`.clocks`, over the steps every rank recorded:

- a rank's *lateness* at a step is its arrival after the first rank's; the *sync delay* of the step is the
  spread of arrivals (last minus first), a series of its own;
- the *straggler* is the rank that arrives last most often, and the time it cost the job is the others' summed
  waiting for it at the steps where it was last. It is named when it was last at more than
  max(½, 2/world size) of the steps (far more than chance) or when its score is flagged;
- a rank's *score* is the best rank's time to reach the barrier divided by its own (median over steps of the time
  from leaving one barrier to arriving at the next, on the rank's own clock: no alignment needed), in (0, 1];
  below the threshold (0.75 by default, as NVIDIA's resiliency extension) it is flagged.

**Without sync records** a rank's score is its step rate against the fastest rank's (steps per second over the
steps it logged): ranks that step together score 1, a rank that steps independently and slower scores less.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

DEFAULT_THRESHOLD = 0.75

SyncRecords = tuple[np.ndarray, np.ndarray, np.ndarray]  # (step, departure wall time, seconds waited), one rank


@dataclass(frozen=True)
class RankScore:
    rank: int
    score: float
    flagged: bool
    last_count: int = 0  # steps at which it arrived last (sync records only)
    mean_lateness: float = float("nan")  # seconds after the first arrival, on aligned clocks (sync records only)


@dataclass(frozen=True)
class SyncReport:
    """What the sync records say; times in seconds."""

    method: str  # "sync" (from sync records) or "step_rate"
    scores: dict[int, RankScore]
    straggler: int | None
    straggler_cost: float = 0.0
    steps: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    sync_delay: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def delay_percentiles(self) -> tuple[float, float] | None:
        """(median, p95) of the sync delay, or None without sync records."""
        if len(self.sync_delay) == 0:
            return None
        median, p95 = np.percentile(self.sync_delay, [50, 95])
        return float(median), float(p95)


def _common_steps(records: Mapping[int, SyncRecords]) -> np.ndarray:
    common: np.ndarray | None = None
    for step, _, _ in records.values():
        if common is not None and len(step) == len(common) and np.array_equal(step, common):
            continue  # the usual case: every rank recorded the same steps
        unique = np.unique(step)
        common = unique if common is None else np.intersect1d(common, unique, assume_unique=True)
    return common if common is not None else np.zeros(0, np.int64)


def _at(step: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The values at the ``wanted`` steps (the last record of a step written twice)."""
    if len(step) == len(wanted) and np.array_equal(step, wanted):
        return np.asarray(values, dtype=np.float64)
    order = np.argsort(step, kind="stable")
    sorted_steps = step[order]
    index = np.searchsorted(sorted_steps, wanted, side="right") - 1
    return np.asarray(values[order][index], dtype=np.float64)


def analyse_sync(
    records: Mapping[int, SyncRecords], offsets: Mapping[int, float], threshold: float = DEFAULT_THRESHOLD
) -> SyncReport:
    """The sync report of the ranks in ``records`` with their clock ``offsets`` (seconds, see the module)."""
    ranks = sorted(records)
    steps = _common_steps(records)
    if len(ranks) == 0 or len(steps) == 0:
        return SyncReport("sync", {}, None)
    arrivals = np.empty((len(ranks), len(steps)))
    departures = np.empty_like(arrivals)
    for row, rank in enumerate(ranks):
        step, departure, waited = records[rank]
        departures[row] = _at(step, departure, steps)
        arrivals[row] = departures[row] - _at(step, waited, steps)
    aligned = arrivals - np.array([offsets.get(rank, 0.0) for rank in ranks])[:, None]
    first = aligned.min(axis=0)
    lateness = aligned - first
    delay = lateness.max(axis=0)
    last = np.argmax(aligned, axis=0)
    last_counts = np.bincount(last, minlength=len(ranks))
    # Time to reach the barrier: from leaving the previous one to arriving at this one, on the rank's own clock.
    reach = np.median(arrivals[:, 1:] - departures[:, :-1], axis=1) if len(steps) > 1 else np.full(len(ranks), np.nan)
    best = np.nanmin(reach) if np.isfinite(reach).any() else np.nan
    scores: dict[int, RankScore] = {}
    for row, rank in enumerate(ranks):
        score = float(min(1.0, best / reach[row])) if reach[row] > 0 else 1.0
        if not np.isfinite(score):
            score = 1.0
        scores[rank] = RankScore(rank, score, score < threshold, int(last_counts[row]), float(lateness[row].mean()))
    most = int(np.argmax(last_counts))
    share = last_counts[most] / len(steps)
    named = len(ranks) > 1 and (share > max(0.5, 2 / len(ranks)) or scores[ranks[most]].flagged)
    straggler = ranks[most] if named else None
    cost = 0.0
    if straggler is not None:
        at = last == most
        cost = float((aligned[most, at] - aligned[:, at]).sum())
    return SyncReport("sync", scores, straggler, cost, steps, delay)


def analyse_step_rates(
    series: Mapping[int, tuple[np.ndarray, np.ndarray]], threshold: float = DEFAULT_THRESHOLD
) -> SyncReport:
    """Scores from step rates: ``series`` maps each rank to (steps, wall times) of a tag it logs every step."""
    rates: dict[int, float] = {}
    for rank, (step, wall) in series.items():
        if len(step) < 2:
            continue
        span = float(np.max(wall) - np.min(wall))
        steps = float(np.max(step) - np.min(step))
        if span > 0 and steps > 0:
            rates[rank] = steps / span
    if not rates:
        return SyncReport("step_rate", {}, None)
    fastest = max(rates.values())
    scores = {rank: RankScore(rank, rate / fastest, rate / fastest < threshold) for rank, rate in sorted(rates.items())}
    slowest = min(scores.values(), key=lambda s: s.score)
    return SyncReport("step_rate", scores, slowest.rank if slowest.flagged else None)
