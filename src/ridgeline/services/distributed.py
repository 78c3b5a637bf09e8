"""Distributed runs over a log directory: the adapter between a :class:`LogDir` and
:mod:`ridgeline.analysis.distributed`, shared by ``ridgeline ranks``, the distributed plugin and the page.

For each distributed run (ranks grouped by :func:`~ridgeline.analysis.distributed.group_ranks`) it reads each
rank's run metadata records (host, pid and, under a launcher, run id, restart count, rank), the sync records
(``SummaryWriter.sync_step``) and the scalar series, and reports:

- each rank's identity, keyed by (run id, restart count, rank, host); the job's restarts, one marker per run
  metadata record of a later restart count (a restarted job appends to the same ``rank{N}`` directories, so it
  stays one run);
- each rank's clock offset against the reference rank: from the sync records' departures when every rank has
  them, else from the wall times of the steps all ranks log (``clock_source`` says which);
- the sync delay, straggler and scores (from the sync records, else from step rates), and load balance.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ridgeline.analysis.distributed import (
    DEFAULT_THRESHOLD,
    Aggregate,
    Offset,
    RankGroup,
    Spread,
    SyncReport,
    aggregate,
    analyse_step_rates,
    analyse_sync,
    estimate_offsets,
    group_ranks,
    input_bound_ranks,
    utilisation_spread,
)
from ridgeline.analysis.distributed.clocks import Instants
from ridgeline.format.run_metadata import parse
from ridgeline.format.tags import RUN_METADATA_TAG, SYNC_TAG
from ridgeline.store.logdir import LogDir, user_tags
from ridgeline.store.payloads import DecodeError

SYSTEM_PREFIX = "sys/"
_GPU_UTILISATION = re.compile(r"^sys/gpu\d+/utilization_percent$")
_QUEUE = re.compile(r"queue", re.IGNORECASE)


@dataclass(frozen=True)
class RankIdentity:
    """Who wrote one rank's run: from its first run metadata record (None where it was not recorded)."""

    rank: int
    run: str
    host: str | None = None
    pid: int | None = None
    run_id: str | None = None
    restart_count: int | None = None

    @property
    def key(self) -> tuple[str | None, int | None, int, str | None]:
        return (self.run_id, self.restart_count, self.rank, self.host)


@dataclass(frozen=True)
class Restart:
    """A rank's writer opened again at a later restart count of the job (torchrun's TORCHELASTIC_RESTART_COUNT)."""

    rank: int
    restart_count: int
    wall_time: float
    host: str | None


