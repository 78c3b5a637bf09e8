"""``GET /api/distributed/runs`` and ``GET /api/distributed/series``: thin routes over
:class:`ridgeline.services.distributed.DistributedCache`, one per app, rebuilt when the log directory changed."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, FastAPI, Query, Request
from starlette.requests import HTTPConnection

from ridgeline.analysis.distributed import Aggregate, reduce_aggregate
from ridgeline.plugins.kit import ApiError, OrjsonResponse, app_service, logdir_of
from ridgeline.services.distributed import (
    SYSTEM_PREFIX,
    DistributedCache,
    DistributedReport,
    TagAcrossRanks,
    common_tags,
    tag_across_ranks,
)
from ridgeline.services.recent import RecentAnswers
from ridgeline.store.logdir import LogDir

router = APIRouter()

MAX_LINE_POINTS = 4000  # per rank line: the aggregate keeps every step, each rank's own line is thinned for drawing
KEPT_AGGREGATES = 32  # aggregates kept, whole or reduced (64 ranks x 10,000 steps: 0.7 MB, ~35 ms to compute again)
MIN_POINTS, MAX_POINTS = 64, 20_000


def _cache(request: HTTPConnection) -> DistributedCache:
    logdir = logdir_of(request)
    cache: DistributedCache = app_service(request, "distributed_cache", lambda: DistributedCache(logdir))
    return cache


class Aggregates:
    """The aggregates of the tags last asked for, whole and reduced to a chart's width, by log directory
    generation, run, tag and point budget: the page asks for the same ones on every load and shell tick, and
    while the log directory has not changed they are the same."""

    def __init__(self, logdir: LogDir) -> None:
        self._logdir = logdir
        self._kept: RecentAnswers[tuple[int, str, str, int | None], tuple[Aggregate, int]] = RecentAnswers(
            KEPT_AGGREGATES
        )

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, report: DistributedReport, tag: str, points: int | None = None) -> dict[str, Any]:
        """The series answer without rank lines; with ``points``, at most that many rows
        (:func:`ridgeline.analysis.distributed.reduce_aggregate`), ``reduced`` saying whether rows were left out."""
        key = (self._logdir.generation, report.group.name, tag)

        def whole() -> tuple[Aggregate, int]:
            found = _across(self._logdir, report, tag).aggregate
            return found, len(found.step)

        full, total = self._kept.get((*key, None), whole)
        if points is None or total <= points:
            return _answer(report, tag, full, total, [])

        def reduced() -> tuple[Aggregate, int]:
            return reduce_aggregate(full, points) or full, total

        return _answer(report, tag, self._kept.get((*key, points), reduced)[0], total, [])


def _aggregates(request: HTTPConnection) -> Aggregates:
    logdir = logdir_of(request)
    kept: Aggregates = app_service(request, "distributed_aggregates", lambda: Aggregates(logdir))
    return kept


def warm(app: FastAPI) -> None:
    """What the page's first load asks for, computed ahead (the plugin's warm-up): every distributed run's report
    and the aggregate of the first run's first tag, whole (its reductions are cheap)."""
    connection = HTTPConnection({"type": "http", "app": app})  # what the kit's per-app helpers read
    reports = _cache(connection).reports()
    if not reports:
        return
    tags = common_tags(logdir_of(connection), reports[0].group, system=True)
    tag = next((t for t in tags if not t.startswith(SYSTEM_PREFIX)), None)
    if tag is not None:
        _aggregates(connection).get(reports[0], tag)


Run = Annotated[str, Query(description="a distributed run's name, as /api/distributed/runs lists it")]
Tag = Annotated[str, Query(description="a scalar tag its ranks log")]
Lines = Annotated[bool, Query(description="false: no rank's own line (``ranks`` is empty), the aggregate only")]
Points = Annotated[
    int | None,
    Query(
        ge=MIN_POINTS,
        le=MAX_POINTS,
        description="with ``lines=false``: at most this many steps, for a chart about half as many pixels wide "
        "(per bucket of steps, the rows of the mean's lowest and highest value; ``min`` and ``max`` then the "
        "bucket's lowest min and highest max); ``reduced`` says whether steps were left out",
    ),
]
FirstChart = Annotated[
    str | None,
    Query(
        description="also answer, as ``first_chart``, the series (``lines=false``) of the first tag (not sys/) of "
        "this distributed run, or of the first run when it names none listed: the page's first chart"
    ),
]
FirstChartPoints = Annotated[
    int | None,
    Query(
        ge=MIN_POINTS,
        le=MAX_POINTS,
        description="``first_chart`` reduced to this many steps, as ``/api/distributed/series?points=`` reduces",
    ),
]


