"""A run of the on-disk store (:mod:`ridgeline.store.disk`): its scalar series on disk, its records' table, and
the manifest that commits them (see docs/store.md).

A run loaded from its manifest (:func:`ridgeline.store.disk_load.load_run`) is checked whole when the store
opens, but its scalar series are built when the run is first read or appended to (:attr:`DiskRunData.scalars`):
a warm start over 1,000 runs of 10 series no longer builds 10,000 series objects, most of which nobody reads
before the next restart. What the store needs of every run meanwhile (tags, lengths, own files) comes from what
was checked (:class:`Unbuilt`).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ridgeline.store.disk_series import DiskScalarSeries, stage_all, write_staged
from ridgeline.store.files import ColumnFile, PackPart, private_directory
from ridgeline.store.own_files import OwnFiles
from ridgeline.store.packs import PackRange, Packs
from ridgeline.store.rewind import Mark
from ridgeline.store.run import RunData, SeriesKey
from ridgeline.store.series import ScalarSeries

FORMAT = 5  # 1: raw columns, no level of detail; 2: plain-JSON manifests; 3: a directory, packed file, manifest a run;
# 4: overlapping pieces where a column's stride changed (unreadable: such a store is rebuilt)

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

_BUILD_LOCK = threading.Lock()  # held while a loaded run's series are built (rare: one lock for all runs)


class Unbuilt(Protocol):
    """A loaded run's scalar series as its manifest lists them, checked but not built yet."""

    @property
    def lengths(self) -> tuple[tuple[str, int], ...]:
        """Each series' tag and points, in the manifest's order."""

    @property
    def own(self) -> list[OwnFiles]:
        """The checked files of its long series."""

    def build(self) -> dict[str, ScalarSeries]:
        """The series (checked already: this does not fail)."""


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
    unbuilt: Unbuilt | None = field(default=None, repr=False)  # a loaded run's series, until first used
    _prefix: str | None = field(default=None, repr=False)  # what its series' own files are named after, but a number

    @property  # type: ignore[misc]  # the field RunData declares, built on first use here
    def scalars(self) -> dict[str, ScalarSeries]:
        """The run's scalar series (a loaded run's built on first use, by whichever thread asks first)."""
        if self.unbuilt is not None:
            with _BUILD_LOCK:
                unbuilt = self.unbuilt
                if unbuilt is not None:
                    self._scalars = unbuilt.build()
                    self.unbuilt = None  # published once the series are in place
        return self._scalars

    @scalars.setter
    def scalars(self, value: dict[str, ScalarSeries]) -> None:
        self._scalars = value

    def scalar_tags(self) -> list[str]:
        unbuilt = self.unbuilt
        return [tag for tag, _ in unbuilt.lengths] if unbuilt is not None else list(self._scalars)

    def own_files(self) -> list[OwnFiles]:
        """The own files of its long series (what :meth:`DiskStore.stored_runs` keeps in its directory)."""
        unbuilt = self.unbuilt
        if unbuilt is not None:
            return unbuilt.own
        return [s.own for s in list(self._scalars.values()) if isinstance(s, DiskScalarSeries) and s.own is not None]

    def scalar_series(self, tag: str) -> ScalarSeries:
        series = self.scalars.get(tag)
        if series is None:
            prefix = self._prefix
            if prefix is None:
                prefix = self._prefix = f"{os.fspath(self.directory)}{os.sep}{self.reading}-"
            base = f"{prefix}{next(self._series_numbers)}"
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

    def written_series(self) -> list[DiskScalarSeries]:
        """:meth:`disk_series` when they are built; none before (none has a point to write until then)."""
        return [] if self.unbuilt is not None else self.disk_series()

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
        """What the manifest depends on, cheaply: equal signatures mean an unchanged manifest. ``resume`` is
        kept as it is (compared by value, and first by identity: ingest hands an unchanged run's state back as
        the same object), not as its repr (a thousand reprs of every tag's metadata were a tenth of a warm
        start)."""
        return (
            # A START changes the log's length; the span a series keeps for it is taken when it next appends.
            len(self.restart_log),
            len(self.marks),
            tuple(self.parts),
            self._scalar_lengths(),
            tuple((key, len(s)) for key, s in list(self.blobs.items())),
            self.first_wall_time,
            self.last_wall_time,
            resume,
        )

    def _scalar_lengths(self) -> tuple[tuple[str, int], ...]:
        unbuilt = self.unbuilt
        if unbuilt is not None:
            return unbuilt.lengths
        return tuple((tag, len(s)) for tag, s in list(self._scalars.items()))

    def release(self) -> None:
        for series in self.written_series():
            series.release()


def run_directory_name(name: str) -> str:
    """The directory under ``runs/`` of the run called ``name`` (and its key in its manifest shard)."""
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]
