"""Thin routes of the scalars plugin: parse the request, read the LogDir, reduce, serialise.

Series are answered as ``{"step": [...], "wall_time": [...], "value": [...]}`` (steps as integers). JSON has no
NaN or ±Inf: orjson writes them as ``null``, so a ``null`` value is a non-finite value that was logged (the
CSV download keeps ``nan``, ``inf`` and ``-inf``).
"""

from __future__ import annotations

import csv
import io
from typing import Annotated, Any
from urllib.parse import quote

import numpy as np
from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from ridgeline.analysis.downsample import minmax_indices
from ridgeline.api import LogDir, Scalars
from ridgeline.server.responses import ApiError, OrjsonResponse

router = APIRouter()

MaxPoints = Annotated[
    int | None, Query(ge=2, description="reduce to at most this many points, keeping every bucket's min and max")
]
SinceStep = Annotated[int | None, Query(description="only the points with a step greater than this")]


class SeriesKey(BaseModel):
    run: str
    tag: str


class BatchRequest(BaseModel):
    series: list[SeriesKey] = Field(max_length=100_000)
    max_points: int | None = Field(default=None, ge=2)
    since_step: int | None = None


def _logdir(request: Request) -> LogDir:
    logdir: LogDir = request.app.state.logdir
    return logdir


def _read(logdir: LogDir, run: str, tag: str) -> Scalars:
    try:
        return logdir.scalars(run, tag)
    except KeyError as missing:
        raise ApiError(404, str(missing.args[0]) if missing.args else f"no series {run!r} / {tag!r}") from None


def series_payload(data: Scalars, max_points: int | None, since_step: int | None) -> dict[str, Any]:
    """The series (after ``since_step``, then reduced to ``max_points``) as contiguous numpy arrays."""
    step, wall_time, value = data.step, data.wall_time, data.value
    if since_step is not None:
        start = int(np.searchsorted(step, since_step, side="right"))  # steps ascend in the visible series
        step, wall_time, value = step[start:], wall_time[start:], value[start:]
    if max_points is not None and len(step) > max_points:
        keep = minmax_indices(step, value, max_points)
        step, wall_time, value = step[keep], wall_time[keep], value[keep]
    return {
        "step": np.ascontiguousarray(step, dtype=np.int64),
        "wall_time": np.ascontiguousarray(wall_time, dtype=np.float64),
        "value": np.ascontiguousarray(value, dtype=np.float64),
    }


@router.get("/scalars")
def scalars(
    request: Request, run: str, tag: str, max_points: MaxPoints = None, since_step: SinceStep = None
) -> OrjsonResponse:
    """One series: ``{"step": [...], "wall_time": [...], "value": [...]}``.

    NaN and ±Inf values are written as JSON ``null`` (orjson's behaviour, kept on purpose: the point exists,
    its value is not a finite number). ``max_points`` (at least 2) reduces the series with
    ``analysis.downsample.minmax_indices`` (first, last and each bucket's min and max survive); ``since_step``
    returns only the points with a step greater than it (applied before the reduction).
    """
    data = _read(_logdir(request), run, tag)
    return OrjsonResponse(series_payload(data, max_points, since_step))


@router.post("/batch")
def batch(request: Request, body: Annotated[BatchRequest, Body()]) -> OrjsonResponse:
    """Many series in one request: a list of ``{"run", "tag", "step", "wall_time", "value"}`` in request order.

    Any unknown (run, tag) pair fails the whole request with 404. Values as in ``GET scalars``.
    """
    logdir = _logdir(request)
    found = [(key, _read(logdir, key.run, key.tag)) for key in body.series]
    return OrjsonResponse(
        [
            {"run": key.run, "tag": key.tag, **series_payload(data, body.max_points, body.since_step)}
            for key, data in found
        ]
    )


@router.get("/scalars.csv")
def scalars_csv(request: Request, run: str, tag: str) -> Response:
    """The full series as CSV with the header ``step,wall_time,value`` (floats round-trip; ``nan``/``inf``)."""
    data = _read(_logdir(request), run, tag)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("step", "wall_time", "value"))
    writer.writerows(
        (step, repr(wall), repr(value))
        for step, wall, value in zip(data.step.tolist(), data.wall_time.tolist(), data.value.tolist(), strict=True)
    )
    filename = f"{run}_{tag}".replace("/", "_").replace('"', "_") + ".csv"
    return Response(
        buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quote(filename, safe='')}"},
    )
