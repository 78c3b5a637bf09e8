"""Reading a stored run back (:func:`load_run`): from its manifest, its packed bytes and its column files, each
checked first (see :mod:`ridgeline.store.disk`); anything off and the run is not loaded but read again."""

from __future__ import annotations

import contextlib
import itertools
import mmap
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
from ridgeline.store.series import ScalarSeries


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
    """The writer's check on open (:meth:`ColumnFile.verify`), each pack mapped once for all the runs it holds
    (read whole, an 83 MB pack took 0.12–0.35 s and as much anonymous memory; mapped, 0.02 s and none).
    :meth:`close` drops the mappings."""

    def __init__(self) -> None:
        self._packs: dict[Path, mmap.mmap | bytes | None] = {}

    def __call__(self, column: Checked) -> bool:
        if not isinstance(column, PackPart):
            return column.verify()
        if column.path not in self._packs:
            self._packs[column.path] = _mapped(column.path)
        data = self._packs[column.path]
        if data is None or column.start < 0 or column.start + column.length > len(data):
            return False
        with memoryview(data) as view:
            return bool(crc32c(view[column.start : column.start + column.length]) == column.crc)

    def close(self) -> None:
        for data in self._packs.values():
            if isinstance(data, mmap.mmap):
                with contextlib.suppress(BufferError):  # a view still held: the mapping goes with it
                    data.close()
        self._packs.clear()


def _mapped(path: Path) -> mmap.mmap | bytes | None:
    """A pack's bytes, mapped read-only (an empty file: no bytes); None when it cannot be opened."""
    try:
        with open(path, "rb") as file:
            if os.fstat(file.fileno()).st_size == 0:
                return b""
            return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None


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
        data.unbuilt = StoredScalars.checked(manifest["scalars"], data, check)
        data._series_numbers = itertools.count(len(manifest["scalars"]))
        _load_blobs(data, manifest, check)
        data.marks = {str(path): checked_mark(mark) for path, mark in manifest["marks"]}
        data.first_wall_time = _float_or_none(manifest["first_wall_time"])
        data.last_wall_time = float(manifest["last_wall_time"])
        data._last_steps = {(_kind(kind), str(tag)): int(step) for kind, tag, step in manifest["last_steps"]}
        data._last_step_stale = True
        return data
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


class StoredScalars:
    """A loaded run's scalar series, checked as its manifest lists them and built on first use (see
    :mod:`ridgeline.store.disk_run`): the check allocates next to nothing, the build is what it replaces."""

    __slots__ = ("_base", "_entries", "_log", "_own", "_packs", "_parts", "lengths")

    def __init__(
        self, entries: list[Any], data: DiskRunData, own: dict[int, OwnFiles], lengths: tuple[tuple[str, int], ...]
    ) -> None:
        self._entries = entries
        self._base = f"{os.fspath(data.directory)}{os.sep}{data.reading}-"
        self._packs = data.packs
        self._parts = data.parts
        self._log = data.restart_log
        self._own = own
        self.lengths = lengths

    @classmethod
    def checked(cls, entries: Any, data: DiskRunData, check: Callable[[Checked], bool]) -> StoredScalars:
        """The manifest's ``scalars`` entries, every one checked as :meth:`build` reads it (KeyError, TypeError,
        ValueError when one is off); a long series' files checked by ``check``."""
        if type(entries) is not list:
            raise TypeError("scalars is not a list")
        parts, logged = data.parts, len(data.restart_log)
        own: dict[int, OwnFiles] = {}
        lengths = []
        for index, entry in enumerate(entries):
            points = 0
            for segment in entry["segments"]:
                points += _segment_points(segment, parts)
            if entry["own"] is not None:
                files = own[index] = _own(data.directory, entry["own"], check)
                points = files.value.length
            restarts = entry["restarts"]
            if len(restarts) == 2:  # the usual case, checked as SeriesRestarts.restored checks it
                if not 0 <= int(restarts[0]) <= int(restarts[1]) <= logged:
                    raise ValueError("restart spans do not fit the run's restart log")
            else:
                SeriesRestarts.restored(data.restart_log, restarts)
            bool(entry["increasing"])
            if entry["last_step"] is not None:
                int(entry["last_step"])
            lengths.append((str(entry["tag"]), points))
        return cls(entries, data, own, tuple(lengths))

    @property
    def own(self) -> list[OwnFiles]:
        return list(self._own.values())

    def build(self) -> dict[str, ScalarSeries]:
        scalars: dict[str, ScalarSeries] = {}
        for index, entry in enumerate(self._entries):
            last_step = entry["last_step"]
            scalars[str(entry["tag"])] = DiskScalarSeries(
                f"{self._base}{index}",
                self._packs,
                own=self._own.get(index),
                segments=tuple(_segment(segment, self._parts) for segment in entry["segments"]),
                restart_log=self._log,
                restarts=SeriesRestarts.restored(self._log, entry["restarts"]),
                increasing=bool(entry["increasing"]),
                last_step=None if last_step is None else int(last_step),
            )
        return scalars


def _segment_points(found: Any, parts: dict[int, PackPart]) -> int:
    """The points of a segment from a manifest, checked as :func:`_segment` checks it."""
    return _segment(found, parts)[3]


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
