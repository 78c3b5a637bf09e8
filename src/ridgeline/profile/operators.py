"""The operator and kernel tables of one trace, as ``prof.key_averages()`` and torch-tb-profiler computed them.

An operator's self time is its duration less that of the spans directly inside it on its thread (operators,
annotations, Python functions alike, as the profiler's own event tree does). Its device time is that of the
kernels, memcpys and memsets it launched (they carry its ``External id``); "total" adds its descendants' device
time.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np

from ridgeline.profile import kinds
from ridgeline.profile.columns import Trace

_TENSOR_CORE = re.compile(
    r"884|1688|16816|hmma|xmma|wgmma|tensorop|s16816|bf16.*gemm|h\d+gemm|cutlass.*(f16|bf16)", re.I
)


def _self_and_device(trace: Trace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per span: self time, self device time, total device time (µs)."""
    spans = trace.spans
    dur = np.asarray(spans["dur"], np.float64)
    parent = np.asarray(spans["parent"])
    nested = parent >= 0
    children = np.bincount(parent[nested], weights=dur[nested], minlength=dur.size)
    self_time = dur - children
    device = trace.in_cats(*kinds.KERNEL, *kinds.MEMCPY, *kinds.MEMSET)
    self_device = np.zeros(dur.size)
    ops = trace.in_cats(*kinds.OPS)
    if device.any():
        ext = np.asarray(spans["external_id"])
        op_rows = np.flatnonzero(ops & (ext >= 0))
        order = np.argsort(ext[op_rows], kind="stable")
        sorted_ext = ext[op_rows][order]
        device_rows = np.flatnonzero(device & (ext >= 0))
        where = np.searchsorted(sorted_ext, ext[device_rows])
        where = np.minimum(where, max(sorted_ext.size - 1, 0))
        found = sorted_ext.size > 0
        if found:
            match = sorted_ext[where] == ext[device_rows]
            np.add.at(self_device, op_rows[order][where[match]], dur[device_rows[match]])
    total_device = self_device.copy()
    depth = np.asarray(spans["depth"])
    for level in range(int(depth.max()) if depth.size else 0, 0, -1):
        rows = np.flatnonzero((depth == level) & nested)
        np.add.at(total_device, parent[rows], total_device[rows])
    return self_time, self_device, total_device


def _merge_repeats(trace: Trace, self_time: np.ndarray, self_device: np.ndarray) -> np.ndarray:
    """A mask of the spans that are their parent's only child and of its name (``aten::mean`` dispatching to
    ``aten::mean``): as the profiler's own tables do, each is merged into its parent (its self times added to the
    parent's) and left out of the table."""
    parent = np.asarray(trace.spans["parent"])
    name = np.asarray(trace.spans["name"])
    nested = np.flatnonzero(parent >= 0)
    children = np.bincount(parent[nested], minlength=parent.size)
    repeat = np.zeros(parent.size, dtype=bool)
    candidates = nested[(name[parent[nested]] == name[nested]) & (children[parent[nested]] == 1)]
    for child in candidates[np.argsort(-np.asarray(trace.spans["depth"])[candidates], kind="stable")].tolist():
        self_time[parent[child]] += self_time[child]
        self_device[parent[child]] += self_device[child]
        repeat[child] = True
    return repeat


