"""Invalidation per file: what a run held when each of its event files began to be read, and going back there.

When ingest first opens an event file of a run, the store records a *mark*: every series' length, the run's
restart log length and facts, and where reading of the run's other files stood. The marks are kept in the
run's manifest, in the order they were taken.

When a file changes under the reader (rewritten in place, truncated), only what the run gained since that
file's mark is taken back: a new reading of the run holds each series' points up to the mark (copied from the
store: nothing is parsed again), and ingest resumes every file from where it stood at the mark — the changed
file and the files first read after it from their start, the files read before it from their offsets then.
That is the state the run was in just before the file was first read, so what follows is what a cold read
gives: the files before the changed one keep their points, and the order of the points is the files' order.
The new reading has a new epoch, so every change token of the run moves.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ridgeline.store.base import KINDS
from ridgeline.store.blobs import BlobSeries
from ridgeline.store.disk_series import FLUSH_POINTS, DiskScalarSeries

if TYPE_CHECKING:
    from ridgeline.store.disk_run import DiskRunData

Mark = dict[str, Any]


def mark_of(data: DiskRunData, offsets: dict[str, int]) -> Mark:
    """What ``data`` holds now (its unwritten points included), and the other files' offsets (JSON-able)."""
    return {
        "offsets": {str(path): int(offset) for path, offset in offsets.items()},
        "scalars": {
            tag: len(series) + (series.pending if isinstance(series, DiskScalarSeries) else 0)
            for tag, series in list(data.scalars.items())
        },
        "blobs": [[kind, tag, len(series)] for (kind, tag), series in list(data.blobs.items())],
        "restart_log": len(data.restart_log),
        "first_wall_time": data.first_wall_time,
        "last_wall_time": data.last_wall_time,
        "last_steps": [[kind, tag, step] for (kind, tag), step in data._last_steps.items()],
    }


def checked_mark(value: Any) -> Mark:
    """A mark read back from a manifest (ValueError/TypeError/KeyError when it is not one)."""
    scalars = {str(tag): int(length) for tag, length in value["scalars"].items()}
    blobs = [[_kind(kind), str(tag), int(length)] for kind, tag, length in value["blobs"]]
    logged = int(value["restart_log"])
    if min([logged, *scalars.values(), *(int(n) for _, _, n in blobs)]) < 0:
        raise ValueError("negative length in a mark")
    return {
        "offsets": {str(path): int(offset) for path, offset in value["offsets"].items()},
        "scalars": scalars,
        "blobs": blobs,
        "restart_log": logged,
        "first_wall_time": None if value["first_wall_time"] is None else float(value["first_wall_time"]),
        "last_wall_time": float(value["last_wall_time"]),
        "last_steps": [[_kind(kind), str(tag), int(step)] for kind, tag, step in value["last_steps"]],
    }


def _kind(kind: Any) -> Any:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    return kind


def earliest(data: DiskRunData, paths: list[str]) -> str | None:
    """Of ``paths``, the one whose mark was taken first; None when one of them has no mark (then the run
    cannot be rewound past it)."""
    if any(path not in data.marks for path in paths):
        return None
    order = list(data.marks)
    return min(paths, key=order.index) if paths else None


def rewound(data: DiskRunData, path: str, fresh: DiskRunData) -> dict[str, int]:
    """Fill ``fresh`` (a new, empty reading of the same run) with what ``data`` held at ``path``'s mark;
    returns where reading of the other files stood then. ``data`` must be flushed."""
    mark = data.marks[path]
    logged = min(int(mark["restart_log"]), len(data.restart_log))
    for step in data.restart_log.steps(0, logged).tolist():
        fresh.restart_log.append(int(step))
    for tag, length in mark["scalars"].items():
        old = data.scalars.get(tag)
        if old is None:
            continue
        snapshot = old.snapshot()
        target = fresh.scalar_series(tag)
        for start in range(0, min(length, len(snapshot)), FLUSH_POINTS):
            end = min(start + FLUSH_POINTS, length)
            target.append(snapshot.step[start:end], snapshot.wall_time[start:end], snapshot.value[start:end])
        target._restarts = old._restarts.truncated(fresh.restart_log, logged)
    for kind, tag, length in mark["blobs"]:
        series = data.blobs.get((kind, tag))
        if series is None:
            continue
        kept = BlobSeries(max(length, 1), restart_log=fresh.restart_log)
        kept.extend(series.snapshot()[:length])
        kept._restarts = series._restarts.truncated(fresh.restart_log, logged)
        fresh.blobs[(kind, tag)] = kept
    fresh.first_wall_time = mark["first_wall_time"]
    fresh.last_wall_time = mark["last_wall_time"]
    fresh._last_steps = {(kind, tag): step for kind, tag, step in mark["last_steps"]}
    fresh._last_step_stale = True
    order = list(data.marks)
    fresh.marks = {earlier: data.marks[earlier] for earlier in order[: order.index(path)]}
    fresh.flush()
    return dict(mark["offsets"])


def remove_reading(data: DiskRunData) -> None:
    """Delete the files of a reading that was replaced (mappings of them stay valid)."""
    try:
        entries = list(os.scandir(data.directory))
    except FileNotFoundError:  # a run of short series only: its points are in packs, deleted once unused
        return
    for entry in entries:
        if entry.name.startswith(f"{data.reading}-") or entry.name == f"{data.reading}.blobs":
            os.unlink(entry.path)
