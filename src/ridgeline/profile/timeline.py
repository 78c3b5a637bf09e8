"""The timeline of a trace, one window at a time, at the level of detail the window can show.

Spans are stored sorted by lane, depth and start, and spans of one (lane, depth) row never overlap, so the spans
of a row visible in ``[start, end)`` are found by two binary searches. A row with more visible spans than
``limit`` sends its spans at least one pixel wide (the widest ``limit`` of them) and, for the rest, blocks of
adjacent pixels with how busy each block is: a frame costs what its pixels cost, not what the trace holds. The
wide spans are found through the longest duration of each run of :data:`BLOCK` spans (only runs holding one are
opened), and each pixel's busy time and span count by binary searches into running sums of the durations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ridgeline.profile.columns import Trace

BLOCK = 64
_NO_BLOCKS = np.empty((0, 3))


@dataclass
class Rows:
    """Where each (lane, depth) row's spans lie in the span columns, and the sums that make a frame O(pixels)."""

    lane: np.ndarray
    depth: np.ndarray
    start: np.ndarray  # first span of the row
    stop: np.ndarray  # one past its last
    elapsed: np.ndarray  # running sum of the spans' durations: elapsed[i] = dur[:i].sum()
    longest: np.ndarray  # longest duration of spans [i * BLOCK, (i + 1) * BLOCK)


def rows(trace: Trace) -> Rows:
    lane, depth = np.asarray(trace.spans["lane"]), np.asarray(trace.spans["depth"])
    if lane.size == 0:
        empty = np.empty(0, np.int64)
        return Rows(empty, empty, empty, empty, np.zeros(1), np.empty(0))
    change = np.flatnonzero((lane[1:] != lane[:-1]) | (depth[1:] != depth[:-1])) + 1
    start = np.concatenate(([0], change))
    stop = np.concatenate((change, [lane.size]))
    dur = np.asarray(trace.spans["dur"], np.float64)
    elapsed = np.concatenate(([0.0], np.cumsum(dur)))
    longest = np.maximum.reduceat(dur, np.arange(0, dur.size, BLOCK))
    return Rows(lane[start].astype(np.int64), depth[start].astype(np.int64), start, stop, elapsed, longest)


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
    and the blocks (a float64 ``[from, to, busy]`` row each) standing for spans too small and too many to draw one
    by one."""
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
        blocks = _NO_BLOCKS
        if hi - lo <= limit:
            ids = np.arange(first + lo, first + hi)
        else:
            ids = _wide(index, dur, first + lo, first + hi, pixel)
            blocks = _busy(index, row_ts, ts, dur, ids, first, lo, hi, start, pixel, width)
            if ids.size > limit:
                ids = np.sort(ids[np.argsort(-np.asarray(dur[ids]), kind="stable")[:limit]])
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


def _wide(index: Rows, dur: np.ndarray, first: int, last: int, pixel: float) -> np.ndarray:
    """The spans of [first, last) at least ``pixel`` long, opening only the runs of BLOCK spans that hold one."""
    runs = np.arange(first // BLOCK, (last - 1) // BLOCK + 1)
    runs = runs[index.longest[runs] >= pixel]
    if runs.size == 0:
        return np.empty(0, np.int64)
    ids = (runs[:, None] * BLOCK + np.arange(BLOCK)).ravel()
    ids = ids[(ids >= first) & (ids < last)]
    return ids[np.asarray(dur[ids]) >= pixel]


def _busy(
    index: Rows,
    row_ts: np.ndarray,
    ts: np.ndarray,
    dur: np.ndarray,
    wide: np.ndarray,
    first: int,
    lo: int,
    hi: int,
    start: float,
    pixel: float,
    width: int,
) -> np.ndarray:
    """Runs of pixels holding spans shorter than a pixel, float64 ``[from, to, busy]`` rows (µs, µs, fraction of
    the run covered). A span counts in the pixel where it starts (the first pixel for one starting before the
    window)."""
    edges = start + pixel * np.arange(1, width)
    cut = np.concatenate(([lo], np.clip(np.searchsorted(row_ts, edges, side="left"), lo, hi), [hi])) + first
    spans = np.diff(cut)
    busy = np.diff(index.elapsed[cut])
    if wide.size:
        pixel_of = np.searchsorted(edges, np.asarray(ts[wide]), side="right")
        spans -= np.bincount(pixel_of, minlength=width)
        busy -= np.bincount(pixel_of, weights=np.asarray(dur[wide], np.float64), minlength=width)
    filled = spans > 0
    busy = np.where(filled, np.maximum(busy, 0.0), 0.0)
    bounds = np.flatnonzero(np.diff(np.concatenate(([0], filled.astype(np.int8), [0]))))
    totals = np.concatenate(([0.0], np.cumsum(busy)))
    a, b = bounds[::2], bounds[1::2]
    result = np.empty((a.size, 3))
    result[:, 0] = start + a * pixel
    result[:, 1] = start + b * pixel
    result[:, 2] = np.minimum((totals[b] - totals[a]) / ((b - a) * pixel), 1.0)
    return result
