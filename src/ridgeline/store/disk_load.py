"""Reading a stored run back (:func:`load_run`): from its manifest, its packed bytes and its column files, each
checked first (see :mod:`ridgeline.store.disk`); anything off and the run is not loaded but read again."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ridgeline.format.records import crc32c
from ridgeline.store.base import KINDS, BlobRef, Kind
from ridgeline.store.blobs import BlobSeries
from ridgeline.store.disk_run import BLOB_ROW, FORMAT, DiskRunData, run_directory_name
from ridgeline.store.disk_series import DiskScalarSeries
from ridgeline.store.files import Checked, ColumnFile, PackPart, native_little_endian
from ridgeline.store.lod import BLOCK, BLOCK_POINTS
from ridgeline.store.own_files import OwnFiles
from ridgeline.store.packs import BYTES, Packs
from ridgeline.store.restarts import SeriesRestarts
from ridgeline.store.rewind import checked_mark


def run_from(manifest: Any, directory: Path, packs: Packs, check: Callable[[Checked], bool]) -> DiskRunData | None:
    """The run ``manifest`` describes (see :func:`load_run`), as a replica reads it: None when it is not a
    manifest of this format, names a file that is missing or damaged, or belongs in another directory."""
    data = load_run(manifest, directory, packs, check) if isinstance(manifest, dict) else None
    if data is None or run_directory_name(data.name) != directory.name:
        return None
    return data


def _checked(column: Checked) -> bool:
    return column.verify()


class PackReader:
    """The writer's check on open (:meth:`ColumnFile.verify`), each pack read once for all the runs it holds."""

    def __init__(self) -> None:
        self._packs: dict[Path, bytes | None] = {}

    def __call__(self, column: Checked) -> bool:
        if not isinstance(column, PackPart):
            return column.verify()
        if column.path not in self._packs:
            try:
                self._packs[column.path] = column.path.read_bytes()
            except OSError:
                self._packs[column.path] = None
        data = self._packs[column.path]
        if data is None or column.start < 0 or column.start + column.length > len(data):
            return False
        return bool(crc32c(memoryview(data)[column.start : column.start + column.length]) == column.crc)


def load_run(
    manifest: dict[str, Any], directory: Path, packs: Packs, check: Callable[[Checked], bool] = _checked
) -> DiskRunData | None:
    """The run a manifest describes, its columns checked by ``check`` (the writer's :meth:`ColumnFile.verify`
    trims what no manifest committed; a replica's reads only); None when anything is off (the run is read again)."""
    try:
        if manifest.get("format") != FORMAT or not native_little_endian():
            return None
        data = DiskRunData(
            str(manifest["name"]), directory=directory, reading=_safe_name(manifest["reading"]), packs=packs
        )
        for step in manifest["restart_log"]:
            data.restart_log.append(int(step))
        for number, start, length, crc in manifest["packed"]:
            data.parts[int(number)] = PackPart(packs.path(int(number)), int(number), int(start), int(length), int(crc))
        if not all(check(part) for part in data.parts.values()):
            return None
        base = f"{os.fspath(directory)}{os.sep}{data.reading}-"
        for entry in manifest["scalars"]:
            number = next(data._series_numbers)
            own = None if entry["own"] is None else _own(directory, entry["own"], check)
            segments = tuple(_segment(segment, data.parts) for segment in entry["segments"])
            last_step = entry["last_step"]
            data.scalars[str(entry["tag"])] = DiskScalarSeries(
                f"{base}{number}",
                packs,
                own=own,
                segments=segments,
                restart_log=data.restart_log,
                restarts=SeriesRestarts.restored(data.restart_log, entry["restarts"]),
                increasing=bool(entry["increasing"]),
                last_step=None if last_step is None else int(last_step),
            )
        _load_blobs(data, manifest, check)
        data.marks = {str(path): checked_mark(mark) for path, mark in manifest["marks"]}
        data.first_wall_time = _float_or_none(manifest["first_wall_time"])
        data.last_wall_time = float(manifest["last_wall_time"])
        data._last_steps = {(_kind(kind), str(tag)): int(step) for kind, tag, step in manifest["last_steps"]}
        data._last_step_stale = True
        return data
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _segment(found: Any, parts: dict[int, PackPart]) -> tuple[int, int, int, int]:
    """A segment from a manifest, checked to lie inside the run's committed bytes of its pack (ValueError)."""
    pack, start, size, count = found
    part = parts[pack]  # KeyError: a pack the run does not name
    if type(start) is not int or type(size) is not int or type(count) is not int or min(size, count) < 0:
        raise ValueError("bad segment")
    if start < part.start or start + size > part.start + part.length:
        raise ValueError("segment outside the run's bytes of its pack")
    return (part.number, start, size, count)


