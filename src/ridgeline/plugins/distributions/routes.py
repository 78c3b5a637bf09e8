"""Thin routes of the distributions plugin: ``GET /api/distributions``, percentile bands over steps computed
from the histograms (:mod:`ridgeline.analysis.percentiles`, TensorBoard's arithmetic)."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Query, Request

from ridgeline.analysis.histograms import sample
from ridgeline.analysis.percentiles import BASIS_POINTS, compress_histograms, pad_buckets
from ridgeline.plugins.kit import OrjsonResponse, logdir_of, missing_as_404
from ridgeline.services.histograms import decode, entries

router = APIRouter()

MaxSteps = Annotated[
    int | None,
    Query(ge=2, description="use at most this many steps, evenly spread (first and last always in)"),
]


@router.get("/distributions")
def distributions(request: Request, run: str, tag: str, max_steps: MaxSteps = None) -> OrjsonResponse:
    """A tag's percentile bands: ``{"basis_points", "step", "wall_time", "values", "empty_steps", "errors",
    "total_steps", "sampled"}``.

    ``values`` holds one column per basis point (TensorBoard's: 0 = min, 668, 1587, 3085, 5000 = median, 6915,
    8413, 9332, 10000 = max), each with one value per step of ``step``; a step whose histogram is empty (no
    count) is ``null`` there and listed in ``empty_steps``. Steps whose value cannot be decoded are left out
    and listed in ``errors`` as ``{"step", "error"}``.
    """
    logdir = logdir_of(request)
    with missing_as_404(f"no histograms {run!r} / {tag!r}"):
        found = entries(logdir, run, tag)
    chosen = [found[i] for i in sample(len(found), max_steps).tolist()]
    decoded = [decode(e) for e in chosen]
    good = [d for d in decoded if d.histogram is not None]
    buckets = [(h.lower, h.upper, h.count) for h in (d.histogram for d in good) if h is not None]
    lower, upper, count, sizes = pad_buckets(buckets)
    # Non-finite counts or edges (bad input) would poison a whole row: such a step counts as empty.
    totals = count.sum(axis=1) if count.size else np.zeros(len(good))
    empty = ~(totals > 0) | ~np.isfinite(totals) | ~np.isfinite(lower).all(axis=1) | ~np.isfinite(upper).all(axis=1)
    values = compress_histograms(np.nan_to_num(lower), np.nan_to_num(upper), np.nan_to_num(count), sizes)
    values[empty] = np.nan  # orjson writes NaN as null
    payload: dict[str, Any] = {
        "run": run,
        "tag": tag,
        "basis_points": list(BASIS_POINTS),
        "step": [d.step for d in good],
        "wall_time": [d.wall_time for d in good],
        "values": np.ascontiguousarray(values.T),
        "empty_steps": [d.step for d, e in zip(good, empty.tolist(), strict=True) if e],
        "errors": [{"step": d.step, "error": d.error} for d in decoded if d.histogram is None],
        "total_steps": len(found),
        "sampled": len(chosen) < len(found),
    }
    return OrjsonResponse(payload)
