"""The on-disk columnar store: the :class:`~ridgeline.store.run.Store` ingest fills, kept in a directory.

Layout (format :data:`FORMAT`; see docs/store.md)::

    DIR/store.json                   {"format": 3, "byteorder": "little"}: another format is rebuilt, never read
    DIR/writer.lock                  held by the one process writing the store
    DIR/problems.json                what could not be read from the log directories
    DIR/runs/<sha256 of name>/manifest.json.gz
                                     gzip'd JSON: the run's name, its series (column files, committed lengths,
                                     CRC32C, restart marks), its facts (first/last wall time, last steps) and
                                     ingest's resume state
    DIR/runs/<...>/<reading>-packed.segments
                                     the run's short series, one encoded segment per flush
    DIR/runs/<...>/<reading>-<n>.step | .wall_time | .value4 (or .value8) | .lod
                                     one long series: encoded steps and wall times, float32 (or float64)
                                     values raw, level-of-detail blocks (see ``disk_series``, ``lod``)
    DIR/runs/<...>/<reading>.blobs   every non-scalar record of the run: which series, which file, where

Scalar points are appended to their column files as ingest reads them (:mod:`ridgeline.store.disk_series`) and
read back as mappings of those files; a run's manifest is rewritten at the end of each ingest pass that changed
the run (:meth:`DiskStore.checkpoint`). What a manifest says is what is there: on open, every column is cut back
to its committed length and checked against its CRC, and a run that fails is dropped and read again from its
event files. References to non-scalar records (small: images stay in their event files) are held in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import secrets
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ridgeline.store.base import KINDS, BlobRef, Kind, Problem
from ridgeline.store.blobs import BlobSeries
from ridgeline.store.disk_series import BYTES, DiskScalarSeries, OwnFiles, PackedFile, Staged, stage_all
from ridgeline.store.files import (
    MANIFEST,
    ColumnFile,
    StoreError,
    WriterLock,
    native_little_endian,
    private_directory,
    read_json,
    read_manifest,
    write_json,
    write_manifest,
)
from ridgeline.store.lod import BLOCK, BLOCK_POINTS
from ridgeline.store.restarts import SeriesRestarts
from ridgeline.store.rewind import Mark, checked_mark, earliest, mark_of, remove_reading, rewound
from ridgeline.store.run import RunData, SeriesKey, Store
from ridgeline.store.series import ScalarSeries

FORMAT = 3  # 1: raw int64/float64/float64 columns, no level of detail; 2: manifests plain JSON

BLOB_ROW = np.dtype(
    [
        ("series", "<i4"),
        ("path", "<i4"),
        ("value_index", "<i4"),
        ("spare", "<i4"),
        ("offset", "<i8"),
        ("length", "<i8"),
        ("step", "<i8"),
        ("wall_time", "<f8"),
    ]
)

__all__ = ["FORMAT", "DiskRunData", "DiskStore", "StoreError", "header", "run_from"]


@dataclass
class DiskRunData(RunData):
    """A run whose scalar series are column files in ``directory`` (named after ``reading``, one per reading)."""

    directory: Path = field(default_factory=Path)
    reading: str = field(default_factory=lambda: secrets.token_hex(6))
    blob_table: ColumnFile | None = None
    packed: PackedFile | None = None
    _series_numbers: itertools.count[int] = field(default_factory=itertools.count, repr=False)
    _blob_series: list[SeriesKey] = field(default_factory=list, repr=False)
    _blobs_written: dict[SeriesKey, int] = field(default_factory=dict, repr=False)
    _paths: dict[str, int] = field(default_factory=dict, repr=False)
    marks: dict[str, Mark] = field(default_factory=dict, repr=False)  # see ridgeline.store.rewind
    _signature: Any = field(default=None, repr=False)

    def scalar_series(self, tag: str) -> ScalarSeries:
        series = self.scalars.get(tag)
        if series is None:
            base = os.path.join(self.directory, f"{self.reading}-{next(self._series_numbers)}")
            series = self.scalars[tag] = DiskScalarSeries(base, self.packed_columns(), restart_log=self.restart_log)
        return series

    def packed_columns(self) -> PackedFile:
        """The run's shared file, where its short series are written."""
        if self.packed is None:
            self.packed = PackedFile(ColumnFile(self.directory / f"{self.reading}-packed.segments", BYTES))
        return self.packed

    def flush(self, staged: list[Staged] | None = None) -> None:
        """Write every series' pending points and the records met since the last flush: the short series' new
        segments (``staged``: staged already, with other runs') in one write to the packed file (per-series
        writes were most of a store of many short series' build time), then published."""
        if staged is None:
            staged = stage_all(self.disk_series())
        if staged:
            packed = self.packed_columns()
            start = packed.file.length
            packed.file.append(np.frombuffer(b"".join(one.data for one in staged), BYTES))
            for one in staged:
                one.publish(start)
                start += len(one.data)
        rows = self._new_blob_rows()
        if len(rows):
            if self.blob_table is None:
                self.blob_table = ColumnFile(self.directory / f"{self.reading}.blobs", BLOB_ROW)
            self.blob_table.append(rows)
            for key, blobs in list(self.blobs.items()):
                self._blobs_written[key] = len(blobs)

    def disk_series(self) -> list[DiskScalarSeries]:
        return [series for series in list(self.scalars.values()) if isinstance(series, DiskScalarSeries)]

    def _new_blob_rows(self) -> np.ndarray:
        chunks = []
        for key, series in list(self.blobs.items()):
            written = self._blobs_written.get(key, 0)
            refs = series.snapshot()[written:]
            if not refs:
                continue
            if key not in self._blobs_written:
                self._blobs_written[key] = 0
                self._blob_series.append(key)
            rows = np.zeros(len(refs), dtype=BLOB_ROW)
            rows["series"] = self._blob_series.index(key)
            rows["path"] = [self._paths.setdefault(ref.path, len(self._paths)) for ref in refs]
            rows["value_index"] = [ref.value_index for ref in refs]
            rows["offset"] = [ref.offset for ref in refs]
            rows["length"] = [ref.length for ref in refs]
            rows["step"] = [ref.step for ref in refs]
            rows["wall_time"] = [ref.wall_time for ref in refs]
            chunks.append(rows)
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=BLOB_ROW)

    def manifest(self, resume: Any) -> dict[str, Any]:
        scalars: list[dict[str, Any]] = []
        for tag, series in list(self.scalars.items()):
            assert isinstance(series, DiskScalarSeries)
            own = series.own
            scalars.append(
                {
                    "tag": tag,
                    "own": None if own is None else own.describe(),
                    "segments": [list(segment) for segment in series.segments],
                    "restarts": series.restarts.state(),
                    "increasing": series.increasing,
                    "last_step": series.last_step,
                }
            )
        blobs = [
            {"kind": kind, "tag": tag, "restarts": self.blobs[(kind, tag)]._restarts.state()}
            for kind, tag in self._blob_series
        ]
        return {
            "format": FORMAT,
            "name": self.name,
            "reading": self.reading,
            "scalars": scalars,
            "blobs": blobs,
            "blob_table": self.blob_table.describe() if self.blob_table is not None else None,
            "packed": None if self.packed is None else self.packed.file.describe(),
            "paths": sorted(self._paths, key=self._paths.__getitem__),
            "first_wall_time": self.first_wall_time,
            "last_wall_time": self.last_wall_time,
            "last_steps": [[kind, tag, step] for (kind, tag), step in self._last_steps.items()],
            "restart_log": self.restart_log.steps(0, len(self.restart_log)).tolist(),
            "marks": [[path, mark] for path, mark in self.marks.items()],
            "resume": resume,
        }

    def signature(self, resume: Any) -> Any:
        """What the manifest depends on, cheaply: equal signatures mean an unchanged manifest."""
        return (
            # A START changes the log's length; the span a series keeps for it is taken when it next appends.
            len(self.restart_log),
            len(self.marks),
            tuple((tag, len(s)) for tag, s in list(self.scalars.items())),
            tuple((key, len(s)) for key, s in list(self.blobs.items())),
            self.first_wall_time,
            self.last_wall_time,
            repr(resume),
        )

    def release(self) -> None:
        for series in list(self.scalars.values()):
            if isinstance(series, DiskScalarSeries):
                series.release()


