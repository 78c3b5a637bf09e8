"""The on-disk columnar store: the :class:`~ridgeline.store.run.Store` ingest fills, kept in a directory.

Layout (format :data:`FORMAT`; see docs/store.md)::

    DIR/store.json                   {"format": 4, "byteorder": "little"}: another format is rebuilt, never read
    DIR/writer.lock                  held by the one process writing the store
    DIR/problems.json                what could not be read from the log directories
    DIR/manifests/<0-f>.json.gz      every run's manifest, in 16 shards (:mod:`ridgeline.store.manifests`):
                                     the run's name, its series (packed segments, or column files; committed
                                     lengths and CRC32C, restart marks), its facts and ingest's resume state
    DIR/packs/<n>.segments           the segments of the short series of every run one pass wrote, each run's
                                     bytes end to end (one file a pass, written once: ``disk_series.Packs``)
    DIR/runs/<sha256 of name>/<reading>-<n>.step | .wall_time | .value4 (or .value8) | .lod
                                     one long series: encoded steps and wall times, float32 (or float64)
                                     values raw, level-of-detail blocks (see ``disk_series``, ``lod``)
    DIR/runs/<...>/<reading>.blobs   every non-scalar record of the run: which series, which file, where
                                     (a run's directory exists only once it has a long series or a record)

Scalar points are appended to their column files as ingest reads them (:mod:`ridgeline.store.disk_series`) and
read back as mappings of those files; a run's manifest (in its shard) is rewritten at the end of each ingest
pass that changed the run (:meth:`DiskStore.checkpoint`). What a manifest says is what is there: on open, every
column is cut back to its committed length and checked against its CRC, and a run that fails is dropped and read
again from its event files. References to non-scalar records (small: images stay in their event files) are held
in memory.
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

from ridgeline.format.records import crc32c
from ridgeline.store.base import KINDS, BlobRef, Kind, Problem
from ridgeline.store.blobs import BlobSeries
from ridgeline.store.disk_series import (
    BYTES,
    DiskScalarSeries,
    OwnFiles,
    PackRange,
    Packs,
    Staged,
    stage_all,
    write_staged,
)
from ridgeline.store.files import (
    Checked,
    ColumnFile,
    PackPart,
    StoreError,
    WriterLock,
    native_little_endian,
    private_directory,
    read_json,
    write_json,
)
from ridgeline.store.lod import BLOCK, BLOCK_POINTS
from ridgeline.store.manifests import DIRECTORY, SHARDS, read_shard, shard_of, shard_path, to_json, write_shard
from ridgeline.store.restarts import SeriesRestarts
from ridgeline.store.rewind import Mark, checked_mark, earliest, mark_of, remove_reading, rewound
from ridgeline.store.run import RunData, SeriesKey, Store
from ridgeline.store.series import ScalarSeries

FORMAT = 4  # 1: raw columns, no level of detail; 2: plain-JSON manifests; 3: a directory, packed file, manifest a run

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
    packs: Packs = field(default_factory=lambda: Packs(Path("packs")))  # the store's
    parts: dict[int, PackPart] = field(default_factory=dict, repr=False)  # pack number -> this run's bytes there
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
            series = self.scalars[tag] = DiskScalarSeries(base, self.packs, restart_log=self.restart_log)
        return series

    def flush(self) -> None:
        """Write every series' pending points (the short ones' in a pack of their own: the store's checkpoint
        writes every run's into one) and the records met since the last flush."""
        self.add_parts(write_staged(self.packs, [stage_all(self.disk_series())]))
        self.flush_blobs()

    def add_parts(self, ranges: list[PackRange | None]) -> None:
        for found in ranges:
            if found is not None:
                number, start, length, crc = found
                self.parts[number] = PackPart(self.packs.path(number), number, start, length, crc)

    def flush_blobs(self) -> None:
        """Write the records met since the last flush into the run's blob table."""
        rows = self._new_blob_rows()
        if len(rows):
            if self.blob_table is None:
                private_directory(self.directory)
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
        used = {segment[0] for series in self.disk_series() for segment in series.segments}
        self.parts = {number: part for number, part in self.parts.items() if number in used}
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
            "packed": [part.describe() for part in self.parts.values()],
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
            tuple(self.parts),
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
            for name in ("runs", DIRECTORY, "packs"):
                shutil.rmtree(self.directory / name, ignore_errors=True)
            with contextlib.suppress(FileNotFoundError):
                (self.directory / "problems.json").unlink()
        private_directory(self._runs_directory)
        private_directory(self.directory / DIRECTORY)
        packs = private_directory(self.directory / "packs")
        numbers = [_pack_number(entry.name) for entry in os.scandir(packs)]
        self.packs = Packs(packs, max([n for n in numbers if n is not None], default=-1) + 1)
        self._entries: dict[str, str | dict[str, Any]] = {}  # run directory -> its committed manifest
        self._packs_used: dict[str, set[int]] = {}  # run directory -> the packs its committed manifest names
        self._dirty: set[str] = set()  # shards to write at the next checkpoint
        if found != header():
            write_json(self.directory / "store.json", header())

    def close(self) -> None:
        """Release the writer lock (the store stays on disk for the next open)."""
        self._writer.release()

    # --- what ingest appends to ---------------------------------------------------------------------------------
    def run(self, name: str) -> RunData:
        data = self.runs.get(name)
        if data is None:
            data = self.runs[name] = self._new_run(name)
        return data

    def _new_run(self, name: str, **fields: Any) -> DiskRunData:
        return DiskRunData(name, directory=self._run_directory(name), packs=self.packs, **fields)

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
        self._uncommit(name)

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
        fresh = self._new_run(run)
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
            # Every short series of the pass encoded at once (one numpy pass, not 20,000 small ones), and
            # written into one new pack, each run's segments end to end.
            staged = stage_all([series for _, data in runs for series in data.disk_series()])
            by_series: dict[int, list[Staged]] = {}
            for one in staged:
                by_series.setdefault(id(one.series), []).append(one)
            groups = [
                [one for series in data.disk_series() for one in by_series.get(id(series), ())] for _, data in runs
            ]
            for (_, data), found in zip(runs, write_staged(self.packs, groups), strict=True):
                data.add_parts([found])
            for name, data in runs:
                data.flush_blobs()
                state = resume.get(name)
                signature = data.signature(state)
                if signature != data._signature:
                    self._commit(data, data.manifest(state))
                    data._signature = signature
            self._write_shards()
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
        self._remove_unused_packs()

    def _commit(self, data: DiskRunData, manifest: dict[str, Any]) -> None:
        key = run_directory_name(data.name)
        self._entries[key] = to_json(manifest)
        self._packs_used[key] = set(data.parts)
        self._dirty.add(shard_of(key))

    def _uncommit(self, name: str) -> None:
        """Forget a run's manifest (its shard is written at the next checkpoint) and delete its directory."""
        key = run_directory_name(name)
        if self._entries.pop(key, None) is not None:
            self._dirty.add(shard_of(key))
        self._packs_used.pop(key, None)
        shutil.rmtree(self._runs_directory / key, ignore_errors=True)

    def _write_shards(self) -> None:
        for shard in sorted(self._dirty):
            entries = {
                key: entry if isinstance(entry, str) else to_json(entry)
                for key, entry in self._entries.items()
                if shard_of(key) == shard
            }
            write_shard(self.directory, shard, FORMAT, entries)
            self._dirty.discard(shard)

    def _remove_unused_packs(self) -> None:
        """Delete the packs no committed manifest names (a run read again, a series written again as one)."""
        used = set().union(*self._packs_used.values()) if self._packs_used else set()
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.packs.directory):
                number = _pack_number(entry.name)
                if number is not None and number not in used:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)

    # --- what a restart takes back ------------------------------------------------------------------------------
    def stored_runs(self) -> dict[str, tuple[RunData, Any]]:
        """Every run the store holds intact, with the resume state it was written with. Not yet in
        :attr:`runs`: ingest puts back (:meth:`replace_run`) those whose files are unchanged, drops the rest."""
        found: dict[str, tuple[RunData, Any]] = {}
        check = _PackReader()
        for shard in SHARDS:
            entries = read_shard(shard_path(self.directory, shard), FORMAT)
            if entries is None:
                if shard_path(self.directory, shard).exists():
                    self._dirty.add(shard)  # damaged: written again without its runs
                continue
            for key, manifest in entries.items():
                data = (
                    _run_from(manifest, self._runs_directory / str(key), self.packs, check)
                    if isinstance(manifest, dict)
                    else None
                )
                if data is None or run_directory_name(data.name) != key or data.name in found:
                    if isinstance(manifest, dict) and isinstance(manifest.get("name"), str):
                        self.rebuilt.append(manifest["name"])
                    self._dirty.add(shard)
                    continue
                assert isinstance(manifest, dict)
                data._signature = data.signature(manifest.get("resume"))
                found[data.name] = (data, manifest.get("resume"))
                self._entries[key] = manifest
                self._packs_used[key] = set(data.parts)
        self._remove_unnamed({run_directory_name(name): data for name, (data, _) in found.items()})
        stored = read_json(self.directory / "problems.json")
        if isinstance(stored, list):
            self.add_problems([_problem(entry) for entry in stored if _problem(entry) is not None])  # type: ignore[misc]
            self._problems_written = len(self.problems())
        return found

    def _remove_unnamed(self, runs: Mapping[str, RunData]) -> None:
        """Delete what no manifest names: run directories, files of a reading that never got its manifest
        written, packs of a pass cut short."""
        for entry in os.scandir(self._runs_directory):
            data = runs.get(entry.name)
            if not isinstance(data, DiskRunData):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                _remove_others(Path(entry.path), data)
        self._remove_unused_packs()

    def forget(self, name: str) -> None:
        """Delete a stored run that was not put back (its files changed)."""
        if name not in self.runs:
            self._uncommit(name)

    # --- helpers ------------------------------------------------------------------------------------------------
    def _run_directory(self, name: str) -> Path:
        return self._runs_directory / run_directory_name(name)

    def _written_out(self, data: RunData) -> DiskRunData:
        shutil.rmtree(self._run_directory(data.name), ignore_errors=True)
        disk = self._new_run(data.name, restart_log=data.restart_log)
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


