"""Projected coordinates with their metadata as a file: CSV (streamed) or Parquet (pyarrow, the ``parquet`` extra).

Columns: ``index`` (the point's row in tensors.tsv), ``x``, ``y`` (and ``z``), then every metadata column as
text. Points left out of the projection (NaN/Inf vectors) have empty coordinates.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import numpy as np

from ridgeline.plugins.projector.dataset import Dataset

AXES = ("x", "y", "z")
_ROWS_PER_CHUNK = 20_000


def csv_chunks(data: Dataset, coordinates: np.ndarray) -> Iterator[bytes]:
    names = ["index", *AXES[: coordinates.shape[1]], *(c.name for c in data.columns)]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    for start in range(0, len(coordinates), _ROWS_PER_CHUNK):
        end = min(start + _ROWS_PER_CHUNK, len(coordinates))
        block = coordinates[start:end]
        texts = [["" if not np.isfinite(v) else repr(float(v)) for v in axis] for axis in block.T]
        metadata = [[column.values[code] for code in column.codes[start:end].tolist()] for column in data.columns]
        writer.writerows(zip(range(start, end), *texts, *metadata, strict=True))
        yield buffer.getvalue().encode("utf-8")
        buffer.seek(0)
        buffer.truncate()
    rest = buffer.getvalue()
    if rest:
        yield rest.encode("utf-8")


def parquet_bytes(data: Dataset, coordinates: np.ndarray) -> bytes:
    """The table as Parquet; ImportError when pyarrow is not installed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, pa.Array] = {"index": pa.array(np.arange(len(coordinates), dtype=np.int64))}
    for axis, name in enumerate(AXES[: coordinates.shape[1]]):
        values = coordinates[:, axis].astype(np.float32)
        columns[name] = pa.array(values, mask=~np.isfinite(values))
    for column in data.columns:
        dictionary = pa.DictionaryArray.from_arrays(pa.array(column.codes, type=pa.int32()), pa.array(column.values))
        columns[column.name if column.name not in columns else f"meta_{column.name}"] = dictionary
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue()
