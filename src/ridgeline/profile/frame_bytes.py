"""A timeline frame (:func:`ridgeline.profile.timeline.window`) as compact bytes: what the timeline page asks for
while zooming (``GET /api/profile/timeline?format=binary``), read into typed arrays with no number to parse.

Every integer little-endian:

- bytes 0-3: the magic ``RLTF``; bytes 4-7: uint32 ``H``, the header's length;
- ``H`` bytes of UTF-8 JSON, padded with spaces so that ``8 + H`` is a multiple of 8: the JSON answer's fields
  but the rows' arrays (``extent``, ``lanes``, ``start``, ``end``, ``names``, ...), with ``rows`` as
  ``[{"lane", "depth", "spans", "blocks"}]`` (how many spans and blocks each row has) and ``spans`` and
  ``blocks``, their totals;
- then the columns, each the rows' values one row after the other: ``ts`` and ``dur`` (float64, ``spans``
  each), ``blocks`` (float64, ``3 * blocks``: from, to, busy fraction of each block), ``ids`` (uint32) and
  ``name`` (int32 codes into ``names``), so every column is aligned to its item's size.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import orjson

MAGIC = b"RLTF"
MEDIA_TYPE = "application/octet-stream"
_HEAD = struct.Struct("<4sI")


def encode(answer: dict[str, Any]) -> bytes:
    """``answer`` (the JSON answer's dict: ``rows`` of numpy arrays and ``blocks``) as the binary form."""
    rows = answer["rows"]
    header = {key: value for key, value in answer.items() if key != "rows"}
    header["rows"] = [
        {"lane": row["lane"], "depth": row["depth"], "spans": len(row["ids"]), "blocks": len(row["blocks"])}
        for row in rows
    ]
    header["spans"] = sum(r["spans"] for r in header["rows"])
    header["blocks"] = sum(r["blocks"] for r in header["rows"])
    text = orjson.dumps(header, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)
    text += b" " * (-(_HEAD.size + len(text)) % 8)

    def column(key: str, dtype: type[np.generic], shape: tuple[int, ...] = ()) -> bytes:
        if not rows:
            return b""
        return np.concatenate([np.asarray(row[key], dtype).reshape((-1, *shape)) for row in rows]).tobytes()

    return b"".join(
        (
            _HEAD.pack(MAGIC, len(text)),
            text,
            column("ts", np.float64),
            column("dur", np.float64),
            column("blocks", np.float64, (3,)),
            column("ids", np.uint32),
            column("name", np.int32),
        )
    )


def decode(data: bytes) -> dict[str, Any]:
    """The binary form read back into the JSON answer's shape (lists): what the tests compare."""
    magic, length = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise ValueError("not a binary timeline frame")
    header: dict[str, Any] = orjson.loads(data[_HEAD.size : _HEAD.size + length])
    offset = _HEAD.size + length
    spans, blocks = header["spans"], header["blocks"]
    columns = {}
    for key, dtype, count in (
        ("ts", np.float64, spans),
        ("dur", np.float64, spans),
        ("blocks", np.float64, 3 * blocks),
        ("ids", np.uint32, spans),
        ("name", np.int32, spans),
    ):
        columns[key] = np.frombuffer(data, dtype, count, offset)
        offset += columns[key].nbytes
    if offset != len(data):
        raise ValueError("a binary timeline frame of the wrong length")
    rows, at, block_at = [], 0, 0
    for row in header["rows"]:
        n, m = row["spans"], row["blocks"]
        rows.append(
            {
                "lane": row["lane"],
                "depth": row["depth"],
                **{key: columns[key][at : at + n].tolist() for key in ("ids", "ts", "dur", "name")},
                "blocks": columns["blocks"][3 * block_at : 3 * (block_at + m)].reshape(-1, 3).tolist(),
            }
        )
        at, block_at = at + n, block_at + m
    del header["spans"], header["blocks"]
    return {**header, "rows": rows}
