"""Scalars as a Parquet dataset other tools read directly: DuckDB, Polars, Spark, Trino, pyarrow.

The long table ``(run, tag, step, wall_time, value)`` of every visible point, partitioned by run the way those
tools expect (Hive style, the run name URI-encoded)::

    OUT/run=exp1/<sha256 of tag>.parquet          columns tag, step, wall_time, value: one scalar series
    OUT/run=sweep%2Flr%3D0.1/....parquet           run "sweep/lr=0.1"
    OUT/_ridgeline_dataset.json                   what each file holds (to bring the dataset up to date)

:func:`update_dataset` keeps it current incrementally: a series whose points did not change keeps its file, a
changed one is rewritten (atomically: readers see the old file or the new one), a series or run that is gone
loses its file. Steps are delta-encoded, floats byte-stream-split and zstd-compressed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from ridgeline.store.logdir import LogDir
    from ridgeline.store.provider import Scalars

STATE_FILE = "_ridgeline_dataset.json"
FORMAT = 1


@dataclass(frozen=True)
class DatasetUpdate:
    """What one :func:`update_dataset` did."""

    written: int  # series files (re)written
    kept: int  # series files left as they were
    removed: int  # series files of series or runs that are gone
    points: int  # points in the dataset after the update


def partition_name(run: str) -> str:
    """The directory of a run's files: ``run=`` and the name URI-encoded (slashes too), as Hive expects."""
    return "run=" + quote(run, safe="")


def update_dataset(logdir: LogDir, output: str | os.PathLike[str]) -> DatasetUpdate:
    """Bring the dataset at ``output`` up to date with ``logdir``'s scalars (see the module docstring)."""
    try:
        import pyarrow  # noqa: F401
    except ImportError as error:
        raise ImportError("a Parquet dataset needs pyarrow: pip install 'ridgeline[parquet]'") from error
    root = Path(output)
    root.mkdir(parents=True, exist_ok=True)
    state = _read_state(root)
    files: dict[str, dict[str, Any]] = {}
    written = kept = points = 0
    for run in logdir.runs():
        for tag in logdir.tags(run).get("scalars", []):
            series = logdir.scalars(run, tag)
            relative = f"{partition_name(run)}/{hashlib.sha256(tag.encode()).hexdigest()[:24]}.parquet"
            token = _token(series)
            points += len(series)
            if state.get(relative, {}).get("token") == token and (root / relative).exists():
                files[relative] = state[relative]
                kept += 1
                continue
            _write_series(root / relative, tag, series)
            files[relative] = {"run": run, "tag": tag, "token": token}
            written += 1
    removed = _remove_stale(root, set(state) - set(files))
    _write_state(root, files)
    return DatasetUpdate(written, kept, removed, points)


def _token(series: Scalars) -> list[Any]:
    """What identifies a series' visible points cheaply: their count and the first and last point."""
    n = len(series)
    if n == 0:
        return [0]
    ends = [[int(series.step[i]), float(series.wall_time[i]), repr(float(series.value[i]))] for i in (0, n - 1)]
    return [n, *ends, hashlib.blake2b(series.step.tobytes() + series.value.tobytes(), digest_size=8).hexdigest()]


def _write_series(path: Path, tag: str, series: Scalars) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "tag": pa.array([tag] * len(series), pa.string()).dictionary_encode(),
            "step": pa.array(series.step, pa.int64()),
            "wall_time": pa.array(series.wall_time, pa.float64()),
            "value": pa.array(series.value, pa.float64()),
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    pq.write_table(
        table,
        temporary,
        compression="zstd",
        use_dictionary=["tag"],
        column_encoding={"step": "DELTA_BINARY_PACKED", "wall_time": "BYTE_STREAM_SPLIT", "value": "BYTE_STREAM_SPLIT"},
    )
    os.replace(temporary, path)


def _remove_stale(root: Path, stale: set[str]) -> int:
    for relative in stale:
        with contextlib.suppress(OSError):
            (root / relative).unlink()
    for directory in root.glob("run=*"):
        if directory.is_dir() and not any(directory.iterdir()):
            shutil.rmtree(directory, ignore_errors=True)
    return len(stale)


def _read_state(root: Path) -> dict[str, Any]:
    try:
        state = json.loads((root / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(state, dict) or state.get("format") != FORMAT or not isinstance(state.get("files"), dict):
        return {}
    return {key: value for key, value in state["files"].items() if isinstance(value, dict)}


def _write_state(root: Path, files: dict[str, dict[str, Any]]) -> None:
    temporary = root / f".tmp-{os.getpid()}-{STATE_FILE}"
    temporary.write_text(json.dumps({"format": FORMAT, "files": files}, sort_keys=True))
    os.replace(temporary, root / STATE_FILE)
