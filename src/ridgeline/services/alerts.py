"""The alerts of a whole log directory, kept up to date as ingest appends points (server and CLI share it).

:class:`AlertMonitor` holds one :class:`~ridgeline.analysis.anomaly.SeriesDetector` per scalar series and feeds
it only the points appended since the last :meth:`AlertMonitor.advance` (a series' points are read from the
store in file order, as they were logged; after a restart the re-logged points are watched too). Alerts are
kept in one append-only list; a client's cursor is an index into it, so it receives each alert once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ridgeline.analysis.alert_config import AlertConfig
from ridgeline.analysis.anomaly import Alert, SeriesDetector, stalled_alerts
from ridgeline.store.logdir import LogDir
from ridgeline.store.selection import Matcher


@dataclass
class _Watched:
    epoch: int  # the run's reading: a new one (the run was re-read from scratch) restarts the detector
    consumed: int
    detector: SeriesDetector


class AlertMonitor:
    """Streaming alerts over every scalar series of ``logdir``; thread-safe."""

    def __init__(self, logdir: LogDir, config: AlertConfig | None = None) -> None:
        self.logdir = logdir
        self.config = config or AlertConfig()
        self._lock = threading.Lock()
        self._generation = -1
        self._watched: dict[tuple[str, str], _Watched] = {}
        self._alerts: list[Alert] = []

    def advance(self) -> list[Alert]:
        """Feed the points ingest added since the last call (nothing to do when the store's generation did not
        move); returns the new alerts, which are also appended to :meth:`alerts`."""
        with self._lock:
            generation = self.logdir.generation  # read first: a pass ending meanwhile is seen next time
            if generation == self._generation:
                return []
            self._generation = generation
            new: list[Alert] = []
            seen: set[tuple[str, str]] = set()
            for run in self.logdir.runs():
                try:
                    tags = self.logdir.tags(run).get("scalars", [])
                except KeyError:  # vanished meanwhile
                    continue
                detectors = []
                for tag in tags:
                    try:
                        version = self.logdir.version(run, "scalars", tag)
                        points = self.logdir.scalars(run, tag, all_points=True)  # file order, as logged
                    except KeyError:
                        continue
                    seen.add((run, tag))
                    watched = self._watch(run, tag, version.epoch, len(points))
                    if len(points) > watched.consumed:
                        part = slice(watched.consumed, len(points))
                        update = watched.detector.update
                        new.extend(update(points.step[part], points.wall_time[part], points.value[part]))
                        watched.consumed = len(points)
                    detectors.append(watched.detector)
                new.extend(stalled_alerts(detectors))
            for key in set(self._watched) - seen:  # runs or tags that disappeared
                del self._watched[key]
            new.sort(key=lambda alert: (alert.run, alert.tag, alert.step))
            self._alerts.extend(new)
            return new

    def _watch(self, run: str, tag: str, epoch: int, length: int) -> _Watched:
        watched = self._watched.get((run, tag))
        if watched is None or watched.epoch != epoch or length < watched.consumed:
            detector = SeriesDetector(self.config.params_for(tag), run=run, tag=tag)
            watched = self._watched[(run, tag)] = _Watched(epoch, 0, detector)
        return watched

    def alerts(
        self,
        since: int = 0,
        *,
        run_pattern: Matcher | None = None,
        tag_pattern: Matcher | None = None,
    ) -> tuple[list[Alert], int]:
        """The alerts raised after cursor ``since`` (all with 0) matching the patterns (``search``), and the
        cursor to pass next time. A cursor beyond the end (the server restarted) counts as 0. Alerts of runs
        that are gone (their directory was deleted) are left out; the cursor still counts them."""
        with self._lock:
            cursor = len(self._alerts)
            start = since if 0 <= since <= cursor else 0
            present = set(self.logdir.runs())
            found = [alert for alert in self._alerts[start:] if alert.run in present]
        if run_pattern is not None:
            found = [alert for alert in found if run_pattern.search(alert.run)]
        if tag_pattern is not None:
            found = [alert for alert in found if tag_pattern.search(alert.tag)]
        return found, cursor
