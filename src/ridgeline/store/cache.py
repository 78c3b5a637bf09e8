"""The persistent cache that makes a restart over an unchanged log directory near-instant.

It lives outside the log directory (never written into): ``$RIDGELINE_CACHE_DIR``, else
``$XDG_CACHE_HOME/ridgeline``, else ``~/.cache/ridgeline``, one file per set of log directories and reading
options. The file is a pickle (numpy arrays inside pickle protocol 5 load at memory speed) written atomically;
it is only ever read back by the user who wrote it, from their own cache directory. A file from another
ridgeline version, or one that fails to load, is ignored and rewritten.

What is cached, and when an entry is trusted, is decided by the ingest layer (``Ingestor``): this module only
stores and loads.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from ridgeline._version import __version__

FORMAT = 3  # 2: RunData keeps its first wall time, last steps and epoch; 3: one restart log per run


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


class Cache:
    """Loads and saves one pickled snapshot per key."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.pickle"

    def load(self, key: str) -> Any | None:
        path = self._path(key)
        try:
            with open(path, "rb") as file:
                header, payload = pickle.load(file)
        except FileNotFoundError:
            return None
        except Exception:  # a cache from another version or a torn file: start over
            return None
        if header != (FORMAT, __version__):
            return None
        return payload

    def save(self, key: str, payload: Any) -> None:
        """Write atomically; a cache that cannot be written is not an error (the next start reads again)."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.directory, prefix=".tmp-", delete=False) as file:
                pickle.dump(((FORMAT, __version__), payload), file, protocol=5)
                temporary = file.name
            os.replace(temporary, self._path(key))
        except OSError:
            return
