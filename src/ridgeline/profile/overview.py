"""The overview of one trace: each profiled step's time and what filled it, device utilisation, and a
recommendation when one thing dominates.

Every instant of a step is given to one category, the first of :data:`CATEGORIES` that is running then:
communication, then kernel compute, memcpy, memset (device work), then data loading, other CPU work, else idle.
On a GPU trace "idle" is time with neither device work nor CPU work; "cpu" is CPU work with an idle device.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ridgeline.profile import kinds
from ridgeline.profile.columns import Trace
from ridgeline.profile.scanned import _scan

CATEGORIES = ("communication", "kernel", "memcpy", "memset", "dataloader", "cpu", "idle")


def category_intervals(trace: Trace) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    comm = kinds.communication(trace)
    return {
        "communication": kinds.span_union(trace, comm),
        "kernel": kinds.span_union(trace, kinds.kernels(trace) & ~comm),
        "memcpy": kinds.span_union(trace, trace.in_cats(*kinds.MEMCPY)),
        "memset": kinds.span_union(trace, trace.in_cats(*kinds.MEMSET)),
        "dataloader": kinds.span_union(trace, kinds.dataloader(trace)),
        "cpu": kinds.span_union(trace, kinds.cpu_work(trace) & ~comm),
    }


def breakdown(
    trace: Trace,
    starts: np.ndarray,
    ends: np.ndarray,
    intervals: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> np.ndarray:
    """Time (µs) of each category (columns, :data:`CATEGORIES`) in each window (rows): a moment goes to the first
    category covering it, else to idle. One merge in C where the scanner is compiled, else :func:`breakdown_numpy`."""
    intervals = intervals if intervals is not None else category_intervals(trace)
    if _scan is None or starts.size == 0:
        return breakdown_numpy(starts, ends, intervals)
    flat = tuple(
        np.column_stack((np.asarray(begin, np.float64), np.asarray(end, np.float64))).ravel()
        for begin, end in (intervals[name] for name in CATEGORIES[:-1])
    )
    table = _scan.sweep(np.ascontiguousarray(starts, np.float64), np.ascontiguousarray(ends, np.float64), flat)
    return np.frombuffer(table, dtype=np.float64).reshape(starts.size, len(CATEGORIES)).copy()


def breakdown_numpy(
    starts: np.ndarray, ends: np.ndarray, intervals: dict[str, tuple[np.ndarray, np.ndarray]]
) -> np.ndarray:
    """:func:`breakdown` with numpy: every boundary sorted, each elementary segment's middle looked up."""
    result = np.zeros((starts.size, len(CATEGORIES)))
    if starts.size == 0:
        return result
    pieces = [starts, ends]
    for begin, end in intervals.values():
        keep = (end > starts.min()) & (begin < ends.max())
        pieces += [begin[keep], end[keep]]
    bounds = np.unique(np.concatenate(pieces))
    middles = (bounds[:-1] + bounds[1:]) / 2
    widths = np.diff(bounds)
    window = np.searchsorted(starts, middles, side="right") - 1
    inside = window >= 0
    inside[inside] = middles[inside] < ends[window[inside]]
    unassigned = inside.copy()
    for column, name in enumerate(CATEGORIES[:-1]):
        hit = unassigned & kinds.covered(middles, intervals[name])
        result[:, column] = np.bincount(window[hit], weights=widths[hit], minlength=starts.size)
        unassigned &= ~hit
    result[:, -1] = np.bincount(window[unassigned], weights=widths[unassigned], minlength=starts.size)
    return result


def _device_efficiency(trace: Trace, total: float) -> dict[str, float | None]:
    kernel_rows = trace.kernels["span"]
    if kernel_rows.size == 0 or total <= 0:
        return {"sm_efficiency": None, "achieved_occupancy": None}
    dur = np.asarray(trace.spans["dur"][kernel_rows], np.float64)
    blocks = np.asarray(trace.kernels["blocks_per_sm"], np.float64)
    occupancy = np.asarray(trace.kernels["occupancy"], np.float64)
    known = ~np.isnan(blocks)
    sm = float((np.minimum(blocks[known], 1.0) * dur[known]).sum() / total) if known.any() else None
    known = ~np.isnan(occupancy)
    occ = float((occupancy[known] * dur[known]).sum() / dur[known].sum()) if known.any() and dur[known].sum() else None
    return {"sm_efficiency": sm, "achieved_occupancy": occ}


def recommendation(shares: dict[str, float], device: bool) -> str | None:
    """One line when one thing dominates the step time (shares are fractions of it)."""
    if shares.get("dataloader", 0) > 0.05 and shares["dataloader"] >= max(shares.get("communication", 0), 0.05):
        return (
            f"Data loading takes {shares['dataloader']:.0%} of the step time: try more DataLoader workers "
            "(num_workers), pin_memory=True, or prefetching."
        )
    if shares.get("communication", 0) > 0.3:
        return (
            f"Communication takes {shares['communication']:.0%} of the step time: overlap it with compute "
            "(bucketing, gradient accumulation) or look for a straggling rank (Across ranks)."
        )
    if device and shares.get("idle", 0) + shares.get("cpu", 0) > 0.3:
        return (
            f"The device is idle {shares['idle'] + shares['cpu']:.0%} of the step: the CPU does not feed it fast "
            "enough (larger batches, fewer small kernels, CUDA graphs, torch.compile)."
        )
    if device and shares.get("memcpy", 0) > 0.2:
        return f"Memory copies take {shares['memcpy']:.0%} of the step: keep tensors on the device, pin host memory."
    if not device and shares.get("idle", 0) > 0.3:
        return (
            f"{shares['idle']:.0%} of the step runs no operator: Python overhead or waiting outside torch "
            "(data preparation, logging, synchronisation)."
        )
    return None


def overview(trace: Trace) -> dict[str, Any]:
    """The overview of one trace as plain data (µs)."""
    numbers, starts, ends = kinds.steps(trace)
    table = breakdown(trace, starts, ends)
    device = kinds.has_device(trace)
    step_time = ends - starts
    total = float(step_time.sum())
    totals = table.sum(axis=0)
    shares = {name: (float(totals[i]) / total if total else 0.0) for i, name in enumerate(CATEGORIES)}
    busy = float(totals[:4].sum())
    return {
        "device": device,
        "rank": trace.rank,
        "world_size": trace.world_size,
        "categories": list(CATEGORIES),
        "steps": [
            {
                "step": int(n),
                "start": float(s),
                "duration": float(d),
                **dict(zip(CATEGORIES, map(float, row), strict=True)),
            }
            for n, s, d, row in zip(numbers.tolist(), starts, step_time, table, strict=True)
        ],
        "step_time_mean": float(step_time.mean()) if step_time.size else None,
        "totals": dict(zip(CATEGORIES, map(float, totals), strict=True)),
        "shares": shares,
        "gpu_utilisation": busy / total if device and total else None,
        **_device_efficiency(trace, total),
        "recommendation": recommendation(shares, device),
        "notes": trace.notes,
        "events": trace.span_count,
    }
