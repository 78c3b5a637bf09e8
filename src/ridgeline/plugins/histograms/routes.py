"""Thin routes of the histograms plugin: ``GET /api/histograms`` (see :mod:`.payload` for the shape)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from ridgeline.plugins.histograms.payload import histograms_payload
from ridgeline.plugins.kit import OrjsonResponse, logdir_of, missing_as_404
from ridgeline.services.histograms import entries

router = APIRouter()

MaxSteps = Annotated[
    int | None,
    Query(ge=1, description="decode at most this many steps, evenly spread (first and last always in)"),
]
Bins = Annotated[
    int | None,
    Query(ge=1, le=1000, description="put every histogram on this many equal bins over a common range"),
]


RANGE_MIN = "with bins: where the bins start (default: the sample's smallest value)"
RANGE_MAX = "with bins: where the bins end (default: the sample's largest value; swapped when below range_min)"


@router.get("/histograms")
def histograms(
    request: Request,
    run: str,
    tag: str,
    max_steps: MaxSteps = None,
    bins: Bins = None,
    step: Annotated[int | None, Query(description="only the histogram at this step")] = None,
    range_min: Annotated[float | None, Query(allow_inf_nan=False, description=RANGE_MIN)] = None,
    range_max: Annotated[float | None, Query(allow_inf_nan=False, description=RANGE_MAX)] = None,
) -> OrjsonResponse:
    """A tag's histograms over steps: ``{"steps", "total_steps", "sampled", "histograms"}``.

    ``steps`` is every step the tag has; ``histograms`` the ones decoded (all, a ``max_steps`` sample, or the one
    ``step``), each ``{"step", "wall_time", "buckets": [[left, right, count], ...]}``, or with ``bins``
    ``{"step", "wall_time", "count": [...], "total"}`` on ``bins`` equal bins over ``"range": [min, max]`` (the
    sample's extent, or ``range_min``..``range_max`` where given). A value that cannot be decoded is
    ``{"step", "wall_time", "error"}``.
    """
    logdir = logdir_of(request)
    with missing_as_404(f"no histograms {run!r} / {tag!r}"):
        found = entries(logdir, run, tag)
    return OrjsonResponse(
        {
            "run": run,
            "tag": tag,
            **histograms_payload(
                found, max_steps=max_steps, bins=bins, step=step, range_min=range_min, range_max=range_max
            ),
        }
    )
