"""The routes that are not a dashboard's: the run listing, annotations, hyperparameters, the plugin list.

``/api/runs`` is what a page polls at every reload interval, so its listing is rebuilt only when the store's
``generation`` moved (ingest added points, or a run appeared or vanished); the regex filters apply on top.
"""

from __future__ import annotations

import re
import threading
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ridgeline.server.responses import ApiError, OrjsonResponse
from ridgeline.store.logdir import LogDir, user_tags

router = APIRouter()

# A run with a session start is a trial of the hparams dashboard: /api/runs lists it under the kind "hparams".
HPARAMS_START_TAG = "_hparams_/session_start_info"

RunRegex = Annotated[str | None, Query(description="only runs whose name matches this regular expression (search)")]
TagRegex = Annotated[str | None, Query(description="only tags that match this regular expression (search)")]


class RunIndex:
    """Every run with its tags per kind and its last step and wall time, rebuilt when the store changed."""

    def __init__(self, logdir: LogDir) -> None:
        self._logdir = logdir
        self._lock = threading.Lock()
        self._generation = -1
        self._runs: list[dict[str, Any]] = []

    def current(self) -> tuple[int, list[dict[str, Any]]]:
        with self._lock:
            generation = self._logdir.generation  # read before building: a pass that ends meanwhile forces a rebuild
            if generation != self._generation:
                self._runs = [self._describe(run) for run in self._logdir.runs()]
                self._generation = generation
            return generation, self._runs

    def _describe(self, run: str) -> dict[str, Any]:
        try:
            info = self._logdir.run_info(run)
        except KeyError:  # vanished between listing and reading
            return {"run": run, "tags": {}, "last_step": None, "last_wall_time": None, "annotations": 0}
        tags = user_tags(info)
        if HPARAMS_START_TAG in info.tags.get("hparams", ()):  # hidden from tags() as bookkeeping; the tab needs it
            tags = {**tags, "hparams": [HPARAMS_START_TAG]}
        graph_tags = list(info.tags.get("graphs", ()))  # __graph__ is hidden from tags(); the graphs tab needs it
        if graph_tags:
            tags = {**tags, "graphs": graph_tags}
        return {
            "run": run,
            "tags": tags,
            "last_step": info.last_step,
            "last_wall_time": info.last_wall_time,
            # How many annotations the run has: a page asks GET /api/annotations only for runs that have some
            # (with 100 runs, 100 requests queued ahead of the series made the first chart wait).
            "annotations": info.annotations,
        }


def compile_regex(pattern: str | None, parameter: str) -> re.Pattern[str] | None:
    """The compiled pattern (None when absent or empty); an invalid one is a 400 naming the parameter."""
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as error:
        message = f"query parameter {parameter!r}: {pattern!r} is not a valid regular expression: {error}"
        raise ApiError(400, message) from None


@router.get("/runs")
async def runs(request: Request, run_regex: RunRegex = None, tag_regex: TagRegex = None) -> OrjsonResponse:
    """``{"runs": [{"run", "tags": {kind: [tag]}, "last_step", "last_wall_time", "annotations"}], "generation",
    "reload_interval", "logdir"}`` (``annotations``: how many the run has). ``generation`` increases whenever
    ingest added data: a client compares it to skip refetching. With ``tag_regex``, each run lists only the
    matching tags (runs stay listed, possibly with no tags)."""
    run_pattern = compile_regex(run_regex, "run_regex")
    tag_pattern = compile_regex(tag_regex, "tag_regex")
    index: RunIndex = request.app.state.run_index
    generation, listing = index.current()
    if run_pattern is not None:
        listing = [item for item in listing if run_pattern.search(item["run"])]
    if tag_pattern is not None:
        listing = [{**item, "tags": _filter_tags(item["tags"], tag_pattern)} for item in listing]
    return OrjsonResponse(
        {
            "runs": listing,
            "generation": generation,
            "reload_interval": request.app.state.reload_interval,
            "logdir": request.app.state.logdir_label,
        }
    )


def _filter_tags(tags: dict[str, list[str]], pattern: re.Pattern[str]) -> dict[str, list[str]]:
    kept = {kind: [tag for tag in names if pattern.search(tag)] for kind, names in tags.items()}
    return {kind: names for kind, names in kept.items() if names}


@router.get("/annotations")
def run_annotations(request: Request, run: str) -> OrjsonResponse:
    """``{"annotations": [{"step", "wall_time", "text"}]}``: what ``SummaryWriter.add_annotation`` recorded."""
    logdir: LogDir = request.app.state.logdir
    try:
        found = logdir.annotations_with_time(run)
    except KeyError as missing:
        raise ApiError(404, str(missing.args[0])) from None
    return OrjsonResponse(
        {"annotations": [{"step": step, "wall_time": wall, "text": text} for step, wall, text in found]}
    )


@router.get("/hparams")
def hparams(request: Request) -> OrjsonResponse:
    """``{"runs": {run: {name: value}}}``: each run's hyperparameters as written (number, string or bool); runs
    without any are left out."""
    logdir: LogDir = request.app.state.logdir
    found: dict[str, Any] = {}
    for run in logdir.runs():
        try:
            recorded = logdir.hparams(run)
        except KeyError:  # the run vanished meanwhile
            continue
        if recorded is not None:
            found[run] = recorded.hparams
    return OrjsonResponse({"runs": found})


@router.get("/plugins")
async def plugins(request: Request) -> OrjsonResponse:
    """The names of the registered plugins, in registration order."""
    return OrjsonResponse({"plugins": request.app.state.plugins.names()})
