"""The reading API: a log directory as numpy arrays (and pandas, if installed).

import ridgeline
logdir = ridgeline.open("runs")
s = logdir.scalars("exp1", "loss/train")      # s.step, s.wall_time, s.value

``open`` wires ingest to a backend behind the provider protocol; what it returns, a
:class:`~ridgeline.store.logdir.LogDir`, reads through that protocol only.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from ridgeline.ingest.discovery import LogDirError, sources_from
from ridgeline.ingest.loop import Ingestor
from ridgeline.store.cache import default_cache_dir, open_store
from ridgeline.store.disk import DiskStore
from ridgeline.store.disk_provider import DiskProvider
from ridgeline.store.logdir import Entry, LogDir
from ridgeline.store.memory import MemoryProvider
from ridgeline.store.provider import Scalars

__all__ = ["Entry", "LogDir", "LogDirError", "Opening", "Scalars", "open", "opening"]


def open(
    logdir: str | os.PathLike[str] | list[str],
    *,
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    check_crc: bool = True,
    parallel: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> LogDir:
    """Read a log directory (or several: a list, ``a,b``, or ``name:path`` entries; local paths or fsspec URLs).

    Everything is read before this returns; ``LogDir.reload()`` reads what was appended since. With ``cache``
    (the default) what was read is kept in an on-disk store outside the log directory (``cache_dir``, default
    ``~/.cache/ridgeline``; see docs/store.md): scalar series are read from it as mapped files, and the next open
    reads only what changed. A cache directory another user owns, or anyone may write, is refused
    (``StoreError``, an OSError). ``check_crc=False`` skips the data checksums (lengths are still checked).
    ``progress(done, total)`` is called as event files are read (the CLI's progress bars). Raises
    ``LogDirError`` (a ValueError) naming the path when a log directory does not exist or is not a directory.
    """
    ingestor, store = _ingestor(logdir, cache, cache_dir, check_crc, parallel)
    restored, _ = ingestor.load(progress)
    if store is not None:
        return LogDir(DiskProvider(store, ingestor, restored_runs=restored), cache_dir=_caches(cache, cache_dir))
    return LogDir(MemoryProvider(ingestor.store, ingestor), cache_dir=_caches(cache, cache_dir))


def opening(
    logdir: str | os.PathLike[str] | list[str],
    *,
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    check_crc: bool = True,
    parallel: bool = True,
) -> Opening:
    """A log directory opened as :func:`open` opens it, but not read yet: :meth:`Opening.load` reads it while
    ``Opening.logdir`` already answers (what a server does to answer at once). Raises what ``open`` raises for a
    log directory or cache directory it cannot use."""
    ingestor, store = _ingestor(logdir, cache, cache_dir, check_crc, parallel)
    provider = MemoryProvider(ingestor.store, ingestor) if store is None else DiskProvider(store, ingestor)
    return Opening(LogDir(provider, cache_dir=_caches(cache, cache_dir)), ingestor)


def _caches(cache: bool, cache_dir: str | os.PathLike[str] | None) -> Path | None:
    """Where what else is cached (parsed profiler traces) goes: where the store is, and nowhere without cache."""
    return (Path(cache_dir) if cache_dir is not None else default_cache_dir()) if cache else None


class Opening:
    """A LogDir whose first pass is still to run (:func:`opening`).

    While :meth:`load` runs (in another thread), ``logdir`` lists each run once its reading began, and its
    ``generation`` moves after every run read; :meth:`state` says how far the pass got.
    """

    def __init__(self, logdir: LogDir, ingestor: Ingestor) -> None:
        self.logdir = logdir
        self._ingestor = ingestor
        self._cancel = threading.Event()
        self._files: tuple[int, int | None] = (0, None)
        self._loaded = threading.Event()

    def load(self, progress: Callable[[int, int], None] | None = None) -> LogDir:
        """Run the first pass (``progress(done, total)`` as event files are read) and return ``logdir``; ends
        early once :meth:`cancel` was called."""

        def step(done: int, total: int) -> None:
            self._files = (done, total)
            if progress is not None:
                progress(done, total)

        try:
            self._ingestor.load(step, cancel=self._cancel)
        finally:
            self._loaded.set()
        return self.logdir

    @property
    def loaded(self) -> bool:
        """Whether the first pass is over (finished, cancelled or failed)."""
        return self._loaded.is_set()

    def cancel(self) -> None:
        """End the first pass after the run it is reading (the server stopping while it loads)."""
        self._cancel.set()

    def state(self) -> dict[str, int | None] | None:
        """``{"files_read", "files", "runs"}`` while the first pass runs (``files`` None until the log directories
        were listed), None once it is over."""
        if self._loaded.is_set():
            return None
        done, total = self._files
        return {"files_read": done, "files": total, "runs": len(self.logdir.runs())}


def _ingestor(
    logdir: str | os.PathLike[str] | list[str],
    cache: bool,
    cache_dir: str | os.PathLike[str] | None,
    check_crc: bool,
    parallel: bool,
) -> tuple[Ingestor, DiskStore | None]:
    sources = sources_from(logdir)
    store = open_store([(s.name, s.path) for s in sources], {"check_crc": check_crc}, cache_dir) if cache else None
    return Ingestor(sources, check_crc=check_crc, parallel=parallel, store=store), store
