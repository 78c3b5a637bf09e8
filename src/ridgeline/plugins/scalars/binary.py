"""The compact binary form of ``POST /api/scalars/batch``: a small JSON header, then raw float64 columns.

At a thousand series of a thousand points the JSON answer is about 77 MB (17-digit numbers, ~77 bytes a point)
and costs more to build and parse than to send; the binary answer is 40 bytes a point (5 columns x 8 bytes), is
written with one copy per column, and a browser reads it as ``Float64Array`` views over the response buffer,
without parsing a single number.

Layout (every integer little-endian)::

    bytes 0..3   b"RLSB"                      magic
    bytes 4..7   uint32 H                     length of the header, padded with spaces so that (8 + H) % 8 == 0
    bytes 8..    H bytes of UTF-8 JSON        {"series": [entry, ...]} in request order
    then         the columns, float64 LE      for each entry in order, for each name in its "arrays", n values

An entry is ``{"run", "tag", "n", "reduced", "total_points", "nonfinite", "arrays"}`` (``arrays`` lists the
columns that follow, in order: ``step``, ``wall_time``, ``value``, then ``band_low`` and ``band_high`` when
reduced), or ``{"run", "tag", "error", "n": 0, "arrays": []}`` for an unknown pair. Every column is 8-byte
aligned in the body. Steps travel as float64, which is exact for steps below 2**53; NaN and ±Inf travel as
themselves, and ``nonfinite`` is the same list as in the JSON form.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson

MAGIC = b"RLSB"
MEDIA_TYPE = "application/octet-stream"
COLUMNS = ("step", "wall_time", "value", "band_low", "band_high")
_FLOAT64_LE = np.dtype("<f8")


def encode_batch(entries: list[dict[str, Any]]) -> bytes:
    """The binary answer for ``entries``: each ``series_payload`` plus ``run`` and ``tag``, or an error entry
    (``run``, ``tag``, ``error``)."""
    header: list[dict[str, Any]] = []
    columns: list[memoryview] = []
    for entry in entries:
        if "error" in entry:
            header.append({"run": entry["run"], "tag": entry["tag"], "error": entry["error"], "n": 0, "arrays": []})
            continue
        names = [name for name in COLUMNS if name in entry]
        header.append(
            {
                "run": entry["run"],
                "tag": entry["tag"],
                "n": len(entry["step"]),
                "reduced": entry["reduced"],
                "total_points": entry["total_points"],
                "nonfinite": entry["nonfinite"],
                "arrays": names,
            }
        )
        columns.extend(np.ascontiguousarray(entry[name], dtype=_FLOAT64_LE).data for name in names)
    head = orjson.dumps({"series": header})
    head += b" " * (-(8 + len(head)) % 8)
    prefix = MAGIC + len(head).to_bytes(4, "little")
    # bytes.join takes any contiguous buffer: one copy of each column into the answer.
    return b"".join([prefix, head, *columns])


def decode_batch(body: bytes) -> list[dict[str, Any]]:
    """The entries of a binary answer with their columns as numpy arrays (for tests and Python clients)."""
    if body[:4] != MAGIC:
        raise ValueError("not a ridgeline binary scalars answer (bad magic)")
    size = int.from_bytes(body[4:8], "little")
    entries: list[dict[str, Any]] = orjson.loads(body[8 : 8 + size])["series"]
    offset = 8 + size
    for entry in entries:
        for name in entry["arrays"]:
            entry[name] = np.frombuffer(body, dtype=_FLOAT64_LE, count=entry["n"], offset=offset)
            offset += 8 * entry["n"]
    if offset != len(body):
        raise ValueError(f"binary answer has {len(body) - offset} trailing bytes")
    return entries