def _load_blobs(data: DiskRunData, manifest: dict[str, Any], check: Callable[[Checked], bool]) -> None:
    paths = [str(path) for path in manifest["paths"]]
    data._paths = {path: number for number, path in enumerate(paths)}
    keys = [(_kind(entry["kind"]), str(entry["tag"])) for entry in manifest["blobs"]]
    spec = manifest["blob_table"]
    rows = np.zeros(0, dtype=BLOB_ROW)
    if spec is not None:
        data.blob_table = _column(data.directory, spec, BLOB_ROW)
        if not check(data.blob_table):
            raise ValueError("blob table damaged")
        rows = np.fromfile(data.blob_table.path, dtype=BLOB_ROW, count=data.blob_table.length)
    if len(rows) and (
        rows["series"].max() >= len(keys) or rows["path"].max() >= len(paths) or rows["series"].min() < 0
    ):
        raise ValueError("blob table refers to unknown series")
    for number, (key, entry) in enumerate(zip(keys, manifest["blobs"], strict=True)):
        mine = rows[rows["series"] == number]
        series = BlobSeries(max(len(mine), 1), restart_log=data.restart_log)
        series.extend(
            [
                BlobRef(
                    paths[row["path"]],
                    int(row["offset"]),
                    int(row["length"]),
                    int(row["value_index"]),
                    int(row["step"]),
                    float(row["wall_time"]),
                )
                for row in mine
            ]
        )
        series._restarts = SeriesRestarts.restored(data.restart_log, entry["restarts"])
        data.blobs[key] = series
        data._blob_series.append(key)
        data._blobs_written[key] = len(mine)


def _own(directory: Path, spec: dict[str, Any], check: Callable[[Checked], bool]) -> OwnFiles:
    """The checked files of a long series (ValueError when not intact)."""
    dtype = np.dtype(str(spec["value_dtype"]))
    if dtype not in (np.dtype("<f4"), np.dtype("<f8")):
        raise ValueError(f"unknown value dtype {dtype}")
    own = OwnFiles(
        _column(directory, spec["step"], BYTES),
        _column(directory, spec["wall_time"], BYTES),
        _column(directory, spec["value"], dtype),
        _column(directory, spec["lod"], BLOCK),
    )
    if own.lod.length != own.value.length // BLOCK_POINTS or not all(check(column) for column in own.files()):
        raise ValueError("damaged columns")
    return own


def _column(directory: Path, spec: dict[str, Any], dtype: np.dtype[Any]) -> ColumnFile:
    return ColumnFile(directory / _safe_name(spec["file"]), dtype, int(spec["length"]), int(spec["crc"]))


def _safe_name(name: Any) -> str:
    """A file name from a manifest: one plain name inside the run's directory, nothing else."""
    text = str(name)
    if not text or "/" in text or "\\" in text or text.startswith(".") or "\0" in text:
        raise ValueError(f"bad file name {text!r}")
    return text


def _kind(kind: Any) -> Kind:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    return kind  # type: ignore[no-any-return]


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)