def operators(trace: Trace, by_shapes: bool = False) -> list[dict[str, Any]]:
    """One row per operator name (and input shapes with ``by_shapes``), by self CPU time, largest first."""
    self_time, self_device, total_device = _self_and_device(trace)
    repeat = _merge_repeats(trace, self_time, self_device)
    rows = np.flatnonzero(trace.in_cats(*kinds.OPS) & ~repeat)
    if rows.size == 0:
        return []
    spans = trace.spans
    names = np.asarray(spans["name"])[rows]
    shapes = np.asarray(spans["shapes"])[rows] if by_shapes else np.zeros(rows.size, np.int32)
    keys = names.astype(np.int64) * (len(trace.shapes) + 2) + (shapes + 1)
    unique, group = np.unique(keys, return_inverse=True)
    count = np.bincount(group)

    def total(values: np.ndarray) -> np.ndarray:
        return np.bincount(group, weights=np.asarray(values, np.float64)[rows], minlength=unique.size)

    self_cpu, total_cpu = total(self_time), total(spans["dur"])
    self_dev, total_dev = total(self_device), total(total_device)
    first = np.zeros(unique.size, np.int64)
    first[group[::-1]] = np.arange(rows.size)[::-1]
    table = []
    for g in np.argsort(-self_cpu, kind="stable").tolist():
        shape_code = int(shapes[first[g]])
        table.append(
            {
                "name": trace.names[int(names[first[g]])],
                "input_shapes": trace.shapes[shape_code] if by_shapes and shape_code >= 0 else None,
                "calls": int(count[g]),
                "self_cpu": float(self_cpu[g]),
                "total_cpu": float(total_cpu[g]),
                "self_device": float(self_dev[g]),
                "total_device": float(total_dev[g]),
            }
        )
    return table


def call_stacks(trace: Trace, name: str, limit: int = 10, sample: int = 2000) -> list[dict[str, Any]]:
    """The Python call stacks (``with_stack=True``) an operator was called from, most frequent first: the
    enclosing ``python_function`` spans, innermost first."""
    if name not in trace.names:
        return []
    code = trace.names.index(name)
    rows = np.flatnonzero((np.asarray(trace.spans["name"]) == code) & trace.in_cats(*kinds.OPS))[:sample]
    python = set(trace.cat_codes("python_function").tolist())
    parent, cats, names = trace.spans["parent"], trace.spans["cat"], trace.spans["name"]
    stacks: Counter[tuple[str, ...]] = Counter()
    for row in rows.tolist():
        frames: list[str] = []
        up = int(parent[row])
        while up >= 0 and len(frames) < 64:
            if int(cats[up]) in python:
                frames.append(trace.names[int(names[up])])
            up = int(parent[up])
        if frames:
            stacks[tuple(frames)] += 1
    return [{"calls": n, "frames": list(frames)} for frames, n in stacks.most_common(limit)]


def kernels(trace: Trace) -> list[dict[str, Any]]:
    """One row per kernel name, by total time: calls, total/mean/min/max (µs), tensor-core use (by the kernel's
    name, as torch-tb-profiler judged it), the most frequent grid and block, and the launch statistics the trace
    recorded (registers, shared memory, blocks and warps per SM, estimated achieved occupancy), duration-weighted."""
    table = trace.kernels
    rows = np.asarray(table["span"])
    if rows.size == 0:
        return []
    dur = np.asarray(trace.spans["dur"], np.float64)[rows]
    names = np.asarray(trace.spans["name"])[rows]
    unique, group = np.unique(names, return_inverse=True)
    totals = np.bincount(group, weights=dur)
    by_group = np.argsort(group, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(group))))
    result = []
    for g in np.argsort(-totals, kind="stable").tolist():
        members = by_group[bounds[g] : bounds[g + 1]]
        mine = dur[members]
        name = trace.names[int(unique[g])]
        row: dict[str, Any] = {
            "name": name,
            "calls": int(members.size),
            "total": float(totals[g]),
            "mean": float(mine.mean()),
            "min": float(mine.min()),
            "max": float(mine.max()),
            "tensor_cores": bool(_TENSOR_CORE.search(name)),
            "grid": Counter(trace.kernel_text["grid_text"][i] for i in members[:1000].tolist()).most_common(1)[0][0],
            "block": Counter(trace.kernel_text["block_text"][i] for i in members[:1000].tolist()).most_common(1)[0][0],
        }
        for field in ("registers", "shared_memory", "blocks_per_sm", "warps_per_sm", "occupancy"):
            values = np.asarray(table[field], np.float64)[members]
            known = ~np.isnan(values)
            weight = mine[known].sum()
            row[field] = float((values[known] * mine[known]).sum() / weight) if known.any() and weight else None
        result.append(row)
    return result
