"""Scalars to CSV (one row per point), JSON lines (one object per series) or Parquet (one long table)."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ridgeline.store.logdir import LogDir

COLUMNS = ("run", "tag", "step", "wall_time", "value")


def write_scalars(
    logdir: LogDir,
    series: list[tuple[str, str]],
    output: Path,
    output_format: str,
    *,
    all_points: bool = False,
    advance: Callable[[], None] = lambda: None,
) -> int:
    """Write the listed (run, tag) series; returns the number of points written."""
    if output_format == "parquet":
        return _parquet(logdir, series, output, all_points, advance)
    points = 0
    with open(output, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file) if output_format == "csv" else None
        if writer is not None:
            writer.writerow(COLUMNS)
        for run, tag in series:
            data = logdir.scalars(run, tag, all_points=all_points)
            if writer is not None:
                writer.writerows(
                    (run, tag, step, repr(wall), repr(value))
                    for step, wall, value in zip(
                        data.step.tolist(), data.wall_time.tolist(), data.value.tolist(), strict=True
                    )
                )
            else:
                record = {
                    "run": run,
                    "tag": tag,
                    "step": data.step.tolist(),
                    "wall_time": data.wall_time.tolist(),
                    "value": [_json_number(v) for v in data.value.tolist()],
                }
                file.write(json.dumps(record, allow_nan=False) + "\n")
            points += len(data)
            advance()
    return points


def _json_number(value: float) -> float | str:
    """JSON has no NaN or infinity: they are written as the strings "NaN", "Infinity", "-Infinity"."""
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _parquet(
    logdir: LogDir, series: list[tuple[str, str]], output: Path, all_points: bool, advance: Callable[[], None]
) -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:
        raise ImportError("--format parquet needs pyarrow: pip install 'ridgeline[parquet]'") from error
    tables = []
    for run, tag in series:
        data = logdir.scalars(run, tag, all_points=all_points)
        tables.append(
            pa.table(
                {
                    "run": pa.array([run] * len(data), pa.string()).dictionary_encode(),
                    "tag": pa.array([tag] * len(data), pa.string()).dictionary_encode(),
                    "step": data.step,
                    "wall_time": data.wall_time,
                    "value": data.value,
                }
            )
        )
        advance()
    schema = pa.schema(
        [
            ("run", pa.dictionary(pa.int32(), pa.string())),
            ("tag", pa.dictionary(pa.int32(), pa.string())),
            ("step", pa.int64()),
            ("wall_time", pa.float64()),
            ("value", pa.float64()),
        ]
    )
    table = pa.concat_tables(tables) if tables else schema.empty_table()
    pq.write_table(table, output)
    return int(table.num_rows)
