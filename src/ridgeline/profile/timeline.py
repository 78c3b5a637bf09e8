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
    by one. The crowded rows' blocks are computed together (:func:`_busy`), a few numpy calls for all of them."""
    ts, dur, name = (np.asarray(trace.spans[key]) for key in ("ts", "dur", "name"))  # no memmap per-slice cost
    width = max(width, 1)
    pixel = max((end - start) / width, 1e-9)
    edges = start + pixel * np.arange(1, width)
    answer_rows: list[dict[str, Any]] = []
    used: set[int] = set()
    crowded: list[tuple[int, np.ndarray, np.ndarray]] = []  # (answer row, cut, wide spans)
    rows = zip(index.lane.tolist(), index.depth.tolist(), index.start.tolist(), index.stop.tolist(), strict=True)
    for lane, depth, first, last in rows:
        row_ts = ts[first:last]
        lo, hi = np.searchsorted(row_ts, (start, end), side="left").tolist()
        if lo > 0 and row_ts[lo - 1] + dur[first + lo - 1] > start:
            lo -= 1
        if hi <= lo:
            continue
        if hi - lo <= limit:
            ids = np.arange(first + lo, first + hi)
        else:
            ids = _wide(index, dur, first + lo, first + hi, pixel)
            cut = np.empty(width + 1, np.int64)
            cut[0], cut[-1] = lo, hi
            cut[1:-1] = np.searchsorted(row_ts[lo:hi], edges, side="left")
            cut[1:-1] += lo
            crowded.append((len(answer_rows), cut + first, ids))
            if ids.size > limit:
                ids = np.sort(ids[np.argsort(-dur[ids], kind="stable")[:limit]])
        codes = name[ids]
        used.update(np.unique(codes).tolist())
        answer_rows.append(
            {
                "lane": lane,
                "depth": depth,
                "ids": ids,
                "ts": ts[ids],
                "dur": dur[ids],
                "name": codes,
                "blocks": _NO_BLOCKS,
            }
        )
    if crowded:
        for (row, _, _), blocks in zip(
            crowded, _busy(index, ts, dur, crowded, edges, start, pixel, width), strict=True
        ):
            answer_rows[row]["blocks"] = blocks
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
    ts: np.ndarray,
    dur: np.ndarray,
    crowded: list[tuple[int, np.ndarray, np.ndarray]],
    edges: np.ndarray,
    start: float,
    pixel: float,
    width: int,
) -> list[np.ndarray]:
    """For each crowded row (its pixels' first spans ``cut``, its spans drawn one by one ``wide``): the runs of
    pixels holding spans shorter than a pixel, float64 ``[from, to, busy]`` rows (µs, µs, fraction of the run
    covered). A span counts in the pixel where it starts (the first pixel for one starting before the window)."""
    cuts = np.stack([cut for _, cut, _ in crowded])  # rows x (width + 1)
    spans = cuts[:, 1:] - cuts[:, :-1]
    summed = index.elapsed[cuts]
    busy = summed[:, 1:] - summed[:, :-1]
    wide = [(r, w) for r, (_, _, w) in enumerate(crowded) if w.size]
    if wide:
        rows = np.concatenate([np.full(w.size, r) for r, w in wide])
        ids = np.concatenate([w for _, w in wide])
        slot = rows * width + np.searchsorted(edges, ts[ids], side="right")
        spans -= np.bincount(slot, minlength=spans.size).reshape(spans.shape)
        busy -= np.bincount(slot, weights=dur[ids].astype(np.float64), minlength=spans.size).reshape(spans.shape)
    filled = spans > 0
    busy = np.where(filled, np.maximum(busy, 0.0), 0.0)
    padded = np.zeros((len(crowded), width + 2), np.int8)
    padded[:, 1:-1] = filled
    row_of, bounds = np.nonzero(padded[:, 1:] != padded[:, :-1])  # run starts and ends alternate in each row
    a, b = bounds[::2], bounds[1::2]
    row_of = row_of[::2]
    totals = np.zeros((len(crowded), width + 1))
    np.cumsum(busy, axis=1, out=totals[:, 1:])
    result = np.empty((a.size, 3))
    result[:, 0] = start + a * pixel
    result[:, 1] = start + b * pixel
    result[:, 2] = np.minimum((totals[row_of, b] - totals[row_of, a]) / ((b - a) * pixel), 1.0)
    return np.split(result, np.searchsorted(row_of, np.arange(1, len(crowded))))
