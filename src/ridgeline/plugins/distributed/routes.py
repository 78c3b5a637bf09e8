"""``GET /api/distributed/runs`` and ``GET /api/distributed/series``: thin routes over
:class:`ridgeline.services.distributed.DistributedCache`, one per app, rebuilt when the log directory changed."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Query, Request

from ridgeline.plugins.kit import ApiError, OrjsonResponse, app_service, logdir_of
from ridgeline.services.distributed import DistributedCache, common_tags, tag_across_ranks

router = APIRouter()

MAX_LINE_POINTS = 4000  # per rank line: the aggregate keeps every step, each rank's own line is thinned for drawing


def _cache(request: Request) -> DistributedCache:
    logdir = logdir_of(request)
    cache: DistributedCache = app_service(request, "distributed_cache", lambda: DistributedCache(logdir))
    return cache


@router.get("/distributed/runs")
def distributed_runs(request: Request) -> OrjsonResponse:
    """``{"runs": [{"run", "world_size", "clock_source", "ranks": [{"rank", "run", "host", "offset_ms",
    "offset_uncertainty_ms", "score", "flagged", "straggler", ...}], "sync_delay_ms": {"median", "p95"} | null,
    "straggler": {"rank", "cost_s"} | null, "restarts", "load_balance", "tags"}]}``: every distributed run (runs
    named ``.../rank{N}``), as ``ridgeline ranks --json`` prints them, with the scalar tags all its ranks log."""
    logdir = logdir_of(request)
    runs = []
    for report in _cache(request).reports():
        runs.append({**report.to_json(), "tags": common_tags(logdir, report.group, system=True)})
    return OrjsonResponse({"runs": runs})


Run = Annotated[str, Query(description="a distributed run's name, as /api/distributed/runs lists it")]
Tag = Annotated[str, Query(description="a scalar tag its ranks log")]


def _thinned(step: np.ndarray, *columns: np.ndarray) -> list[Any]:
    if len(step) <= MAX_LINE_POINTS:
        return [step, *columns]
    keep = np.unique(np.linspace(0, len(step) - 1, MAX_LINE_POINTS).round().astype(np.int64))
    return [step[keep], *(column[keep] for column in columns)]


@router.get("/distributed/series")
def distributed_series(request: Request, run: Run, tag: Tag) -> OrjsonResponse:
    """One tag across the ranks of ``run``: per step (every step any rank logged) ``mean``, ``median``, ``min``,
    ``max``, ``std``, ``count`` and the ranks of the min and max (``min_rank``, ``max_rank``); and ``ranks``, each
    rank's own line ``{"rank", "step", "time", "value"}`` with ``time`` in seconds since the first point on aligned
    clocks (each rank's offset subtracted). 404 for an unknown run or a tag no rank logs."""
    cache = _cache(request)
    try:
        report = cache.report(run)
        across = tag_across_ranks(logdir_of(request), report, tag)
    except KeyError as error:
        raise ApiError(404, str(error.args[0]) if error.args else "not found") from None
    a = across.aggregate
    lines = []
    for rank, (step, time, value) in across.lines.items():
        s, t, v = _thinned(step, time, value)
        lines.append({"rank": rank, "step": s, "time": t, "value": v})
    return OrjsonResponse(
        {
            "run": run,
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
            "ranks": lines,
        }
    )