@dataclass(frozen=True)
class DistributedReport:
    """Everything ``ridgeline ranks`` prints about one distributed run (times in seconds)."""

    group: RankGroup
    identities: dict[int, RankIdentity]
    offsets: dict[int, Offset]
    clock_source: str  # "sync", "steps" or "none"
    sync: SyncReport
    restarts: list[Restart] = field(default_factory=list)
    utilisation: Spread | None = None
    input_bound: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The documented object: ``{"run", "ranks": [{"rank", "host", "offset_ms", "offset_uncertainty_ms",
        "score", "straggler", ...}], "sync_delay_ms": {"median", "p95"}, ...}`` (docs/distributed.md)."""
        ranks = []
        for rank, run in self.group.ranks.items():
            identity = self.identities.get(rank, RankIdentity(rank, run))
            offset = self.offsets.get(rank)
            score = self.sync.scores.get(rank)
            ranks.append(
                {
                    "rank": rank,
                    "run": run,
                    "host": identity.host,
                    "pid": identity.pid,
                    "run_id": identity.run_id,
                    "restart_count": identity.restart_count,
                    "offset_ms": _ms(offset.offset) if offset else None,
                    "offset_uncertainty_ms": _ms(offset.uncertainty) if offset else None,
                    "offset_samples": offset.samples if offset else 0,
                    "score": None if score is None else round(score.score, 4),
                    "flagged": bool(score and score.flagged),
                    "straggler": rank == self.sync.straggler,
                    "last_arrivals": None if score is None or self.sync.method != "sync" else score.last_count,
                    "mean_lateness_ms": None if score is None else _ms(score.mean_lateness),
                }
            )
        delay = self.sync.delay_percentiles()
        return {
            "run": self.group.name,
            "world_size": self.group.world_size,
            "clock_source": self.clock_source,
            "score_source": self.sync.method,
            "ranks": ranks,
            "sync_delay_ms": None if delay is None else {"median": _ms(delay[0]), "p95": _ms(delay[1])},
            "straggler": None
            if self.sync.straggler is None
            else {"rank": self.sync.straggler, "cost_s": round(self.sync.straggler_cost, 6)},
            "restarts": [
                {"rank": r.rank, "restart_count": r.restart_count, "wall_time": r.wall_time, "host": r.host}
                for r in self.restarts
            ],
            "load_balance": {
                "gpu_utilisation_std_pp": None if self.utilisation is None else round(self.utilisation.median, 3),
                "gpu_utilisation_flagged": bool(self.utilisation and self.utilisation.flagged),
                "input_bound_ranks": self.input_bound,
            },
        }


def _ms(seconds: float) -> float | None:
    return None if not np.isfinite(seconds) else round(float(seconds) * 1000.0, 3)


def distributed_runs(logdir: LogDir, pattern: Any = None) -> list[RankGroup]:
    """The distributed runs of the log directory: ``rank{N}`` runs by default, else grouped by ``pattern``."""
    return group_ranks(logdir.runs(), pattern)


def _metadata_records(logdir: LogDir, run: str) -> list[tuple[float, dict[str, Any]]]:
    records = []
    try:
        entries = logdir.text(run, RUN_METADATA_TAG)
    except KeyError:
        return []
    for entry in entries:
        try:
            text = np.asarray(entry.value.text).reshape(-1)
            records.append((entry.wall_time, parse(str(text[0]))))
        except (DecodeError, ValueError, IndexError, OSError):
            continue  # an unreadable record is the ingest's problem to report; the rank keeps its other figures
    return records


def _identity(rank: int, run: str, records: list[tuple[float, dict[str, Any]]]) -> RankIdentity:
    if not records:
        return RankIdentity(rank, run)
    info = records[0][1]
    launcher = info.get("distributed") or {}
    restart = launcher.get("restart_count")
    return RankIdentity(
        rank,
        run,
        host=info.get("host"),
        pid=info.get("pid"),
        run_id=launcher.get("run_id"),
        restart_count=restart if isinstance(restart, int) else None,
    )


def _restarts(rank: int, records: list[tuple[float, dict[str, Any]]]) -> list[Restart]:
    found: list[Restart] = []
    seen: set[int] = set()
    for wall_time, info in records:
        count = (info.get("distributed") or {}).get("restart_count")
        if isinstance(count, int) and count not in seen:
            if seen:
                found.append(Restart(rank, count, wall_time, info.get("host")))
            seen.add(count)
    return found


def _scalars(logdir: LogDir, run: str, tag: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    try:
        series = logdir.scalars(run, tag)
    except KeyError:
        return None
    return series.step, series.wall_time, series.value


def _has_scalar(logdir: LogDir, run: str, tag: str) -> bool:
    try:
        return tag in logdir.run_info(run).tags.get("scalars", ())
    except KeyError:
        return False


def _user_scalar_tags(logdir: LogDir, run: str, system: bool) -> list[str]:
    try:
        tags = user_tags(logdir.run_info(run)).get("scalars", [])
    except KeyError:
        return []
    return [tag for tag in tags if system or not tag.startswith(SYSTEM_PREFIX)]


def common_tags(logdir: LogDir, group: RankGroup, *, system: bool = False) -> list[str]:
    """The scalar tags every rank of the group logs, sorted; the system metrics (``sys/``, sampled on each rank's
    own schedule, so useless for aligning clocks) only with ``system``."""
    sets = [set(_user_scalar_tags(logdir, run, system)) for run in group.ranks.values()]
    return sorted(set.intersection(*sets)) if sets else []


def analyse(logdir: LogDir, group: RankGroup, threshold: float = DEFAULT_THRESHOLD) -> DistributedReport:
    """The report of one distributed run (module docstring)."""
    identities, restarts = {}, []
    for rank, run in group.ranks.items():
        records = _metadata_records(logdir, run)
        identities[rank] = _identity(rank, run, records)
        restarts.extend(_restarts(rank, records))
    sync = {rank: found for rank, run in group.ranks.items() if (found := _sync_records(logdir, run)) is not None}
    if len(sync) == group.world_size and group.world_size > 1:
        channel: dict[int, Instants] = {rank: _unique(step, wall) for rank, (step, wall, _) in sync.items()}
        offsets, source = estimate_offsets([channel]), "sync"
        report = analyse_sync(sync, {rank: o.offset for rank, o in offsets.items()}, threshold)
    else:
        channels = _step_channels(logdir, group)
        offsets = estimate_offsets(channels) if channels else {}
        source = "steps" if channels else "none"
        report = analyse_step_rates(_step_rate_series(logdir, group, channels), threshold)
    return DistributedReport(
        group,
        identities,
        offsets,
        source,
        report,
        sorted(restarts, key=lambda r: (r.wall_time, r.rank)),
        _utilisation(logdir, group, offsets),
        _input_bound(logdir, group),
    )


def analyse_all(logdir: LogDir, pattern: Any = None, threshold: float = DEFAULT_THRESHOLD) -> list[DistributedReport]:
    return [analyse(logdir, group, threshold) for group in distributed_runs(logdir, pattern)]


def _sync_records(logdir: LogDir, run: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    if not _has_scalar(logdir, run, SYNC_TAG):
        return None
    return _scalars(logdir, run, SYNC_TAG)


def _unique(step: np.ndarray, times: np.ndarray) -> Instants:
    """One instant per step (the last written, as the visible series already is)."""
    keys, index = np.unique(step[::-1], return_index=True)
    return keys.astype(np.int64), np.asarray(times[::-1][index], dtype=np.float64)


def _step_channels(logdir: LogDir, group: RankGroup) -> list[dict[int, Instants]]:
    channels = []
    for tag in common_tags(logdir, group):
        channel = {}
        for rank, run in group.ranks.items():
            found = _scalars(logdir, run, tag)
            if found is not None and len(found[0]):
                channel[rank] = _unique(found[0], found[1])
        if len(channel) == group.world_size:
            channels.append(channel)
    return channels


def _step_rate_series(
    logdir: LogDir, group: RankGroup, channels: list[dict[int, Instants]]
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The (steps, wall times) of the common tag with the most points, per rank."""
    if not channels:
        return {}
    longest = max(channels, key=lambda channel: min(len(keys) for keys, _ in channel.values()))
    return {rank: (keys, times) for rank, (keys, times) in longest.items()}


