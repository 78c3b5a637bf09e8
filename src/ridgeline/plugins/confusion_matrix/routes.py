"""Thin routes of the confusion matrix plugin: ``GET /api/confusion_matrix`` (every step of one run's tag); shaping
lives in :mod:`ridgeline.plugins.confusion_matrix.values`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from ridgeline.plugins.confusion_matrix.values import matrix_entries
from ridgeline.plugins.kit import OrjsonResponse, logdir_of, missing_as_404

router = APIRouter()

SinceStep = Annotated[int | None, Query(description="only the steps greater than this (live polling)")]


@router.get("/confusion_matrix")
def confusion_matrix(request: Request, run: str, tag: str, since_step: SinceStep = None) -> OrjsonResponse:
    """Every step of a confusion matrix tag: ``{"run", "tag", "steps": [...]}``, each step
    ``{"step", "wall_time", "class_names", "counts"}`` (``counts[i][j]``: samples of true class i predicted as
    class j), or ``{"step", "wall_time", "error"}`` when that step's tensor cannot be read (e.g. not of shape
    [n, n])."""
    logdir = logdir_of(request)
    with missing_as_404(f"no confusion matrix {run!r} / {tag!r}"):
        entries = logdir.confusion_matrices(run, tag)
    return OrjsonResponse({"run": run, "tag": tag, "steps": matrix_entries(entries, since_step)})
