"""The on-disk backend of the :class:`~ridgeline.store.provider.Provider` protocol.

Answers readers as the in-memory backend does (:class:`~ridgeline.store.memory.MemoryProvider`: the data model and
its change tokens are the same), over a :class:`~ridgeline.store.disk.DiskStore`: scalar series are mappings of
their column files, so resident memory follows what is read, not what is stored.
"""

from __future__ import annotations

from pathlib import Path

from ridgeline.store.disk import DiskStore
from ridgeline.store.memory import Loader, MemoryProvider


class DiskProvider(MemoryProvider):
    """A Provider over a :class:`DiskStore` that ``loader`` keeps current."""

    def __init__(self, store: DiskStore, loader: Loader, *, restored_runs: int = 0) -> None:
        super().__init__(store, loader)
        self._disk = store
        self._restored_runs = restored_runs

    @property
    def directory(self) -> Path:
        """Where the store is."""
        return self._disk.directory

    @property
    def restored_runs(self) -> int:
        """How many runs the opening pass took from the store (the rest were read from their event files)."""
        return self._restored_runs

    def close(self) -> None:
        """Stop background passes and release the store's writer lock (the store stays for the next open)."""
        self.stop()
        self._disk.close()