def _shift(offsets: dict[int, Offset], rank: int) -> float:
    """What to subtract from ``rank``'s wall times to align them (0 where its offset is unknown)."""
    offset = offsets.get(rank)
    return offset.offset if offset is not None and np.isfinite(offset.offset) else 0.0


def _utilisation(logdir: LogDir, group: RankGroup, offsets: dict[int, Offset]) -> Spread | None:
    per_rank: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    intervals = []
    for rank, run in group.ranks.items():
        try:
            tags = [t for t in logdir.run_info(run).tags.get("scalars", ()) if _GPU_UTILISATION.match(t)]
        except KeyError:
            continue
        series = [found for tag in tags if (found := _scalars(logdir, run, tag)) is not None and len(found[0])]
        if not series:
            continue
        # A rank's GPUs averaged per sample (samples share a step number and a wall time).
        step = np.concatenate([s[0] for s in series])
        wall = np.concatenate([s[1] for s in series])
        value = np.concatenate([s[2] for s in series])
        keys, inverse = np.unique(step, return_inverse=True)
        mean = np.bincount(inverse, weights=value) / np.bincount(inverse)
        when = np.zeros(len(keys))
        np.maximum.at(when, inverse, wall)
        per_rank[rank] = (when - _shift(offsets, rank), mean)
        if len(when) > 1:
            intervals.append(float(np.median(np.diff(when))))
    if len(per_rank) < 2 or not intervals:
        return None
    return utilisation_spread(per_rank, max(float(np.median(intervals)), 1e-3))


