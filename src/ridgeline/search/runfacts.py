"""What run queries ask about a run, computed once per change of its data: metric statistics, hyperparameters,
start and end times, non-finite values.

Every answer is cached under a key that changes when the data behind it does: the series' version token
(:class:`ridgeline.store.provider.Version`: the run's reading, the series' length and restart marks). Asking
again about 1,000 unchanged runs is a few dictionary look-ups each, however long their curves.

NaN: ``min``/``max``/``mean`` are taken over the values that are not NaN (±Inf count: a loss that went to
infinity has ``max`` Inf); a series of NaN only has none (the comparison is false). ``first``/``last`` are the
values as written, NaN included. ``nan`` and ``inf`` say whether the series holds a NaN / an infinite value.
"""

from __future__ import annotations

import math
import re
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from ridgeline.format.tags import HPARAMS_SESSION_END_TAG, HPARAMS_SESSION_START_TAG
from ridgeline.store.base import Kind
from ridgeline.store.logdir import LogDir
from ridgeline.store.provider import RunInfo, Version

STATS = ("first", "last", "min", "max", "mean", "count", "step", "nan", "inf")
"""What ``metric(tag).<stat>`` offers: first/last value, min/max/mean (NaN left out), number of points, the last
step, and whether it holds a NaN / an infinite value."""

_HPARAMS: tuple[Kind, str] = ("hparams", HPARAMS_SESSION_START_TAG)
_SESSION_END: tuple[Kind, str] = ("hparams", HPARAMS_SESSION_END_TAG)
# torch names each add_hparams trial after time.time() ("1795978037.475189"), under the run holding the curves.
_TIMESTAMP = re.compile(r"^\d{9,}(\.\d+)?$")
_NO_HPARAMS: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class Stats:
    first: float
    last: float
    min: float | None
    max: float | None
    mean: float | None
    count: int
    step: int
    nan: bool
    inf: bool

    def get(self, stat: str) -> float | bool | None:
        value: float | bool | None = getattr(self, stat)
        return value


def series_stats(step: np.ndarray, value: np.ndarray) -> Stats:
    """The statistics of one non-empty series (values in step order, as TensorBoard shows them)."""
    nan = np.isnan(value)
    has_nan = bool(nan.any())
    finite_or_inf = value[~nan] if has_nan else value
    with np.errstate(invalid="ignore", over="ignore"):
        low = float(finite_or_inf.min()) if finite_or_inf.size else None
        high = float(finite_or_inf.max()) if finite_or_inf.size else None
        mean = float(finite_or_inf.mean()) if finite_or_inf.size else None
    return Stats(
        first=float(value[0]),
        last=float(value[-1]),
        min=low,
        max=high,
        mean=mean,
        count=int(value.size),
        step=int(step[-1]),
        nan=has_nan,
        inf=bool(np.isinf(value).any()),
    )


