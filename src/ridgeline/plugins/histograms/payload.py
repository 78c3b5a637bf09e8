"""The JSON shape of ``GET /api/histograms``: a sample of a tag's histograms, raw buckets or common bins."""

from __future__ import annotations

from typing import Any

import numpy as np

from ridgeline.analysis.histograms import finite_range, rebin, sample
from ridgeline.plugins.kit import ApiError
from ridgeline.services.histograms import decode
from ridgeline.store.logdir import Entry


def histograms_payload(
    found: list[Entry],
    *,
    max_steps: int | None = None,
    bins: int | None = None,
    step: int | None = None,
    range_min: float | None = None,
    range_max: float | None = None,
) -> dict[str, Any]:
    """``{"steps", "total_steps", "sampled", "histograms": [...]}`` (plus ``"range"``/``"bins"`` with ``bins``).

    ``steps`` lists every step of the tag (a step slider reaches them all); ``histograms`` holds the decoded
    sample: with ``bins``, each as ``{"step", "wall_time", "count", "total"}`` on ``bins`` equal bins spanning
    ``range`` (see :func:`bin_range`); without, as ``{"step", "wall_time", "buckets":
    [[left, right, count], ...]}``. A value that cannot be read is ``{"step", "wall_time", "error"}``.
    ``step`` answers that one step only (404 when the tag has none).
    """
    steps = [e.step for e in found]
    if step is not None:
        chosen = [e for e in found if e.step == step][-1:]
        if not chosen:
            raise ApiError(404, f"no histogram at step {step}")
    else:
        chosen = [found[i] for i in sample(len(found), max_steps).tolist()]
    decoded = [decode(e) for e in chosen]
    good = [d.histogram for d in decoded if d.histogram is not None]
    payload: dict[str, Any] = {
        "steps": steps,
        "total_steps": len(found),
        "sampled": len(chosen) < len(found) and step is None,
    }
    edges: np.ndarray | None = None
    if bins is not None:
        extent = bin_range(finite_range(good), range_min, range_max)
        if extent is not None:
            t = np.linspace(0.0, 1.0, bins + 1)
            edges = extent[0] * (1 - t) + extent[1] * t  # not low + (high - low) * t: that overflows near 1e308
        payload["bins"] = bins
        payload["range"] = None if edges is None else [float(edges[0]), float(edges[-1])]
    items: list[dict[str, Any]] = []
    for d in decoded:
        item: dict[str, Any] = {"step": d.step, "wall_time": d.wall_time}
        h = d.histogram
        if h is None:
            item["error"] = d.error
        elif bins is not None:
            item["count"] = rebin(h, edges) if edges is not None else np.zeros(bins)
            item["total"] = float(np.nansum(h.count))
        else:
            item["buckets"] = np.column_stack((h.lower, h.upper, h.count))
        items.append(item)
    payload["histograms"] = items
    return payload


def bin_range(
    extent: tuple[float, float] | None, range_min: float | None, range_max: float | None
) -> tuple[float, float] | None:
    """The bins' range: ``range_min``/``range_max`` where given, else the sample's ``extent`` (None when there is
    neither); given in the wrong order they are swapped, and an empty range becomes a bin of width 1 around it."""
    low = range_min if range_min is not None else (extent[0] if extent is not None else None)
    high = range_max if range_max is not None else (extent[1] if extent is not None else None)
    if low is None or high is None:
        return None
    low, high = min(low, high), max(low, high)
    if not high > low:  # every value equal, or a range of one value: a bin of width 1 centred on it
        low, high = low - 0.5, high + 0.5
    return low, high