def _input_bound(logdir: LogDir, group: RankGroup) -> list[int]:
    queue_tags = [tag for tag in common_tags(logdir, group) if _QUEUE.search(tag)]
    if not queue_tags:
        return []
    queues = {}
    for rank, run in group.ranks.items():
        found = _scalars(logdir, run, queue_tags[0])
        if found is not None:
            queues[rank] = (found[0], found[2])
    return input_bound_ranks(queues)


@dataclass(frozen=True)
class TagAcrossRanks:
    """One tag of a distributed run: the per-step aggregate, and each rank's line on aligned relative time."""

    aggregate: Aggregate
    lines: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]  # rank -> (step, aligned relative time, value)


def tag_across_ranks(logdir: LogDir, report: DistributedReport, tag: str) -> TagAcrossRanks:
    """``tag`` over the ranks of ``report``'s run (KeyError when no rank logs it)."""
    ranks, steps, values, walls = [], [], [], []
    for rank, run in report.group.ranks.items():
        found = _scalars(logdir, run, tag)
        if found is None:
            continue
        ranks.append(rank)
        steps.append(found[0])
        walls.append(found[1] - _shift(report.offsets, rank))
        values.append(found[2])
    if not ranks:
        raise KeyError(f"no rank of {report.group.name!r} logs the scalar tag {tag!r}")
    start = min((float(w.min()) for w in walls if len(w)), default=0.0)
    lines = {rank: (s, w - start, v) for rank, s, w, v in zip(ranks, steps, walls, values, strict=True)}
    return TagAcrossRanks(aggregate(ranks, steps, values), lines)


class DistributedCache:
    """The reports of every distributed run, rebuilt when the log directory's generation moved."""

    def __init__(self, logdir: LogDir) -> None:
        self._logdir = logdir
        self._lock = threading.Lock()
        self._generation = -1
        self._reports: list[DistributedReport] = []

    def reports(self) -> list[DistributedReport]:
        with self._lock:
            generation = self._logdir.generation
            if generation != self._generation:
                self._reports = analyse_all(self._logdir)
                self._generation = generation
            return self._reports

    def report(self, name: str) -> DistributedReport:
        for report in self.reports():
            if report.group.name == name:
                return report
        raise KeyError(f"no distributed run {name!r}; there are {_names(self.reports())}")


def _names(reports: Iterable[DistributedReport]) -> str:
    names = [repr(r.group.name) for r in reports]
    return ", ".join(names) if names else "none"


def straggler_notes(logdir: LogDir, runs: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """What ``ridgeline diagnose`` adds about distributed runs: one note per named straggler, in the shape of a
    diagnosis finding (``{"run", "kind": "straggler", "confidence", "step", "tags", "evidence", "message"}``),
    for the distributed runs with a rank among ``runs`` (default: all)."""
    wanted = None if runs is None else set(runs)
    notes = []
    for report in analyse_all(logdir):
        straggler = report.sync.straggler
        if straggler is None or (wanted is not None and not wanted & set(report.group.ranks.values())):
            continue
        score = report.sync.scores[straggler]
        if report.sync.method == "sync":
            how = f"arrived last at {score.last_count} of {len(report.sync.steps)} synchronisations"
            cost = f", costing the other ranks {report.sync.straggler_cost:.3f} s of waiting"
        else:
            how, cost = "steps slower than the others", ""
        notes.append(
            {
                "run": report.group.name,
                "kind": "straggler",
                "confidence": round(1.0 - score.score, 3) if score.flagged else 0.5,
                "step": None,
                "tags": [SYNC_TAG] if report.sync.method == "sync" else [],
                "evidence": {
                    "rank": straggler,
                    "run": report.group.ranks[straggler],
                    "score": round(score.score, 4),
                    "cost_s": round(report.sync.straggler_cost, 6),
                },
                "message": f"rank {straggler} is the straggler: it {how} (score {score.score:.2f}){cost}.",
            }
        )
    return notes
