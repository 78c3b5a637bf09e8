"""Where the on-disk store lives by default, and which store a set of log directories uses.

The store (:mod:`ridgeline.store.disk`) lives outside the log directory (never written into):
``$RIDGELINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ridgeline``, else ``~/.cache/ridgeline``, one store per set of log
directories and reading options. The cache directory is created 0700 and refused when another user owns it or
everyone may write into it. Pickle files of earlier versions found there are deleted: nothing is unpickled. So
are the stores of older formats: the key includes the format, so nothing would open them again, and each could
hold gigabytes.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from ridgeline.store.disk import FORMAT, DiskStore
from ridgeline.store.files import StoreError, WriterLock, private_directory, read_json, write_json
from ridgeline.store.replica import SOURCES_FILE


def default_cache_dir() -> Path:
    configured = os.environ.get("RIDGELINE_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ridgeline"


def cache_key(sources: list[tuple[str | None, str]], options: dict[str, Any]) -> str:
    """A stable name for one set of log directories (absolute local paths, URLs as given) and options."""
    normalised = _absolute(sources)
    text = json.dumps({"sources": normalised, "options": options, "format": FORMAT}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def open_store(
    sources: list[tuple[str | None, str]],
    options: dict[str, Any],
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    store: str | os.PathLike[str] | None = None,
) -> DiskStore | None:
    """The store of these log directories in ``cache_dir`` (default :func:`default_cache_dir`), or in the
    directory ``store`` itself (``--store DIR``: the user's choice, where replicas read it).

    None when another process is writing it (the caller then reads into memory); StoreError when the directory
    is not safe to use, or when ``store`` is being written by another indexer (refused: a user who named the
    store expects this process to keep it current).
    """
    if store is not None:
        try:
            opened = DiskStore(Path(store))
        except StoreError as error:
            if error.errno != errno.EBUSY:
                raise
            raise StoreError(
                error.errno,
                f"{error}: read it without writing as a replica (`ridgeline serve --store {store}` without "
                f"--logdir, or ridgeline.open(store={str(store)!r}))",
            ) from None
        label = ",".join(f"{name}:{path}" if name else path for name, path in _absolute(sources))
        described = {"logdir": label, "sources": [list(source) for source in _absolute(sources)]}
        if read_json(opened.directory / SOURCES_FILE) != described:
            write_json(opened.directory / SOURCES_FILE, described)
        return opened
    directory = private_directory(Path(cache_dir) if cache_dir is not None else default_cache_dir())
    for old in directory.glob("*.pickle"):  # the pickle cache of earlier versions
        with contextlib.suppress(OSError):
            old.unlink()
    _remove_older_stores(directory)
    try:
        return DiskStore(directory / f"store-{cache_key(sources, options)}")
    except StoreError as error:
        if error.errno == errno.EBUSY:
            return None
        raise


def _remove_older_stores(directory: Path) -> None:
    """Delete the stores in the cache ``directory`` that an older format wrote, unless a process still writes one
    (an older ridgeline, running): its writer lock is taken first. A newer format's store is left alone."""
    with os.scandir(directory) as entries:
        found = [
            entry.path for entry in entries if entry.name.startswith("store-") and entry.is_dir(follow_symlinks=False)
        ]
    for path in found:
        described = read_json(Path(path) / "store.json")
        version = described.get("format") if isinstance(described, dict) else None
        if type(version) is not int or version >= FORMAT:
            continue
        try:
            lock = WriterLock(Path(path))
        except (StoreError, OSError):
            continue
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            lock.release()


def _absolute(sources: list[tuple[str | None, str]]) -> list[tuple[str | None, str]]:
    return [(name, path if "://" in path else os.path.abspath(path)) for name, path in sources]
