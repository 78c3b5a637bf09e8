"""The timeline of a trace, one window at a time, at the level of detail the window can show.

Spans are stored sorted by lane, depth and start, and spans of one (lane, depth) row never overlap, so the spans
of a row visible in ``[start, end)`` are found by two binary searches. A row with more visible spans than
``limit`` sends its spans at least one pixel wide (the widest ``limit`` of them) and, for the rest, blocks of
adjacent pixels with how busy each block is: a frame costs what its pixels cost, not what the trace holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ridgeline.profile.columns import Trace


@dataclass
class Rows:
    """Where each (lane, depth) row's spans lie in the span columns."""

    lane: np.ndarray
    depth: np.ndarray
    start: np.ndarray  # first span of the row
    stop: np.ndarray  # one past its last


def rows(trace: Trace) -> Rows:
    lane, depth = np.asarray(trace.spans["lane"]), np.asarray(trace.spans["depth"])
    if lane.size == 0:
        empty = np.empty(0, np.int64)
        return Rows(empty, empty, empty, empty)
    change = np.flatnonzero((lane[1:] != lane[:-1]) | (depth[1:] != depth[:-1])) + 1
    start = np.concatenate(([0], change))
    stop = np.concatenate((change, [lane.size]))
    return Rows(lane[start].astype(np.int64), depth[start].astype(np.int64), start, stop)


def extent(trace: Trace) -> tuple[float, float]:
    ts = np.asarray(trace.spans["ts"])
    if ts.size == 0:
        return 0.0, 0.0
    return float(ts.min()), float((ts + np.asarray(trace.spans["dur"])).max())


def lanes(trace: Trace, index: Rows) -> list[dict[str, Any]]:
    """The timeline's lanes in drawing order (CPU threads first, by process sort index, then device streams)."""
    depth = np.zeros(len(trace.lanes), np.int64)
    np.maximum.at(depth, index.lane, index.depth + 1)
    order = sorted(range(len(trace.lanes)), key=lambda i: (trace.lanes[i].device, trace.lanes[i].sort, i))
    return [
        {"lane": i, "label": trace.lanes[i].label, "device": trace.lanes[i].device, "depth": int(depth[i])}
        for i in order
        if depth[i] > 0
    ]


def window(trace: Trace, index: Rows, start: float, end: float, width: int, limit: int = 1500) -> dict[str, Any]:
    """What to draw of ``[start, end)`` (µs) on ``width`` pixels: per row, its spans (ids, ts, dur, name codes)
    and the blocks standing for spans too small and too many to draw one by one."""
    ts, dur, name = trace.spans["ts"], trace.spans["dur"], trace.spans["name"]
    pixel = max((end - start) / max(width, 1), 1e-9)
    answer_rows, used = [], set()
    for lane, depth, first, last in zip(index.lane, index.depth, index.start, index.stop, strict=True):
        row_ts = ts[first:last]
        lo = int(np.searchsorted(row_ts, start, side="left"))
        if lo > 0 and row_ts[lo - 1] + dur[first + lo - 1] > start:
            lo -= 1
        hi = int(np.searchsorted(row_ts, end, side="left"))
        if hi <= lo:
            continue
        ids = np.arange(first + lo, first + hi)
        blocks: list[list[float]] = []
        if ids.size > limit:
            widths = np.asarray(dur[ids])
            wide = widths >= pixel
            small = ids[~wide]
            ids = ids[wide]
            if ids.size > limit:
                ids = np.sort(ids[np.argsort(-np.asarray(dur[ids]), kind="stable")[:limit]])
            blocks = _blocks(np.asarray(ts[small]), np.asarray(dur[small]), start, pixel, width)
        codes = np.asarray(name[ids])
        used.update(codes.tolist())
        answer_rows.append(
            {
                "lane": int(lane),
                "depth": int(depth),
                "ids": ids,
                "ts": np.asarray(ts[ids]),
                "dur": np.asarray(dur[ids]),
                "name": codes,
                "blocks": blocks,
            }
        )
    return {
        "start": start,
        "end": end,
        "rows": answer_rows,
        "names": {str(code): trace.names[code] for code in sorted(used)},
    }


def _blocks(ts: np.ndarray, dur: np.ndarray, start: float, pixel: float, width: int) -> list[list[float]]:
    """Runs of pixels holding small spans: ``[from, to, busy]`` (µs, µs, fraction of the run covered)."""
    if ts.size == 0:
        return []
    bucket = np.clip(((ts - start) / pixel).astype(np.int64), 0, width - 1)
    busy = np.bincount(bucket, weights=dur, minlength=width)
    filled = busy > 0
    edges = np.flatnonzero(np.diff(np.concatenate(([0], filled.astype(np.int8), [0]))))
    result = []
    for a, b in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        fraction = min(float(busy[a:b].sum()) / ((b - a) * pixel), 1.0)
        result.append([start + a * pixel, start + b * pixel, fraction])
    return result