class RunFacts:
    """The cached facts about the runs of one LogDir (one per LogDir: :func:`facts_for`)."""

    def __init__(self, logdir: LogDir) -> None:
        self.logdir = logdir
        self._stats: dict[tuple[str, str], tuple[Version, Stats | None]] = {}
        self._records: dict[tuple[str, str], tuple[Version, Any]] = {}
        self._memo: dict[tuple[Any, ...], Any] = {}  # answers while ingest's generation stays the same
        self._generation = -1

    def refresh(self) -> None:
        """Forget the answers of the last generation (call once per query): while ingest's generation stays the
        same, each answer is one dictionary look-up; when it moves, only the series that changed are read."""
        generation = self.logdir.generation  # read first: data added meanwhile moves it again
        if generation != self._generation:
            self._memo.clear()
            self._generation = generation

    def _version(self, run: str, kind: Kind, tag: str) -> Version | None:
        try:
            return self.logdir.version(run, kind, tag)
        except KeyError:  # no such run or series (or it vanished meanwhile)
            return None

    def _info(self, run: str) -> RunInfo | None:
        try:
            return self.logdir.run_info(run)
        except KeyError:
            return None

    # --- scalars ------------------------------------------------------------------------------------------------
    def stats(self, run: str, tag: str) -> Stats | None:
        """The statistics of the run's scalar tag, None when the run has no such tag (or no point in it)."""
        key = self._version(run, "scalars", tag)
        if key is None:
            return None
        cached = self._stats.get((run, tag))
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            shown = self.logdir.scalars(run, tag)
        except KeyError:
            return None
        stats = series_stats(shown.step, shown.value) if len(shown) else None
        self._stats[(run, tag)] = (key, stats)
        return stats

    def metric(self, run: str, tags: tuple[str, ...]) -> Stats | None:
        """``metric(tags...)``: the first of the tags the run has; for a torch ``add_hparams`` trial (a sub-run
        named after a timestamp) that lacks them, the run it was written under, which holds the curves."""
        key = ("metric", run, tags)
        if key in self._memo:
            return self._memo[key]  # type: ignore[no-any-return]
        found = None
        for candidate in self._metric_runs(run):
            for tag in tags:
                found = self.stats(candidate, tag)
                if found is not None:
                    break
            if found is not None:
                break
        self._memo[key] = found
        return found

    def curves_parent(self, run: str) -> str | None:
        """For a torch ``add_hparams`` trial: the run it was written under (which holds the curves), else None."""
        runs = self._metric_runs(run)
        return runs[1] if len(runs) > 1 else None

    def _metric_runs(self, run: str) -> tuple[str, ...]:
        parent, _, leaf = run.rpartition("/")
        parent = parent or "."
        if _TIMESTAMP.match(leaf) and parent != run and self._info(parent) is not None:
            return (run, parent)
        return (run,)

    def nonfinite(self, run: str) -> tuple[bool, bool]:
        """(has a NaN, has an infinite value) over every scalar tag of the run."""
        key = ("nonfinite", run)
        if key not in self._memo:
            self._memo[key] = self._nonfinite(run)
        return self._memo[key]  # type: ignore[no-any-return]

    def _nonfinite(self, run: str) -> tuple[bool, bool]:
        nan = inf = False
        for tag in self.scalar_tags(run):
            stats = self.stats(run, tag)
            if stats is not None:
                nan, inf = nan or stats.nan, inf or stats.inf
        return nan, inf

    def scalar_tags(self, run: str) -> list[str]:
        info = self._info(run)
        return list(info.tags.get("scalars", ())) if info is not None else []

    # --- hyperparameters and status -----------------------------------------------------------------------------
    def _record(self, run: str, series_key: tuple[Kind, str]) -> Any:
        key = self._version(run, *series_key)
        if key is None:
            return None
        cached = self._records.get((run, series_key[1]))
        if cached is not None and cached[0] == key:
            return cached[1]
        record = self.logdir.hparams(run) if series_key == _HPARAMS else self.logdir.hparams_session_end(run)
        self._records[(run, series_key[1])] = (key, record)
        return record

    def hparams(self, run: str) -> dict[str, Any]:
        """The run's hyperparameters as written (bool, float, str), {} when it recorded none."""
        key = ("hparams", run)
        if key not in self._memo:
            record = self._record(run, _HPARAMS)
            self._memo[key] = record.hparams if record is not None else _NO_HPARAMS
        return self._memo[key]  # type: ignore[no-any-return]

    def status(self, run: str) -> str | None:
        """The session end's status ("success", "failure", "running", "unknown"), None when none was written."""
        record = self._record(run, _SESSION_END)
        return record.status if record is not None else None

    # --- times --------------------------------------------------------------------------------------------------
    def times(self, run: str) -> tuple[float | None, float | None]:
        """(started, ended): the wall time of the run's first and of its last record, seconds since the epoch."""
        key = ("times", run)
        if key not in self._memo:
            self._memo[key] = self._times(run)
        return self._memo[key]  # type: ignore[no-any-return]

    def _times(self, run: str) -> tuple[float | None, float | None]:
        info = self._info(run)
        if info is None or info.first_wall_time is None:
            return None, None
        return info.first_wall_time, info.last_wall_time or 0.0


_FACTS: weakref.WeakKeyDictionary[LogDir, RunFacts] = weakref.WeakKeyDictionary()


def facts_for(logdir: LogDir) -> RunFacts:
    """The one RunFacts of ``logdir`` (kept as long as the LogDir lives)."""
    facts = _FACTS.get(logdir)
    if facts is None:
        facts = _FACTS[logdir] = RunFacts(logdir)
    return facts


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not (isinstance(value, float) and math.isnan(value))
