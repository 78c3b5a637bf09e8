"""One run's data, and the store of all runs: what ingest appends to and every reader reads.

Series are appended to by one ingest thread; readers take snapshots (see :mod:`ridgeline.store.series`).
Restart marks (kept by each series, and part of its snapshots) record how many of its points preceded each
SessionLog START event, which is what :func:`ridgeline.store.restarts.visible` needs.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

import numpy as np

from ridgeline.format.tags import RUN_END_TAG, RUN_METADATA_TAG
from ridgeline.store.base import BlobRef, Kind, Problem
from ridgeline.store.blobs import BlobSeries
from ridgeline.store.restarts import RestartLog
from ridgeline.store.series import ScalarSeries

SeriesKey = tuple[Kind, str]


# Epochs are unique within the process: a run read again (a rewritten file), or taken from the cache or a worker
# process, gets a new one (see ``Store.replace_run``), so readers notice without comparing objects.
_epochs = itertools.count(1)


@dataclass
class RunData:
    """Everything read from one run's event files, and the facts readers ask about it, kept as points arrive.

    ``first_wall_time`` is the earliest first point of any series (points are only appended, so it is exact);
    ``last_wall_time`` the latest wall time appended (run metadata excluded, 0.0 before any); ``last_step`` the
    largest step of any series' last point — recomputed over the series' last steps only when the series holding
    it went back (a restart), never by scanning points.
    """

    name: str
    scalars: dict[str, ScalarSeries] = field(default_factory=dict)
    blobs: dict[SeriesKey, BlobSeries] = field(default_factory=dict)
    last_wall_time: float = 0.0
    first_wall_time: float | None = None
    epoch: int = field(default_factory=lambda: next(_epochs))
    restart_log: RestartLog = field(default_factory=RestartLog, repr=False)  # the START events, for every series
    _last_steps: dict[SeriesKey, int] = field(default_factory=dict, repr=False)
    _last_step: int | None = field(default=None, repr=False)
    _last_step_stale: bool = field(default=False, repr=False)

    def scalar_series(self, tag: str) -> ScalarSeries:
        series = self.scalars.get(tag)
        if series is None:
            series = self.scalars[tag] = ScalarSeries(restart_log=self.restart_log)
        return series

    def append_scalars(self, tag: str, step: np.ndarray, wall_time: np.ndarray, value: np.ndarray) -> None:
        if len(step):
            self.scalar_series(tag).append(step, wall_time, value)
            self._arrived(("scalars", tag), int(step[-1]), float(wall_time[0]), float(wall_time[-1]))

    def append_blob(self, kind: Kind, tag: str, ref: BlobRef) -> None:
        series = self.blobs.get((kind, tag))
        if series is None:
            series = self.blobs[(kind, tag)] = BlobSeries(restart_log=self.restart_log)
        series.append(ref)
        # The run metadata is recorded when the writer opens, the end record when it closes: they say when the
        # writer started and stopped, not when the run last logged something, so they do not move ``last_wall_time``.
        last = None if tag in (RUN_METADATA_TAG, RUN_END_TAG) else ref.wall_time
        self._arrived((kind, tag), ref.step, ref.wall_time, last)

    def _arrived(self, key: SeriesKey, last_step: int, first_wall: float, last_wall: float | None) -> None:
        if self.first_wall_time is None or first_wall < self.first_wall_time:
            self.first_wall_time = first_wall
        if last_wall is not None and last_wall > self.last_wall_time:
            self.last_wall_time = last_wall
        previous = self._last_steps.get(key)
        self._last_steps[key] = last_step
        if self._last_step is None or last_step >= self._last_step:
            self._last_step = last_step
        elif previous == self._last_step:  # the series that held the largest last step went back
            self._last_step_stale = True

    @property
    def last_step(self) -> int | None:
        """The largest step of any series' last point (file order), None before any point."""
        if self._last_step_stale:
            self._last_step = max(self._last_steps.values(), default=None)
            self._last_step_stale = False
        return self._last_step

    def mark_restart(self, step: int) -> None:
        """A SessionLog START at ``step``: earlier points at steps >= step are hidden from now on (O(1): one entry
        in the run's log, which every series reads)."""
        self.restart_log.append(int(step))

    def scalar_tags(self) -> list[str]:
        """Its scalar series' tags (a store may know them without building the series)."""
        return list(self.scalars)

    def tags(self) -> dict[str, list[str]]:
        """Tags per kind, sorted; kinds without tags are left out."""
        by_kind: dict[str, list[str]] = {}
        scalars = self.scalar_tags()
        if scalars:
            by_kind["scalars"] = sorted(scalars)
        for kind, tag in list(self.blobs):  # list() copies in one step: the ingest thread may add a series meanwhile
            by_kind.setdefault(kind, []).append(tag)
        return {kind: sorted(tags) for kind, tags in by_kind.items()}


class Store:
    """All runs of the log directories, and the problems met reading them.

    ``generation`` counts the ingest passes that changed something (points added, runs found or gone): a
    reader that remembers it knows cheaply whether anything is new (the server's ``/api/runs`` polling).
    """

    def __init__(self) -> None:
        self.runs: dict[str, RunData] = {}
        self.generation = 0
        self._problems: list[Problem] = []
        self._seen: set[Problem] = set()
        self._lock = threading.Lock()

    def run(self, name: str) -> RunData:
        data = self.runs.get(name)
        if data is None:
            data = self.runs[name] = RunData(name)
        return data

    def replace_run(self, data: RunData) -> None:
        """Put a run read elsewhere (the cache, a worker process) in place: a new reading, so a new epoch."""
        data.epoch = next(_epochs)
        self.runs[data.name] = data

    def drop_run(self, name: str) -> None:
        self.runs.pop(name, None)

    def file_started(self, run: str, path: str, offsets: dict[str, int]) -> None:
        """Ingest is about to read ``path`` of ``run`` for the first time; ``offsets``: where reading of the run's
        other files stands. A store that can rewind (the on-disk one) remembers what the run held at this point."""

    def rewind(self, run: str, paths: list[str]) -> dict[str, int] | None:
        """Take back what ``run`` gained since the first of ``paths`` began to be read (they changed under the
        reader): returns where reading of the run's other files stood then, to resume from; None when this store
        cannot (the caller reads the run again from scratch)."""
        return None

    def add_problems(self, problems: list[Problem]) -> None:
        """Record problems; one met again on a later pass (an unreadable file) is listed once."""
        if problems:
            with self._lock:
                for problem in problems:
                    if problem not in self._seen:
                        self._seen.add(problem)
                        self._problems.append(problem)

    def problems(self) -> list[Problem]:
        with self._lock:
            return list(self._problems)
