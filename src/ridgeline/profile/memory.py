"""The allocator's curve (``profile_memory=True``): memory allocated over time per device, with its peak.

Each ``[memory]`` instant carries the allocator's running ``Total Allocated`` and ``Total Reserved`` after the
allocation (positive ``Bytes``) or free (negative). Long curves are thinned to at most ``points`` points by keeping,
per bucket of time, the samples at its minimum and maximum, so peaks survive.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ridgeline.profile.columns import Trace

DEVICE_TYPES = {0: "CPU", 1: "CUDA"}


def _thin(ts: np.ndarray, values: np.ndarray, points: int) -> np.ndarray:
    """Indices of the samples kept: each bucket's first, lowest and highest."""
    if ts.size <= points:
        return np.arange(ts.size)
    buckets = max(points // 3, 1)
    edges = np.linspace(ts[0], ts[-1], buckets + 1)
    bucket = np.clip(np.searchsorted(edges, ts, side="right") - 1, 0, buckets - 1)
    starts = np.flatnonzero(np.concatenate(([True], bucket[1:] != bucket[:-1])))
    order_max = np.lexsort((-values, bucket))
    order_min = np.lexsort((values, bucket))
    firsts = np.searchsorted(bucket[order_max], bucket[starts])
    kept = np.concatenate((starts, order_max[firsts], order_min[firsts], [ts.size - 1]))
    return np.unique(kept)


def memory_curves(trace: Trace, points: int = 2000) -> list[dict[str, Any]]:
    """One curve per device: ``{device, ts, allocated, reserved, peak: {ts, allocated}}`` (µs, bytes)."""
    table = trace.memory
    if table["ts"].size == 0:
        return []
    order = np.argsort(table["ts"], kind="stable")
    ts = np.asarray(table["ts"])[order]
    kind = np.asarray(table["device_type"])[order]
    device = np.asarray(table["device_id"])[order]
    allocated = np.asarray(table["allocated"])[order]
    reserved = np.asarray(table["reserved"])[order]
    curves = []
    for dtype, did in sorted(set(zip(kind.tolist(), device.tolist(), strict=True))):
        mine = np.flatnonzero((kind == dtype) & (device == did))
        values = np.nan_to_num(allocated[mine])
        peak = int(np.argmax(values))
        kept = mine[_thin(ts[mine], values, points)]
        name = DEVICE_TYPES.get(dtype, f"device type {dtype}")
        curves.append(
            {
                "device": name if did < 0 else f"{name}:{did}",
                "ts": ts[kept],
                "allocated": allocated[kept],
                "reserved": reserved[kept],
                "peak": {"ts": float(ts[mine][peak]), "allocated": float(values[peak])},
            }
        )
    return curves
