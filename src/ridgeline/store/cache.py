"""Where the on-disk store lives by default, and which store a set of log directories uses.

The store (:mod:`ridgeline.store.disk`) lives outside the log directory (never written into):
``$RIDGELINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ridgeline``, else ``~/.cache/ridgeline``, one store per set of log
directories and reading options. The cache directory is created 0700 and refused when another user owns it or
everyone may write into it. Pickle files of earlier versions found there are deleted: nothing is unpickled.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ridgeline.store.disk import FORMAT, DiskStore
from ridgeline.store.files import StoreError, private_directory


def default_cache_dir() -> Path:
    configured = os.environ.get("RIDGELINE_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ridgeline"


def cache_key(sources: list[tuple[str | None, str]], options: dict[str, Any]) -> str:
    """A stable name for one set of log directories (absolute local paths, URLs as given) and options."""
    normalised = [(name, path if "://" in path else os.path.abspath(path)) for name, path in sources]
    text = json.dumps({"sources": normalised, "options": options, "format": FORMAT}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def open_store(
    sources: list[tuple[str | None, str]], options: dict[str, Any], cache_dir: str | os.PathLike[str] | None = None
) -> DiskStore | None:
    """The store of these log directories in ``cache_dir`` (default :func:`default_cache_dir`).

    None when another process is writing it (the caller then reads into memory); StoreError when the cache
    directory is not safe to use.
    """
    directory = private_directory(Path(cache_dir) if cache_dir is not None else default_cache_dir())
    for old in directory.glob("*.pickle"):  # the pickle cache of earlier versions
        with contextlib.suppress(OSError):
            old.unlink()
    try:
        return DiskStore(directory / f"store-{cache_key(sources, options)}")
    except StoreError as error:
        if error.errno == errno.EBUSY:
            return None
        raise
