"""The run listing every page polls: each run with its tags per kind, last step and wall time, annotation count.

It is rebuilt only when the log directory's ``generation`` moved (ingest added points, or a run appeared or
vanished), from each run's :class:`~ridgeline.store.provider.RunInfo` (no series is scanned).

A torch ``add_hparams`` trial is attached to the run it was written from (:mod:`ridgeline.store.trials`): that run
is listed under the kind "hparams" with ``hparams_trial`` naming the sub-run that holds its hyperparameters, and
the trial says which run it is attached to in ``attached_to``.

Two kinds are not tags of the event files but name their dashboards: "projector" (the embedding tags of the run's
projector config) and "profile" (the file names of the profiler traces in the run's directory,
:func:`ridgeline.services.traces.find_traces`), so that a page knows which tabs the log directory has without
asking each dashboard. Both are looked at when the listing is rebuilt: a trace that appears while nothing else
changes is listed once the run's event files change (or the server restarts).

Each run also carries its ``status`` (running, finished, failed, crashed, stopped: :mod:`ridgeline.store.status`).
A status changes with time alone (a run nobody writes to becomes crashed), so the statuses are derived again when
the generation moved or :data:`STATUS_REFRESH_S` passed since they were, whichever comes first.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ridgeline.format.tags import HPARAMS_SESSION_START_TAG
from ridgeline.services.traces import find_traces
from ridgeline.store.logdir import LogDir, user_tags
from ridgeline.store.provider import RunInfo
from ridgeline.store.status import CRASHED_AFTER_S
from ridgeline.store.trials import TrialLinks, link_trials

STATUS_REFRESH_S = 5.0


class RunIndex:
    """Every run with its tags per kind, its last step and wall time and its status, rebuilt when the store
    changed (the statuses also every :data:`STATUS_REFRESH_S` seconds)."""

    def __init__(self, logdir: LogDir, *, crashed_after: float = CRASHED_AFTER_S) -> None:
        self._logdir = logdir
        self._crashed_after = crashed_after
        self._lock = threading.Lock()
        self._generation = -1
        self._runs: list[dict[str, Any]] = []
        self._statuses_at = float("-inf")
        self._embedding_tags: dict[str, tuple[tuple[Any, ...], list[str]]] = {}

    @property
    def crashed_after(self) -> float:
        return self._crashed_after

    def current(self) -> tuple[int, list[dict[str, Any]]]:
        with self._lock:
            generation = self._logdir.generation  # read before building: a pass that ends meanwhile forces a rebuild
            rebuilt = generation != self._generation
            if rebuilt:
                links = link_trials(self._logdir)
                self._runs = [self._describe(run, links) for run in self._logdir.runs()]
                self._generation = generation
            if rebuilt or time.monotonic() - self._statuses_at >= STATUS_REFRESH_S:
                self._runs = [{**entry, "status": self._status(entry["run"])} for entry in self._runs]
                self._statuses_at = time.monotonic()
            return generation, self._runs

    def _status(self, run: str) -> str | None:
        try:
            return self._logdir.status(run, crashed_after=self._crashed_after).status
        except KeyError:  # vanished meanwhile
            return None

    def _embeddings(self, run: str, info: RunInfo) -> list[str]:
        """The run's embedding tags; its projector config is read again only when the run changed."""
        stamp = (info.epoch, info.last_step, info.last_wall_time)
        cached = self._embedding_tags.get(run)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            tags = sorted({ref.tag for ref in self._logdir.embeddings(run)})
        except (KeyError, ValueError):  # vanished, or a config that cannot be read (/api/embeddings says why)
            tags = []
        self._embedding_tags[run] = (stamp, tags)
        return tags

    def _traces(self, run: str) -> list[str]:
        try:
            return [trace.name for trace in find_traces(self._logdir, run)]
        except (KeyError, OSError):  # vanished, or a directory that cannot be listed
            return []

    def _describe(self, run: str, links: TrialLinks) -> dict[str, Any]:
        attachment = {"hparams_trial": links.trial_of.get(run), "attached_to": links.parent_of.get(run)}
        try:
            info = self._logdir.run_info(run)
        except KeyError:  # vanished between listing and reading
            return {"run": run, "tags": {}, "last_step": None, "last_wall_time": None, "annotations": 0, **attachment}
        tags = user_tags(info)
        # A run with a session start (or a torch trial attached) is a trial of the hparams dashboard: /api/runs lists
        # it under the kind "hparams" (the tag is hidden from tags() as bookkeeping).
        if HPARAMS_SESSION_START_TAG in info.tags.get("hparams", ()) or run in links.trial_of:
            tags = {**tags, "hparams": [HPARAMS_SESSION_START_TAG]}
        graph_tags = list(info.tags.get("graphs", ()))  # __graph__ is hidden from tags(); the graphs tab needs it
        if graph_tags:
            tags = {**tags, "graphs": graph_tags}
        embedding_tags = self._embeddings(run, info)
        if embedding_tags:  # the projector tab's kind (its dashboard's name), from the run's projector config
            tags = {**tags, "projector": embedding_tags}
        traces = self._traces(run)
        if traces:  # the profile tab's kind: the run's profiler trace files
            tags = {**tags, "profile": traces}
        return {
            "run": run,
            "tags": tags,
            "last_step": info.last_step,
            "last_wall_time": info.last_wall_time,
            # How many annotations the run has: a page asks GET /api/annotations only for runs that have some
            # (with 100 runs, 100 requests queued ahead of the series made the first chart wait).
            "annotations": info.annotations,
            **attachment,
        }