class DiskStore(Store):
    """A :class:`Store` kept in ``directory`` (see the module docstring); one process writes it at a time.

    Raises :class:`StoreError` when the directory is not safe to trust (another user's, writable by everyone)
    or another indexer holds it.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        super().__init__()
        self.directory = private_directory(Path(directory))
        self._writer = WriterLock(self.directory)
        self._runs_directory = self.directory / "runs"
        self.rebuilt: list[str] = []  # runs found damaged on open, dropped to be read again
        self._problems_written = 0
        found = read_json(self.directory / "store.json")
        if found != header():
            # Another format (or none yet): start empty, never read what this version does not know.
            shutil.rmtree(self._runs_directory, ignore_errors=True)
            with contextlib.suppress(FileNotFoundError):
                (self.directory / "problems.json").unlink()
        private_directory(self._runs_directory)
        if found != header():
            write_json(self.directory / "store.json", header())

    def close(self) -> None:
        """Release the writer lock (the store stays on disk for the next open)."""
        self._writer.release()

    # --- what ingest appends to ---------------------------------------------------------------------------------
    def run(self, name: str) -> RunData:
        data = self.runs.get(name)
        if data is None:
            data = self.runs[name] = DiskRunData(name, directory=private_directory(self._run_directory(name)))
        return data

    def replace_run(self, data: RunData) -> None:
        """Put a run read elsewhere in place; a run read into memory (a worker process) is written out first."""
        if not isinstance(data, DiskRunData):
            data = self._written_out(data)
        previous = self.runs.get(data.name)
        if isinstance(previous, DiskRunData) and previous is not data:
            previous.release()
        super().replace_run(data)

    def drop_run(self, name: str) -> None:
        data = self.runs.get(name)
        super().drop_run(name)
        if isinstance(data, DiskRunData):
            data.release()
        shutil.rmtree(self._run_directory(name), ignore_errors=True)

    def file_started(self, run: str, path: str, offsets: dict[str, int]) -> None:
        data = self.runs.get(run)
        if isinstance(data, DiskRunData) and path not in data.marks:
            data.marks[path] = mark_of(data, offsets)

    def rewind(self, run: str, paths: list[str]) -> dict[str, int] | None:
        """Take back what ``run`` gained since the first of ``paths`` began to be read (see
        :mod:`ridgeline.store.rewind`): the run is replaced by a new reading holding its points up to there."""
        data = self.runs.get(run)
        path = earliest(data, paths) if isinstance(data, DiskRunData) else None
        if path is None or not isinstance(data, DiskRunData):
            return None
        fresh = DiskRunData(run, directory=data.directory)
        try:
            data.flush()
            offsets = rewound(data, path, fresh)
        except OSError:  # a full disk: the caller reads the run again from scratch
            remove_reading(fresh)
            return None
        self.replace_run(fresh)
        remove_reading(data)
        return offsets

    def checkpoint(self, resume: Mapping[str, Any]) -> None:
        """Write every run's pending points, and the manifest of each run that changed, with ``resume[run]``:
        what ingest needs to continue where this pass stopped (JSON-able). OSError (a full disk) leaves what
        was committed before intact and the unwritten points pending."""
        try:
            runs = [(name, data) for name, data in list(self.runs.items()) if isinstance(data, DiskRunData)]
            # Every short series of the pass encoded at once (one numpy pass, not 20,000 small ones).
            staged = stage_all([series for _, data in runs for series in data.disk_series()])
            by_run: dict[int, list[Staged]] = {}
            for one in staged:
                by_run.setdefault(id(one.series), []).append(one)
            for name, data in runs:
                data.flush([one for series in data.disk_series() for one in by_run.get(id(series), ())])
                state = resume.get(name)
                signature = data.signature(state)
                if signature != data._signature:
                    write_manifest(data.directory / MANIFEST, data.manifest(state))
                    data._signature = signature
            problems = self.problems()
            if len(problems) != self._problems_written:
                write_json(self.directory / "problems.json", [[p.path, p.offset, p.reason] for p in problems])
                self._problems_written = len(problems)
        except StoreError:
            raise
        except OSError as error:
            raise StoreError(
                error.errno,
                f"store {str(self.directory)!r} cannot be written ({error.strerror or error}): the points read since "
                "are kept in memory and not shown until it can; free space or choose another cache directory",
            ) from error

    # --- what a restart takes back ------------------------------------------------------------------------------
    def stored_runs(self) -> dict[str, tuple[RunData, Any]]:
        """Every run the store holds intact, with the resume state it was written with. Not yet in
        :attr:`runs`: ingest puts back (:meth:`replace_run`) those whose files are unchanged, drops the rest."""
        found: dict[str, tuple[RunData, Any]] = {}
        for directory in sorted(self._runs_directory.iterdir()):
            manifest = read_manifest(directory / MANIFEST)
            data = _run_from(manifest, directory) if isinstance(manifest, dict) else None
            if data is None or self._run_directory(data.name) != directory or data.name in found:
                if isinstance(manifest, dict) and isinstance(manifest.get("name"), str):
                    self.rebuilt.append(manifest["name"])
                shutil.rmtree(directory, ignore_errors=True)
                continue
            _remove_others(directory, data)
            assert isinstance(manifest, dict)
            data._signature = data.signature(manifest.get("resume"))
            found[data.name] = (data, manifest.get("resume"))
        stored = read_json(self.directory / "problems.json")
        if isinstance(stored, list):
            self.add_problems([_problem(entry) for entry in stored if _problem(entry) is not None])  # type: ignore[misc]
            self._problems_written = len(self.problems())
        return found

    def forget(self, name: str) -> None:
        """Delete a stored run that was not put back (its files changed)."""
        if name not in self.runs:
            shutil.rmtree(self._run_directory(name), ignore_errors=True)

    # --- helpers ------------------------------------------------------------------------------------------------
    def _run_directory(self, name: str) -> Path:
        return self._runs_directory / run_directory_name(name)

    def _written_out(self, data: RunData) -> DiskRunData:
        directory = self._run_directory(data.name)
        shutil.rmtree(directory, ignore_errors=True)
        disk = DiskRunData(data.name, directory=private_directory(directory), restart_log=data.restart_log)
        for tag, series in data.scalars.items():
            snapshot = series.snapshot()
            target = disk.scalar_series(tag)
            assert isinstance(target, DiskScalarSeries)
            target.append(snapshot.step, snapshot.wall_time, snapshot.value)
            target._restarts = series._restarts  # its view of the same log (after the append: no new span)
        disk.flush()
        disk.blobs = data.blobs
        disk.first_wall_time, disk.last_wall_time = data.first_wall_time, data.last_wall_time
        disk._last_steps = dict(data._last_steps)
        disk._last_step_stale = True
        return disk


def run_from(manifest: Any, directory: Path, check: Callable[[ColumnFile], bool]) -> DiskRunData | None:
    """The run ``manifest`` describes (see :func:`_run_from`), as a replica reads it: None when it is not a
    manifest of this format, names a file that is missing or damaged, or belongs in another directory."""
    data = _run_from(manifest, directory, check) if isinstance(manifest, dict) else None
    if data is None or run_directory_name(data.name) != directory.name:
        return None
    return data


def run_directory_name(name: str) -> str:
    """The directory under ``runs/`` of the run called ``name``."""
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def header() -> dict[str, Any]:
    """What ``store.json`` holds in a store this version reads."""
    return {"format": FORMAT, "byteorder": "little" if native_little_endian() else "big"}


def _run_from(
    manifest: dict[str, Any], directory: Path, check: Callable[[ColumnFile], bool] = ColumnFile.verify
) -> DiskRunData | None:
    """The run a manifest describes, its columns checked by ``check`` (the writer's :meth:`ColumnFile.verify`
    trims what no manifest committed; a replica's reads only); None when anything is off (the run is read again)."""
    try:
        if manifest.get("format") != FORMAT or not native_little_endian():
            return None
        data = DiskRunData(str(manifest["name"]), directory=directory, reading=_safe_name(manifest["reading"]))
        for step in manifest["restart_log"]:
            data.restart_log.append(int(step))
        packed_length = 0
        if manifest["packed"] is not None:
            data.packed = PackedFile(_column(directory, manifest["packed"], BYTES))
            if not check(data.packed.file):
                return None
            packed_length = data.packed.file.length
        packed = data.packed_columns()
        for entry in manifest["scalars"]:
            number = next(data._series_numbers)
            own = None if entry["own"] is None else _own(directory, entry["own"], check)
            segments = tuple((int(start), int(size), int(count)) for start, size, count in entry["segments"])
            if any(min(segment) < 0 or segment[0] + segment[1] > packed_length for segment in segments):
                return None
            last_step = entry["last_step"]
            data.scalars[str(entry["tag"])] = DiskScalarSeries(
                os.path.join(directory, f"{data.reading}-{number}"),
                packed,
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


def _load_blobs(data: DiskRunData, manifest: dict[str, Any], check: Callable[[ColumnFile], bool]) -> None:
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


def _own(directory: Path, spec: dict[str, Any], check: Callable[[ColumnFile], bool]) -> OwnFiles:
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


def _problem(entry: Any) -> Problem | None:
    try:
        path, offset, reason = entry
        return Problem(str(path), None if offset is None else int(offset), str(reason))
    except (TypeError, ValueError):
        return None


def _remove_others(directory: Path, data: DiskRunData) -> None:
    """Delete what the manifest does not name: files of a reading that never got its manifest written."""
    keep = {MANIFEST}
    for series in data.scalars.values():
        if isinstance(series, DiskScalarSeries) and series.own is not None:
            keep.update(column.path.name for column in series.own.files())
    if data.packed is not None:
        keep.add(data.packed.file.path.name)
    if data.blob_table is not None:
        keep.add(data.blob_table.path.name)
    for path in directory.iterdir():
        if path.name not in keep:
            with contextlib.suppress(OSError):
                path.unlink()
