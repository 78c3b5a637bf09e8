"""Thin routes for a curve's phases and forecast: ``GET /api/phases`` and ``GET /api/forecast``. The analysis is
:mod:`ridgeline.analysis.phases` and :mod:`ridgeline.analysis.forecast`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ridgeline.analysis.forecast import ForecastError, forecast
from ridgeline.analysis.phases import progress_of, segment
from ridgeline.plugins.kit import ApiError, OrjsonResponse, logdir_of, missing_as_404
from ridgeline.services.recent import RecentAnswers

router = APIRouter()
CACHE_ENTRIES = 512

# Answers by (route, run, tag, points, last step, last value, until): a page polling every few seconds asks again
# for series that did not change; a new point changes the key.
_answers: RecentAnswers[tuple[object, ...], dict[str, Any]] = RecentAnswers(CACHE_ENTRIES)
_remembered = _answers.get


def _key(route: str, run: str, tag: str, step: Any, value: Any, until: int | None = None) -> tuple[object, ...]:
    last = (int(step[-1]), float(value[-1])) if len(step) else (None, None)
    return (route, run, tag, len(step), *last, until)


Until = Annotated[int | None, Query(description="the last planned step (default: 20% of the steps after the last)")]


@router.get("/phases")
def phases(request: Request, run: str, tag: str) -> OrjsonResponse:
    """``{"segments": [{"phase": "warmup"|"descent"|"convergence", "start_step", "end_step"}]}`` of a scalar
    series, in step order; adjoining segments share their boundary step. No segments for fewer than 8 points.
    The direction of progress comes from the tag's name (a loss falls, an accuracy rises; other names: from the
    curve); a curve that worsens after its best point has no segment after it."""
    logdir = logdir_of(request)
    with missing_as_404(f"no scalars {run!r} / {tag!r}"):
        series = logdir.scalars(run, tag)
    key = _key("phases", run, tag, series.step, series.value)
    progress = progress_of(tag)
    return OrjsonResponse(
        _remembered(key, lambda: {"segments": [s.as_dict() for s in segment(series.step, series.value, progress)]})
    )


@router.get("/forecast")
def forecast_route(request: Request, run: str, tag: str, until: Until = None) -> OrjsonResponse:
    """The series' expected values over the next 20% of its steps (or up to ``until``) with a 90% band:
    ``{"model", "step", "value", "low", "high", "final": {"step", "value", "low", "high"}}``. 400 when the series
    has too few finite points (10) or ``until`` is not after its last step."""
    logdir = logdir_of(request)
    with missing_as_404(f"no scalars {run!r} / {tag!r}"):
        series = logdir.scalars(run, tag)
    try:
        key = _key("forecast", run, tag, series.step, series.value, until)
        answer = _remembered(key, lambda: forecast(series.step, series.value, until=until).as_dict())
    except ForecastError as error:
        raise ApiError(400, f"cannot forecast {run!r} / {tag!r}: {error}") from None
    return OrjsonResponse(answer)
