"""What each span is, by the categories and names Kineto writes, and interval arithmetic over spans.

Kineto's categories: ``cpu_op`` (torch operators), ``user_annotation`` (``record_function``, ``ProfilerStep#N``),
``python_function`` (``with_stack=True``), ``cuda_runtime``/``cuda_driver`` (launches), ``kernel``,
``gpu_memcpy``, ``gpu_memset``, ``gpu_user_annotation``. Collectives are NCCL kernels on a GPU; on a CPU-only run
(gloo) they are the CPU operators of ``torch.distributed`` (``c10d::allreduce_``, ``gloo:all_reduce``, ...).
"""

from __future__ import annotations

import re

import numpy as np

from ridgeline.profile.columns import Trace, code_mask

STEP = re.compile(r"^ProfilerStep#(\d+)$")
OPS = ("cpu_op", "operator", "user_annotation")
RUNTIME = ("cuda_runtime", "cuda_driver", "runtime")
KERNEL = ("kernel",)
MEMCPY = ("gpu_memcpy", "memcpy")
MEMSET = ("gpu_memset", "memset")
_COMM_KERNEL = re.compile(r"nccl|rccl", re.IGNORECASE)
_COMM_OP = re.compile(
    r"^(c10d::|gloo:|nccl:|record_param_comms)|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast|barrier",
    re.IGNORECASE,
)
_DATALOADER = re.compile(r"^enumerate\(DataLoader\)|DataLoader.*__next__|_MultiProcessingDataLoaderIter", re.IGNORECASE)


def name_mask(trace: Trace, pattern: re.Pattern[str]) -> np.ndarray:
    """A mask over spans: those whose name matches ``pattern``."""
    codes = np.asarray([i for i, name in enumerate(trace.names) if pattern.search(name)], dtype=np.int32)
    return code_mask(trace.spans["name"], codes, len(trace.names))


def has_device(trace: Trace) -> bool:
    return any(lane.device for lane in trace.lanes)


def kernels(trace: Trace) -> np.ndarray:
    return trace.in_cats(*KERNEL)


def communication(trace: Trace) -> np.ndarray:
    """Collective spans: NCCL kernels when the trace has device events, else the CPU collective operators."""
    if has_device(trace):
        return kernels(trace) & name_mask(trace, _COMM_KERNEL)
    return trace.in_cats(*OPS) & name_mask(trace, _COMM_OP) & ~name_mask(trace, STEP)


def dataloader(trace: Trace) -> np.ndarray:
    return trace.in_cats(*OPS) & name_mask(trace, _DATALOADER)


def cpu_work(trace: Trace) -> np.ndarray:
    """CPU spans that are work (operators, annotations, launches), not the step markers themselves."""
    return (trace.in_cats(*OPS) | trace.in_cats(*RUNTIME)) & ~name_mask(trace, STEP)


def steps(trace: Trace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The profiled steps (``ProfilerStep#N``): numbers, starts, ends, in time order. A trace without step markers
    is one step, -1, from its first span to the end of its last."""
    mask = name_mask(trace, STEP) & trace.in_cats(*OPS)
    rows = np.flatnonzero(mask)
    ts, dur = trace.spans["ts"], trace.spans["dur"]
    if rows.size == 0:
        if ts.size == 0:
            return np.empty(0, np.int64), np.empty(0), np.empty(0)
        work = ~trace.in_cats("trace")
        chosen = np.flatnonzero(work) if work.any() else np.arange(ts.size)
        return np.array([-1]), np.array([ts[chosen].min()]), np.array([(ts[chosen] + dur[chosen]).max()])
    numbers = np.asarray([int(STEP.match(trace.names[code]).group(1)) for code in trace.spans["name"][rows]])  # type: ignore[union-attr]
    order = np.argsort(ts[rows], kind="stable")
    rows = rows[order]
    return numbers[order], ts[rows].astype(np.float64), (ts[rows] + dur[rows]).astype(np.float64)


def union(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of intervals as disjoint sorted intervals."""
    if starts.size == 0:
        return np.empty(0), np.empty(0)
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    reach = np.maximum.accumulate(ends)
    breaks = np.flatnonzero(starts[1:] > reach[:-1]) + 1
    first = np.concatenate(([0], breaks))
    last = np.concatenate((breaks - 1, [starts.size - 1]))
    return starts[first], reach[last]


def span_union(trace: Trace, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ts, dur = trace.spans["ts"][mask], trace.spans["dur"][mask]
    return union(np.asarray(ts, np.float64), np.asarray(ts + dur, np.float64))


def covered(points: np.ndarray, intervals: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Whether each point lies inside one of the disjoint sorted intervals."""
    starts, ends = intervals
    if starts.size == 0:
        return np.zeros(points.size, dtype=bool)
    index = np.searchsorted(starts, points, side="right") - 1
    inside = index >= 0
    inside[inside] = points[inside] < ends[index[inside]]
    return inside


def length(intervals: tuple[np.ndarray, np.ndarray]) -> float:
    return float((intervals[1] - intervals[0]).sum())


def intersection_length(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
    """Total length of the overlap of two sets of disjoint sorted intervals."""
    if a[0].size == 0 or b[0].size == 0:
        return 0.0
    bounds = np.unique(np.concatenate((a[0], a[1], b[0], b[1])))
    middles = (bounds[:-1] + bounds[1:]) / 2
    both = covered(middles, a) & covered(middles, b)
    return float(np.diff(bounds)[both].sum())
