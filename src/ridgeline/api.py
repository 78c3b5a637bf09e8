"""The reading API: a log directory as numpy arrays (and pandas, if installed).

import ridgeline
logdir = ridgeline.open("runs")
s = logdir.scalars("exp1", "loss/train")      # s.step, s.wall_time, s.value

``open`` wires ingest to a backend behind the provider protocol; what it returns, a
:class:`~ridgeline.store.logdir.LogDir`, reads through that protocol only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ridgeline.ingest.discovery import LogDirError, sources_from
from ridgeline.ingest.loop import Ingestor
from ridgeline.store.cache import default_cache_dir, open_store
from ridgeline.store.disk_provider import DiskProvider
from ridgeline.store.logdir import Entry, LogDir
from ridgeline.store.memory import MemoryProvider
from ridgeline.store.provider import Scalars

__all__ = ["Entry", "LogDir", "LogDirError", "Scalars", "open"]


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
    sources = sources_from(logdir)
    store = open_store([(s.name, s.path) for s in sources], {"check_crc": check_crc}, cache_dir) if cache else None
    ingestor = Ingestor(sources, check_crc=check_crc, parallel=parallel, store=store)
    restored, _ = ingestor.load(progress)
    # What else is cached (parsed profiler traces) goes where the store is, and nowhere without ``cache``.
    caches = (Path(cache_dir) if cache_dir is not None else default_cache_dir()) if cache else None
    if store is not None:
        return LogDir(DiskProvider(store, ingestor, restored_runs=restored), cache_dir=caches)
    return LogDir(MemoryProvider(ingestor.store, ingestor), cache_dir=caches)
