"""Thin routes for a curve's phases and forecast: ``GET /api/phases`` and ``GET /api/forecast``. The analysis is
:mod:`ridgeline.analysis.phases` and :mod:`ridgeline.analysis.forecast`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from ridgeline.analysis.forecast import ForecastError, forecast
from ridgeline.analysis.phases import segment
from ridgeline.api import LogDir
from ridgeline.server.responses import ApiError, OrjsonResponse, missing_as_404

router = APIRouter()

Until = Annotated[int | None, Query(description="the last planned step (default: 20% of the steps after the last)")]


@router.get("/phases")
def phases(request: Request, run: str, tag: str) -> OrjsonResponse:
    """``{"segments": [{"phase": "warmup"|"descent"|"convergence", "start_step", "end_step"}]}`` of a scalar
    series, in step order; adjoining segments share their boundary step. No segments for fewer than 8 points."""
    logdir: LogDir = request.app.state.logdir
    with missing_as_404(f"no scalars {run!r} / {tag!r}"):
        series = logdir.scalars(run, tag)
    return OrjsonResponse({"segments": [s.as_dict() for s in segment(series.step, series.value)]})


@router.get("/forecast")
def forecast_route(request: Request, run: str, tag: str, until: Until = None) -> OrjsonResponse:
    """The series' expected values over the next 20% of its steps (or up to ``until``) with a 90% band:
    ``{"model", "step", "value", "low", "high", "final": {"step", "value", "low", "high"}}``. 400 when the series
    has too few finite points (10) or ``until`` is not after its last step."""
    logdir: LogDir = request.app.state.logdir
    with missing_as_404(f"no scalars {run!r} / {tag!r}"):
        series = logdir.scalars(run, tag)
    try:
        result = forecast(series.step, series.value, until=until)
    except ForecastError as error:
        raise ApiError(400, f"cannot forecast {run!r} / {tag!r}: {error}") from None
    return OrjsonResponse(result.as_dict())
