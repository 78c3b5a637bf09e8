"""Thin route for the training diagnosis: ``GET /api/diagnosis[?run=R]``. The analysis is
:mod:`ridgeline.analysis.diagnosis`; reading and caching per ingest generation is
:mod:`ridgeline.services.diagnosis`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from ridgeline.plugins.kit import ApiError, OrjsonResponse, app_service, logdir_of, setting
from ridgeline.services.diagnosis import DiagnosisCache

router = APIRouter()


def cache_for(request: Request) -> DiagnosisCache:
    """The app's diagnosis cache (one per served log directory), made on first use with the
    ``diagnosis_config`` setting (``ridgeline serve --diagnosis-config``; None: the defaults)."""
    config = setting(request, "diagnosis_config")
    return app_service(request, "diagnosis_cache", lambda: DiagnosisCache(logdir_of(request), config))


_EXAMPLE = {
    "findings": [
        {
            "run": "resnet/overfit",
            "kind": "overfitting",
            "confidence": 1.0,
            "step": 850,
            "tags": ["train/loss", "val/loss"],
            "evidence": {"val_best": 0.300176, "val_end": 0.737439, "val_rise": 1.4567, "train_drop_after": 0.931},
            "message": "Overfitting from step 850: the validation loss (val/loss) rose 146% above its best (0.3 -> "
            "0.737) while the training loss (train/loss) kept falling 93%. Stop earlier (keep the checkpoint from "
            "step 850), add regularisation or more data.",
            "spots": [
                {
                    "run": "resnet/overfit",
                    "tag": "val/loss",
                    "step": 850,
                    "what": "validation at its best (0.3)",
                    "chart": "scalars",
                }
            ],
        }
    ],
    "checked": [
        {
            "run": "resnet/overfit",
            "runs": ["resnet/overfit"],
            "checked": ["Training loss train/loss: 2000 points, 2.3 -> 0.00935 (100% better), noise 2% of its level."],
        }
    ],
}


@router.get(
    "/diagnosis",
    responses={
        200: {"description": "the findings", "content": {"application/json": {"example": _EXAMPLE}}},
        404: {"description": "unknown run"},
    },
)
def diagnosis(
    request: Request,
    run: Annotated[str | None, Query(description="only this run's findings (404 when there is no such run)")] = None,
) -> OrjsonResponse:
    """``{"findings": [{"run", "kind", "confidence", "step", "tags", "evidence", "message", "spots"}],
    "checked": [{"run", "runs", "checked"}]}``: what looks wrong with each run's training (overfitting,
    underfitting, plateau, lr_too_high, lr_too_low, vanishing_gradients, exploding_gradients, dead_units), most
    confident first within a run, each with the chart spots (run, tag, step) its evidence comes from; and, per
    group of runs, what was checked, in plain words. A run paired with its training or validation sibling
    (``exp/train`` + ``exp/val``) shares the pair's findings, reported under one of them. Computed on first
    request and kept until the run gets new data."""
    cache = cache_for(request)
    try:
        found = cache.groups(run or None)
    except KeyError:
        raise ApiError(404, f"no run {run!r}") from None
    return OrjsonResponse(
        {
            "findings": [f.to_dict() for group in found for f in group.findings],
            "checked": [group.checked_dict() for group in found],
        }
    )
