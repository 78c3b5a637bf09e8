"""Comparisons across the ranks of one distributed job, after Holistic Trace Analysis (HTA), one trace per rank.

- temporal breakdown: each rank's step time split as in the overview, side by side;
- communication/computation overlap: the share of a rank's collective time during which compute also ran
  (device kernels on a GPU trace; CPU operators on a CPU-only one);
- late-starting collectives: per profiled step, when each rank started its last long collective (one at least half
  as long as that step's longest); collectives end together, so the rank that starts last is the straggler the
  others wait for;
- idle time of the device, split as HTA does: waiting for the host (the next kernel was not launched yet), waiting
  between back-to-back kernels (gaps under ``kernel_gap`` µs), other.

Ranks come from the trace's ``distributedInfo`` (Kineto writes it once ``torch.distributed`` is initialised), else
the order of the files. Step numbers (``ProfilerStep#N``) pair the ranks' steps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ridgeline.profile import kinds
from ridgeline.profile.columns import Trace
from ridgeline.profile.overview import CATEGORIES, breakdown, category_intervals


def _overlap(trace: Trace) -> float | None:
    comm_mask = kinds.communication(trace)
    comm = kinds.span_union(trace, comm_mask)
    if comm[0].size == 0:
        return None
    compute_mask = kinds.kernels(trace) if kinds.has_device(trace) else kinds.cpu_work(trace)
    compute = kinds.span_union(trace, compute_mask & ~comm_mask)
    return kinds.intersection_length(comm, compute) / kinds.length(comm)


def _last_long_collectives(trace: Trace) -> dict[int, float]:
    """Per step number: the start of the rank's last long collective in that step."""
    numbers, starts, ends = kinds.steps(trace)
    rows = np.flatnonzero(kinds.communication(trace))
    found: dict[int, float] = {}
    if rows.size == 0:
        return found
    ts, dur = np.asarray(trace.spans["ts"])[rows], np.asarray(trace.spans["dur"])[rows]
    for number, begin, end in zip(numbers.tolist(), starts, ends, strict=True):
        inside = (ts >= begin) & (ts < end)
        if not inside.any():
            continue
        longest = dur[inside].max()
        chosen = inside & (dur >= longest / 2)
        found[int(number)] = float(ts[chosen].max())
    return found


def idle_breakdown(trace: Trace, kernel_gap: float = 30.0) -> dict[str, float] | None:
    """The device's idle time within steps (µs): host wait, kernel wait, other; None for a CPU-only trace."""
    if not kinds.has_device(trace):
        return None
    _, starts, ends = kinds.steps(trace)
    device_mask = trace.in_cats(*kinds.KERNEL, *kinds.MEMCPY, *kinds.MEMSET)
    busy_start, busy_end = kinds.span_union(trace, device_mask)
    result = {"host_wait": 0.0, "kernel_wait": 0.0, "other": 0.0}
    if busy_start.size < 2:
        return result
    gap_start, gap_end = busy_end[:-1], busy_start[1:]
    launches = _launch_times(trace, device_mask)
    next_launch = np.interp(gap_end, launches[0], launches[1]) if launches[0].size else np.full(gap_end.size, -np.inf)
    for begin, end in zip(starts, ends, strict=True):
        a, b = np.clip(gap_start, begin, end), np.clip(gap_end, begin, end)
        width = b - a
        keep = width > 0
        host = keep & (next_launch >= gap_start)
        short = keep & ~host & (gap_end - gap_start < kernel_gap)
        result["host_wait"] += float(width[host].sum())
        result["kernel_wait"] += float(width[short].sum())
        result["other"] += float(width[keep & ~host & ~short].sum())
    return result


def _launch_times(trace: Trace, device_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(device start, launch start) of the device spans whose launch (same ``correlation``) is in the trace,
    sorted by device start: for each kernel, when the CPU asked for it."""
    corr = np.asarray(trace.spans["correlation"])
    ts = np.asarray(trace.spans["ts"])
    runtime = np.flatnonzero(trace.in_cats(*kinds.RUNTIME) & (corr >= 0))
    device = np.flatnonzero(device_mask & (corr >= 0))
    if runtime.size == 0 or device.size == 0:
        return np.empty(0), np.empty(0)
    order = np.argsort(corr[runtime], kind="stable")
    keys = corr[runtime][order]
    where = np.minimum(np.searchsorted(keys, corr[device]), keys.size - 1)
    match = keys[where] == corr[device]
    device_ts, launch_ts = ts[device[match]], ts[runtime[order][where[match]]]
    by_start = np.argsort(device_ts, kind="stable")
    return device_ts[by_start], launch_ts[by_start]


def compare(traces: list[tuple[str, Trace]]) -> dict[str, Any]:
    """The cross-rank views of one run's traces (``(label, trace)`` pairs)."""
    ranks = []
    collectives: dict[int, dict[int, float]] = {}
    for position, (label, trace) in enumerate(traces):
        rank = trace.rank if trace.rank is not None else position
        numbers, starts, ends = kinds.steps(trace)
        totals = breakdown(trace, starts, ends, category_intervals(trace)).sum(axis=0)
        step_total = float((ends - starts).sum())
        ranks.append(
            {
                "rank": rank,
                "trace": label,
                "device": kinds.has_device(trace),
                "steps": len(numbers),
                "step_time_mean": step_total / len(numbers) if len(numbers) else None,
                "breakdown": dict(zip(CATEGORIES, map(float, totals), strict=True)),
                "overlap": _overlap(trace),
                "idle": idle_breakdown(trace),
            }
        )
        for step, start in _last_long_collectives(trace).items():
            collectives.setdefault(step, {})[rank] = start
    late = []
    for step in sorted(collectives):
        starts_by_rank = collectives[step]
        if len(starts_by_rank) < 2:
            continue
        earliest = min(starts_by_rank.values())
        straggler = max(starts_by_rank, key=lambda r: starts_by_rank[r])
        late.append(
            {
                "step": step,
                "straggler": straggler,
                "delay": {str(r): s - earliest for r, s in sorted(starts_by_rank.items())},
            }
        )
    return {"categories": list(CATEGORIES), "ranks": sorted(ranks, key=lambda r: r["rank"]), "late_collectives": late}