@router.get("/distributed/runs")
def distributed_runs(
    request: Request, first_chart: FirstChart = None, first_chart_points: FirstChartPoints = None
) -> OrjsonResponse:
    """``{"runs": [{"run", "world_size", "clock_source", "ranks": [{"rank", "run", "host", "offset_ms",
    "offset_uncertainty_ms", "score", "flagged", "straggler", ...}], "sync_delay_ms": {"median", "p95"} | null,
    "straggler": {"rank", "cost_s"} | null, "restarts", "load_balance", "tags"}]}``: every distributed run (runs
    named ``.../rank{N}``), as ``ridgeline ranks --json`` prints them, with the scalar tags all its ranks log.

    With ``first_chart``, also ``"first_chart"``: what ``/api/distributed/series?lines=false`` answers for that
    run's first tag, or null when it has none (the page then asks for nothing more before drawing), reduced to
    ``first_chart_points`` steps when that is given."""
    logdir = logdir_of(request)
    reports = _cache(request).reports()
    runs = [{**report.to_json(), "tags": common_tags(logdir, report.group, system=True)} for report in reports]
    if first_chart is None:
        return OrjsonResponse({"runs": runs})
    chosen = next((i for i, report in enumerate(reports) if report.group.name == first_chart), 0)
    tag = next((t for t in runs[chosen]["tags"] if not t.startswith(SYSTEM_PREFIX)), None) if runs else None
    series = None if tag is None else _aggregates(request).get(reports[chosen], tag, first_chart_points)
    return OrjsonResponse({"runs": runs, "first_chart": series})


def _thinned(step: np.ndarray, *columns: np.ndarray) -> list[Any]:
    if len(step) <= MAX_LINE_POINTS:
        return [step, *columns]
    keep = np.unique(np.linspace(0, len(step) - 1, MAX_LINE_POINTS).round().astype(np.int64))
    return [step[keep], *(column[keep] for column in columns)]


@router.get("/distributed/series")
def distributed_series(
    request: Request, run: Run, tag: Tag, lines: Lines = True, points: Points = None
) -> OrjsonResponse:
    """One tag across the ranks of ``run``: per step (every step any rank logged) ``mean``, ``median``, ``min``,
    ``max``, ``std``, ``count`` and the ranks of the min and max (``min_rank``, ``max_rank``); and ``ranks``, each
    rank's own line ``{"rank", "step", "time", "value"}`` with ``time`` in seconds since the first point on aligned
    clocks (each rank's offset subtracted), empty with ``lines=false``; ``total_points``, the steps of the whole
    aggregate, and ``reduced``, whether ``points`` left some out. 404 for an unknown run or a tag no rank logs."""
    try:
        report = _cache(request).report(run)
    except KeyError as error:
        raise ApiError(404, str(error.args[0]) if error.args else "not found") from None
    if not lines:
        return OrjsonResponse(_aggregates(request).get(report, tag, points))
    return OrjsonResponse(_series(logdir_of(request), report, tag))


def _across(logdir: LogDir, report: DistributedReport, tag: str) -> TagAcrossRanks:
    try:
        return tag_across_ranks(logdir, report, tag)
    except KeyError as error:
        raise ApiError(404, str(error.args[0]) if error.args else "not found") from None


def _series(logdir: LogDir, report: DistributedReport, tag: str) -> dict[str, Any]:
    """The answer with every rank's own line (thinned for drawing)."""
    across = _across(logdir, report, tag)
    own = []
    for rank, (step, time, value) in across.lines.items():
        s, t, v = _thinned(step, time, value)
        own.append({"rank": rank, "step": s, "time": t, "value": v})
    return _answer(report, tag, across.aggregate, len(across.aggregate.step), own)


def _answer(report: DistributedReport, tag: str, a: Aggregate, total: int, own: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "run": report.group.name,
        "tag": tag,
        "step": a.step,
        "mean": a.mean,
        "median": a.median,
        "min": a.min,
        "max": a.max,
        "std": a.std,
        "count": a.count,
        "min_rank": a.min_rank,
        "max_rank": a.max_rank,
        "total_points": total,
        "reduced": len(a.step) < total,
        "ranks": own,
    }
