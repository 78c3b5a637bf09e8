"""Thin routes of the PR curves plugin: ``GET /api/pr_curves`` (every step of one run's tag); shaping lives in
:mod:`ridgeline.plugins.pr_curves.values`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from ridgeline.plugins.kit import OrjsonResponse, logdir_of, missing_as_404
from ridgeline.plugins.pr_curves.values import pr_entries

router = APIRouter()

SinceStep = Annotated[int | None, Query(description="only the steps greater than this (live polling)")]


@router.get("/pr_curves")
def pr_curves(request: Request, run: str, tag: str, since_step: SinceStep = None) -> OrjsonResponse:
    """Every step of a PR-curve tag: ``{"run", "tag", "steps": [...]}``, each step
    ``{"step", "wall_time", "thresholds", "tp", "fp", "tn", "fn", "precision", "recall"}`` (arrays of equal
    length, thresholds evenly spaced in [0, 1]; NaN as null), or ``{"step", "wall_time", "error"}`` when that
    step's tensor cannot be read (e.g. not of shape [6, n])."""
    logdir = logdir_of(request)
    with missing_as_404(f"no PR curve {run!r} / {tag!r}"):
        entries = logdir.pr_curves(run, tag)
    return OrjsonResponse({"run": run, "tag": tag, "steps": pr_entries(entries, since_step)})
