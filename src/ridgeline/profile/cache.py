"""Parsed traces kept in the cache directory, so a trace of gigabytes is parsed once.

One folder per trace version, named by a hash of the trace's absolute path, size and modification time and of
:data:`FORMAT`: its columns as ``.npy`` files (loaded with ``allow_pickle=False`` and memory-mapped, so nothing is
ever unpickled and a loaded trace costs page cache, not heap) and its tables in ``tables.json``. The folder is
written under a temporary name and renamed into place, files ``0600`` in a ``0700`` folder. A folder that fails to
load is ignored (the trace is parsed again).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

import numpy as np
import orjson

from ridgeline.profile.columns import Lane, Trace

FORMAT = 1
_GROUPS = ("spans", "memory", "kernels")


def trace_key(path: str | Path) -> str:
    """What names a trace's cached columns: ``<path hash>-<version hash>``, the version being its size and
    modification time (a rewritten file reparses, and its older versions are dropped when the new one is saved)."""
    stat = os.stat(path)
    where = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:24]
    version = hashlib.sha256(f"{stat.st_size}\0{stat.st_mtime_ns}\0{FORMAT}".encode()).hexdigest()[:16]
    return f"{where}-{version}"


def _write(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)


def save(directory: Path, key: str, trace: Trace) -> None:
    """Keep ``trace`` under ``directory``; a cache that cannot be written is not an error."""
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=directory))  # mkdtemp makes it 0700
    except OSError:
        return
    try:
        for group in _GROUPS:
            for name, column in getattr(trace, group).items():
                descriptor = os.open(staging / f"{group}.{name}.npy", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "wb") as file:
                    np.save(file, np.ascontiguousarray(column), allow_pickle=False)
        tables = {
            "names": trace.names,
            "cats": trace.cats,
            "shapes": trace.shapes,
            "kernel_text": trace.kernel_text,
            "lanes": [asdict(lane) for lane in trace.lanes],
            "header": trace.header,
            "notes": trace.notes,
            "counts": trace.counts,
            "columns": {group: list(getattr(trace, group)) for group in _GROUPS},
        }
        _write(staging / "tables.json", orjson.dumps(tables, default=str))
        target = directory / key
        try:
            os.rename(staging, target)
        except OSError:  # another process cached it first
            shutil.rmtree(staging, ignore_errors=True)
        where = key.split("-")[0]
        for older in directory.glob(f"{where}-*"):
            if older.name != key:
                shutil.rmtree(older, ignore_errors=True)
    except (OSError, TypeError):
        shutil.rmtree(staging, ignore_errors=True)


def load(directory: Path, key: str) -> Trace | None:
    """The cached trace of ``key``, memory-mapped, or None when there is none (or it cannot be read)."""
    folder = directory / key
    try:
        tables = orjson.loads((folder / "tables.json").read_bytes())
        groups = {
            group: {name: np.load(folder / f"{group}.{name}.npy", mmap_mode="r", allow_pickle=False) for name in names}
            for group, names in tables["columns"].items()
        }
        return Trace(
            spans=groups["spans"],
            memory=groups["memory"],
            kernels=groups["kernels"],
            names=tables["names"],
            cats=tables["cats"],
            shapes=tables["shapes"],
            kernel_text=tables["kernel_text"],
            lanes=[Lane(**lane) for lane in tables["lanes"]],
            header=tables["header"],
            notes=tables["notes"],
            counts=tables["counts"],
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
