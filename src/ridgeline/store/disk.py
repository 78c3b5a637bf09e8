"""The on-disk columnar store: the :class:`~ridgeline.store.run.Store` ingest fills, kept in a directory.

Layout (format :data:`FORMAT`; see docs/store.md)::

    DIR/store.json                   {"format": 5, "byteorder": "little"}: another format is rebuilt, never read
    DIR/writer.lock                  held by the one process writing the store
    DIR/problems.json                what could not be read from the log directories
    DIR/manifests/<0-f>.json.gz      every run's manifest, in 16 shards (:mod:`ridgeline.store.manifests`):
                                     the run's name, its series (packed segments, or column files; committed
                                     lengths and CRC32C, restart marks), its facts and ingest's resume state
    DIR/packs/<n>.segments           the segments of the short series of every run one pass wrote, each run's
                                     bytes end to end (one file a pass, written once: ``packs.Packs``)
    DIR/runs/<sha256 of name>/<reading>-<n>.step | .wall_time | .value4 (or .value8) | .lod
                                     one long series: encoded steps and wall times, float32 (or float64)
                                     values raw, level-of-detail blocks (see ``own_files``, ``lod``)
    DIR/runs/<...>/<reading>.blobs   every non-scalar record of the run: which series, which file, where
                                     (a run's directory exists only once it has a long series or a record)

Scalar points are appended to their column files as ingest reads them (:mod:`ridgeline.store.disk_series`) and
read back as mappings of those files; a run's manifest (in its shard) is rewritten at the end of each ingest
pass that changed the run (:meth:`DiskStore.checkpoint`). What a manifest says is what is there: on open, every
column is cut back to its committed length and checked against its CRC, and a run that fails is dropped and read
again from its event files (:mod:`ridgeline.store.disk_load`). References to non-scalar records (small: images
stay in their event files) are held in memory. A run and its manifest: :mod:`ridgeline.store.disk_run`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ridgeline.store.background import BackgroundWrite
from ridgeline.store.base import Problem
from ridgeline.store.collect import long_lived
from ridgeline.store.disk_load import PackReader, load_run, run_from
from ridgeline.store.disk_run import FORMAT, DiskRunData, run_directory_name
from ridgeline.store.disk_series import DiskScalarSeries, Staged, stage_all, write_staged
from ridgeline.store.files import StoreError, WriterLock, native_little_endian, private_directory, read_json, write_json
from ridgeline.store.manifests import DIRECTORY, SHARDS, read_shard, shard_of, shard_path, to_json, write_shard
from ridgeline.store.packs import Packs
from ridgeline.store.rewind import earliest, mark_of, remove_reading, rewound
from ridgeline.store.run import RunData, Store

__all__ = ["FORMAT", "DiskRunData", "DiskStore", "StoreError", "header", "run_from"]


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
        self._writing = BackgroundWrite()  # write_pending's
        if found != header():
            write_json(self.directory / "store.json", header())

    def close(self) -> None:
        """Release the writer lock (the store stays on disk for the next open), once a write under way is done."""
        try:
            self._writing.wait()
        finally:
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
        self._writing.wait()  # the background write may hold the run this one replaces
        if not isinstance(data, DiskRunData):
            data = self._written_out(data)
        previous = self.runs.get(data.name)
        if isinstance(previous, DiskRunData) and previous is not data:
            previous.release()
        super().replace_run(data)

    def drop_run(self, name: str) -> None:
        self._writing.wait()
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
        self._writing.wait()
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
        self._writing.wait()
        runs = self._write_pending()
        try:
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
            raise self._unwritable(error) from error
        self._remove_unused_packs()

    def write_pending(self, runs: Sequence[str]) -> None:
        """Write the pending points of ``runs`` into a new pack (their series show them once written), committing
        no manifest, in the background: what ingest calls between runs of a long pass, for the runs read since
        the last call, so that a cold pass over more points than memory holds keeps at most about two batches
        pending (:data:`ridgeline.ingest.loop.PENDING_RECORDS` each), while it reads on. The manifests name the
        packs at the next :meth:`checkpoint`, which waits for the write; a pack written by a process killed before
        then is deleted at the next checkpoint. A write that fails raises its StoreError (as :meth:`checkpoint`)
        from the next call or checkpoint; the points stay pending."""
        names = list(runs)
        self._writing.start(lambda: self._write_pending(names))

    def _write_pending(self, names: Sequence[str] | None = None) -> list[tuple[str, DiskRunData]]:
        """(OSError as StoreError) The pending points of ``names`` (default every run's) written into one pack."""
        chosen = list(self.runs.items()) if names is None else [(name, self.runs.get(name)) for name in names]
        runs = [(name, data) for name, data in chosen if isinstance(data, DiskRunData)]
        try:
            # Every short series encoded at once (one numpy pass, not 20,000 small ones), and written into one new
            # pack, each run's segments end to end. The collector kept out: its full passes over the pass's objects
            # freed nothing (2 s of a 35 s cold build at 100M points).
            with long_lived():
                staged = stage_all([series for _, data in runs for series in data.written_series()])
            by_series: dict[int, list[Staged]] = {}
            for one in staged:
                by_series.setdefault(id(one.series), []).append(one)
            groups = [
                [one for series in data.written_series() for one in by_series.get(id(series), ())] for _, data in runs
            ]
            for (_, data), found in zip(runs, write_staged(self.packs, groups), strict=True):
                data.add_parts([found])
        except StoreError:
            raise
        except OSError as error:
            raise self._unwritable(error) from error
        return runs

    def _unwritable(self, error: OSError) -> StoreError:
        return StoreError(
            error.errno,
            f"store {str(self.directory)!r} cannot be written ({error.strerror or error}): the points read since "
            "are kept in memory and not shown until it can; free space or choose another cache directory",
        )

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
        check = PackReader()
        try:
            with long_lived():
                return self._stored_runs(check)
        finally:
            check.close()

    def _stored_runs(self, check: PackReader) -> dict[str, tuple[RunData, Any]]:
        found: dict[str, tuple[RunData, Any]] = {}
        for shard in SHARDS:
            entries = read_shard(shard_path(self.directory, shard), FORMAT)
            if entries is None:
                if shard_path(self.directory, shard).exists():
                    self._dirty.add(shard)  # damaged: written again without its runs
                continue
            for key, manifest in entries.items():
                data = (
                    load_run(manifest, self._runs_directory / str(key), self.packs, check)
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


def _problem(entry: Any) -> Problem | None:
    try:
        path, offset, reason = entry
        return Problem(str(path), None if offset is None else int(offset), str(reason))
    except (TypeError, ValueError):
        return None


def _remove_others(directory: Path, data: DiskRunData) -> None:
    """Delete what the manifest does not name: files of a reading that never got its manifest written."""
    keep: set[str] = set()
    for own in data.own_files():
        keep.update(column.path.name for column in own.files())
    if data.blob_table is not None:
        keep.add(data.blob_table.path.name)
    for path in directory.iterdir():
        if path.name not in keep:
            with contextlib.suppress(OSError):
                path.unlink()