def run_from(manifest: Any, directory: Path, packs: Packs, check: Callable[[Checked], bool]) -> DiskRunData | None:
    """The run ``manifest`` describes (see :func:`_run_from`), as a replica reads it: None when it is not a
    manifest of this format, names a file that is missing or damaged, or belongs in another directory."""
    data = _run_from(manifest, directory, packs, check) if isinstance(manifest, dict) else None
    if data is None or run_directory_name(data.name) != directory.name:
        return None
    return data


def run_directory_name(name: str) -> str:
    """The directory under ``runs/`` of the run called ``name`` (and its key in its manifest shard)."""
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def header() -> dict[str, Any]:
    """What ``store.json`` holds in a store this version reads."""
    return {"format": FORMAT, "byteorder": "little" if native_little_endian() else "big"}


def _pack_number(name: str) -> int | None:
    stem, _, suffix = name.partition(".")
    if suffix != "segments" or len(stem) != 16:
        return None
    try:
        return int(stem, 16)
    except ValueError:
        return None


def _checked(column: Checked) -> bool:
    return column.verify()


class _PackReader:
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


def _run_from(
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


def _problem(entry: Any) -> Problem | None:
    try:
        path, offset, reason = entry
        return Problem(str(path), None if offset is None else int(offset), str(reason))
    except (TypeError, ValueError):
        return None


def _remove_others(directory: Path, data: DiskRunData) -> None:
    """Delete what the manifest does not name: files of a reading that never got its manifest written."""
    keep: set[str] = set()
    for series in data.scalars.values():
        if isinstance(series, DiskScalarSeries) and series.own is not None:
            keep.update(column.path.name for column in series.own.files())
    if data.blob_table is not None:
        keep.add(data.blob_table.path.name)
    for path in directory.iterdir():
        if path.name not in keep:
            with contextlib.suppress(OSError):
                path.unlink()
