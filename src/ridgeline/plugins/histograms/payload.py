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
    value_range: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """``{"steps", "total_steps", "sampled", "histograms": [...]}`` (plus ``"range"``/``"bins"`` with ``bins``).

    ``steps`` lists every step of the tag (a step slider reaches them all); ``histograms`` holds the decoded
    sample: with ``bins``, each as ``{"step", "wall_time", "count", "total"}`` on ``bins`` equal bins spanning
    ``range`` (the sample's extent, or ``value_range``); without, as ``{"step", "wall_time", "buckets":
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
        extent = value_range or finite_range(good)
        if extent is not None:
            low, high = extent
            if not high > low:  # every value equal: a bin of width 1 centred on it
                low, high = low - 0.5, high + 0.5
            edges = np.linspace(low, high, bins + 1)
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
