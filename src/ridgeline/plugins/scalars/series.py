"""One scalar series as the API answers it: a step range, reduced for display, non-finite points listed.

Pure numpy on the LogDir's arrays (no Python loop over points), so one 10k-point series costs well under a
millisecond; orjson then serialises the arrays directly (``OPT_SERIALIZE_NUMPY``).

JSON has no NaN or ±Inf: orjson writes them as ``null``. So that a ``null`` is never ambiguous, ``nonfinite``
lists every non-finite point in the requested range, computed before any reduction (a reduction keeps them too,
but the list is complete even when a bucket held several).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ridgeline.analysis.downsample import nonfinite_indices, reduce_indexed, reduce_series
from ridgeline.store.lod import IndexedScalars
from ridgeline.store.provider import Scalars

_INT64 = (-(2**63), 2**63 - 1)


@dataclass(frozen=True, slots=True)
class Window:
    """Which points of a series a request wants, and how many it can draw."""

    max_points: int | None = None
    since_step: int | None = None
    min_step: int | None = None
    max_step: int | None = None


def in_window(data: Scalars, window: Window) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points with ``since_step < step`` and ``min_step <= step <= max_step`` (each bound optional).

    The visible series' steps strictly increase (see ``ridgeline.store.restarts``), so this is two binary searches
    and three views: no copy.
    """
    step = data.step
    start, end = 0, len(step)
    if window.since_step is not None:
        start = max(start, int(np.searchsorted(step, window.since_step, side="right")))
    if window.min_step is not None:
        start = max(start, int(np.searchsorted(step, window.min_step, side="left")))
    if window.max_step is not None:
        end = min(end, int(np.searchsorted(step, window.max_step, side="right")))
    end = max(start, end)
    return step[start:end], data.wall_time[start:end], data.value[start:end]


def nonfinite_points(step: np.ndarray, value: np.ndarray) -> list[dict[str, Any]]:
    """``[{"step": s, "value": "nan" | "inf" | "-inf"}]`` for every non-finite value, in step order."""
    positions = np.flatnonzero(~np.isfinite(value))
    if not len(positions):
        return []
    odd = value[positions]
    labels = np.where(np.isnan(odd), "nan", np.where(odd > 0, "inf", "-inf")).tolist()
    return [{"step": s, "value": label} for s, label in zip(step[positions].tolist(), labels, strict=True)]


def series_payload(data: Scalars, window: Window) -> dict[str, Any]:
    """The API's answer for one series: ``step``, ``wall_time``, ``value`` (numpy arrays), ``reduced``,
    ``total_points``, ``nonfinite``, and ``band_low``/``band_high`` when reduced."""
    step, wall_time, value = in_window(data, window)
    payload: dict[str, Any] = {}
    total = len(step)
    nonfinite = nonfinite_points(step, value)
    reduction = reduce_series(step, value, window.max_points) if window.max_points is not None else None
    if reduction is not None:
        keep = reduction.indices
        step, wall_time, value = step[keep], wall_time[keep], value[keep]
        payload["band_low"] = reduction.band_low
        payload["band_high"] = reduction.band_high
    payload["step"] = _contiguous(step, np.int64)
    payload["wall_time"] = _contiguous(wall_time, np.float64)
    payload["value"] = _contiguous(value, np.float64)
    payload["reduced"] = reduction is not None
    payload["total_points"] = total
    payload["nonfinite"] = nonfinite
    return payload


def indexed_payload(series: IndexedScalars, window: Window) -> dict[str, Any]:
    """:func:`series_payload` of a series with a level-of-detail index (a long series of the on-disk store),
    equal to it: the window found by binary search over the encoded steps, the reduction from the pyramid, and
    only the kept points (and the non-finite ones) read."""
    start, end = 0, len(series)

    def search(step: int, side: str) -> int:
        return int(series.search(np.array([min(max(step, _INT64[0]), _INT64[1])], dtype=np.int64), side)[0])

    if window.since_step is not None:
        start = max(start, search(window.since_step, "right"))
    if window.min_step is not None:
        start = max(start, search(window.min_step, "left"))
    if window.max_step is not None:
        end = min(end, search(window.max_step, "right"))
    end = max(start, end)
    odd = nonfinite_indices(series, start, end)
    reduction = reduce_indexed(series, start, end, window.max_points) if window.max_points is not None else None
    keep = reduction.indices + start if reduction is not None else np.arange(start, end)
    payload: dict[str, Any] = {}
    if reduction is not None:
        payload["band_low"] = reduction.band_low
        payload["band_high"] = reduction.band_high
    payload["step"] = _contiguous(series.steps(keep), np.int64)
    payload["wall_time"] = _contiguous(series.wall_times(keep), np.float64)
    payload["value"] = _contiguous(series.value[keep], np.float64)
    payload["reduced"] = reduction is not None
    payload["total_points"] = end - start
    payload["nonfinite"] = nonfinite_points(series.steps(odd), np.asarray(series.value[odd], dtype=np.float64))
    return payload


def _contiguous(array: np.ndarray, dtype: type[np.generic]) -> np.ndarray:
    """orjson serialises only C-contiguous arrays of native dtypes; the store's views already are."""
    return np.ascontiguousarray(array, dtype=dtype)
