"""The on-disk backend of the :class:`~ridgeline.store.provider.Provider` protocol.

Answers readers as the in-memory backend does (:class:`~ridgeline.store.memory.MemoryProvider`: the data model and
its change tokens are the same), over a :class:`~ridgeline.store.disk.DiskStore`: scalar series are mappings of
their column files, so resident memory follows what is read, not what is stored.

Values stored as float32 (every ``simple_value``) are widened to float64 by :meth:`DiskProvider.scalars`, the
protocol's dtype, which every consumer computes in; :meth:`DiskProvider.indexed_scalars` hands out the column as
stored (zero-copy), with its level-of-detail pyramid, for the reduced chart answer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from ridgeline.store.disk import DiskStore
from ridgeline.store.disk_series import DiskScalarSeries
from ridgeline.store.lod import IndexedScalars
from ridgeline.store.memory import Loader, MemoryProvider
from ridgeline.store.provider import Scalars, UnknownSeries
from ridgeline.store.replica import Replica
from ridgeline.store.run import Store

T = TypeVar("T")


class DiskProvider(MemoryProvider):
    """A Provider over a :class:`DiskStore` that ``loader`` keeps current, or over the runs a read-only replica
    (:class:`~ridgeline.store.replica.Replica`, ``directory``) reads from a store another process writes."""

    def __init__(self, store: Store, loader: Loader, *, restored_runs: int = 0, directory: Path | None = None) -> None:
        super().__init__(store, loader)
        self._disk = store
        self._restored_runs = restored_runs
        if directory is None:
            assert isinstance(store, DiskStore), "a replica's provider names its directory"
            directory = store.directory
        self._directory = directory

    @property
    def directory(self) -> Path:
        """Where the store is."""
        return self._directory

    @property
    def loader(self) -> Loader:
        """What keeps the runs current: ingest writing the store, or a replica reading it."""
        return self._loader

    @property
    def restored_runs(self) -> int:
        """How many runs the opening pass took from the store (the rest were read from their event files)."""
        return self._restored_runs

    def scalars(self, run: str, tag: str, *, all_points: bool = False) -> Scalars:
        found = self._again(lambda: super(DiskProvider, self).scalars(run, tag, all_points=all_points))
        if found.value.dtype == np.float64:
            return found
        value = found.value.astype(np.float64)  # exact: every float32 is a float64
        value.flags.writeable = False
        return Scalars(found.step, found.wall_time, value)

    def indexed_scalars(self, run: str, tag: str) -> IndexedScalars | None:
        """The series with its level-of-detail index, when it has one and every point of it is visible (a long
        series: 64k points or more); None otherwise (read :meth:`scalars`)."""

        def read() -> IndexedScalars | None:
            data = self._run(run)
            series = data.scalars.get(tag)
            if series is None:
                raise UnknownSeries(f"run {run!r} has no scalar tag {tag!r}; it has: {sorted(data.scalars)}")
            return series.indexed() if isinstance(series, DiskScalarSeries) else None

        return self._again(read)

    def _again(self, read: Callable[[], T]) -> T:
        """``read()``; on a replica, once more after a reload when a file it read was gone: the indexer replaced
        the run (a rewind, a rebuild) and deleted the files of the reading this replica last read."""
        try:
            return read()
        except FileNotFoundError:
            if not isinstance(self._loader, Replica):
                raise
        self._loader.reload()
        return read()

    def close(self) -> None:
        """Stop background passes and release the store's writer lock (the store stays for the next open)."""
        self.stop()
        if isinstance(self._disk, DiskStore):
            self._disk.close()
