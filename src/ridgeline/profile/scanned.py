"""A batch of events read by the compiled scanner (``_scan.c``) instead of orjson's Python objects.

The scanner hands over, per event, local ids of the raw JSON text of ph, name, cat, pid, tid, "Input Dims",
"grid" and "block" (each table's distinct texts numbered in the order met) and the numeric fields as columns. Each
distinct text is decoded once here with orjson and goes through the builder's own code tables in the order its
first event came, so the columns, codes and their order are those the orjson path gives for the same batch. The
few events needing more than columns (``[memory]`` instants, ``M`` metadata) are parsed one by one with orjson.
When the scanner declines a batch (see ``_scan.c``: whatever it does not vouch for) the caller takes the orjson path.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

if TYPE_CHECKING:
    from ridgeline.profile.parse import _Builder
    from ridgeline.profile.split import Batch

_scan: ModuleType | None
try:
    from ridgeline.profile import _scan
except ImportError:  # not compiled (no C compiler when installed): the orjson path does everything
    _scan = None

AVAILABLE = _scan is not None
_PH, _NAME, _CAT, _PID, _TID, _DIMS, _GRID, _BLOCK = range(8)
_TS, _DUR, _REGISTERS, _SHARED, _OCCUPANCY, _BLOCKS_SM, _WARPS_SM, _ALLOCATED, _RESERVED, _BYTES = range(10)
_EXTERNAL, _CORRELATION, _DEVICE_TYPE, _DEVICE_ID = range(4)
_INT32 = np.iinfo(np.int32)
_ABSENT = object()


def _first_seen(ids: np.ndarray) -> np.ndarray:
    """The distinct values of ``ids``, in the order of their first occurrence."""
    if ids.size == 0:
        return ids
    distinct, first = np.unique(ids, return_index=True)
    return distinct[np.argsort(first, kind="stable")]


def _decoded(texts: list[bytes], ids: np.ndarray, default: Any) -> list[Any]:
    """The values of the distinct ``ids`` (-1: ``default``), decoded from their raw JSON."""
    return [default if i < 0 else orjson.loads(texts[i]) for i in ids.tolist()]


def _lookup(table: list[bytes], ids: np.ndarray, values: list[Any], codes: np.ndarray) -> np.ndarray:
    """``ids`` (-1 included) mapped through distinct ids -> codes."""
    lut = np.full(len(table) + 1, -1, dtype=np.int64)
    lut[np.asarray(values, dtype=np.int64) + 1] = codes
    return lut[ids + 1]


def add_scanned(builder: _Builder, batch: Batch) -> bool:
    """Add ``batch`` to ``builder`` through the scanner; False (nothing added) when the scanner declines it."""
    if _scan is None or batch.count == 0:
        return False
    scanned = _scan.scan(batch.body, batch.count)
    if scanned is None:
        return False
    tables, id_bytes, float_bytes, int_bytes = scanned
    count = batch.count
    ids = np.frombuffer(id_bytes, dtype=np.int32).reshape(8, count).astype(np.int64)
    floats = np.frombuffer(float_bytes, dtype=np.float64).reshape(10, count)
    ints = np.frombuffer(int_bytes, dtype=np.int64).reshape(4, count)
    memory, metadata = _others(tables, ids)
    try:
        metadata_events = [orjson.loads(batch.body[batch.offsets[i] : batch.ends[i]]) for i in metadata.tolist()]
    except orjson.JSONDecodeError:  # the scanner took what orjson does not: let orjson decide
        return False

    phase_ids = _first_seen(ids[_PH])
    phases = _decoded(tables[_PH], phase_ids, "?")
    phase_of = {i: p for i, p in zip(phase_ids.tolist(), phases, strict=True)}
    counts = np.bincount(ids[_PH] + 1, minlength=len(tables[_PH]) + 1)
    for i, p in phase_of.items():
        if p is None:  # "ph": null reads as no event at all on the orjson path
            builder.malformed += int(counts[i + 1])
        else:
            builder.phases[p if p.__class__ is str else "?"] += int(counts[i + 1])
    is_x = np.zeros(len(tables[_PH]) + 1, dtype=bool)
    is_x[[i + 1 for i, p in phase_of.items() if p == "X"]] = True
    complete = np.flatnonzero(is_x[ids[_PH] + 1])

    ts, dur = floats[_TS, complete], floats[_DUR, complete]
    unreadable = np.isnan(ts) | np.isnan(dur)
    negative = dur < 0
    builder.malformed += int(unreadable.sum())
    builder.negative += int((negative & ~unreadable).sum())
    keep = ~(unreadable | negative)
    if not keep.all():
        complete, ts, dur = complete[keep], ts[keep], dur[keep]
    chosen = ids[:, complete]
    first_row = builder.rows
    parts = builder.parts
    parts["ts"].append(ts)
    parts["dur"].append(dur)
    parts["name"].append(_codes(builder, "name", tables[_NAME], chosen[_NAME], ""))
    cats = _codes(builder, "cat", tables[_CAT], chosen[_CAT], "")
    parts["cat"].append(cats)
    parts["lane"].append(_lanes(builder, tables, chosen[_PID], chosen[_TID]))
    parts["offset"].append(batch.offsets[complete] + batch.base)
    parts["length"].append(batch.ends[complete] - batch.offsets[complete])
    parts["external_id"].append(ints[0, complete])
    parts["correlation"].append(ints[1, complete])
    distinct = _first_seen(chosen[_DIMS])
    dims = [None if d is None else orjson.dumps(d).decode() for d in _decoded(tables[_DIMS], distinct, None)]
    parts["shapes"].append(_lookup(tables[_DIMS], chosen[_DIMS], distinct.tolist(), builder._codes("shapes", dims)))
    builder.rows += int(complete.size)

    kernel_codes = [code for text, code in builder.codes["cat"].items() if text.lower() in ("kernel",)]
    rows = np.flatnonzero(np.isin(cats, kernel_codes))
    if rows.size:
        _kernels(builder, tables, chosen[:, rows], floats[:, complete[rows]], first_row + rows)
    if memory.size:
        _memory(builder, floats[:, memory], ints[:, memory])
    for event in metadata_events:
        builder._metadata(event)
    return True


def _others(tables: tuple[list[bytes], ...], ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the batch's ``[memory]`` instants and of its metadata events."""
    distinct = _first_seen(ids[_PH])
    phases = dict(zip(distinct.tolist(), _decoded(tables[_PH], distinct, "?"), strict=True))
    instants = [i for i, p in phases.items() if p in ("i", "I")]
    metadata = np.flatnonzero(np.isin(ids[_PH], [i for i, p in phases.items() if p == "M"]))
    rows = np.flatnonzero(np.isin(ids[_PH], instants))
    names = _first_seen(ids[_NAME, rows])
    memory_names = [
        i for i, n in zip(names.tolist(), _decoded(tables[_NAME], names, ""), strict=True) if n == "[memory]"
    ]
    return rows[np.isin(ids[_NAME, rows], memory_names)], metadata


def _int32(values: np.ndarray) -> np.ndarray:
    """Device numbers outside int32: -1, as parse.py's ``_device`` says."""
    return np.where((values >= _INT32.min) & (values <= _INT32.max), values, -1)


def _memory(builder: _Builder, floats: np.ndarray, ints: np.ndarray) -> None:
    readable = ~np.isnan(floats[_TS])
    builder.malformed += int((~readable).sum())
    columns = {
        "ts": floats[_TS],
        "device_type": _int32(ints[_DEVICE_TYPE]),
        "device_id": _int32(ints[_DEVICE_ID]),
        "allocated": floats[_ALLOCATED],
        "reserved": floats[_RESERVED],
        "bytes": floats[_BYTES],
    }
    for name, values in columns.items():
        column = builder.memory[name]
        column.frombytes(np.ascontiguousarray(values[readable], dtype=np.dtype(column.typecode)).tobytes())


def _codes(builder: _Builder, table: str, texts: list[bytes], ids: np.ndarray, default: Any) -> np.ndarray:
    distinct = _first_seen(ids)
    codes = builder._codes(table, _decoded(texts, distinct, default))
    return _lookup(texts, ids, distinct.tolist(), codes)


def _lanes(builder: _Builder, tables: tuple[list[bytes], ...], pids: np.ndarray, tids: np.ndarray) -> np.ndarray:
    width = len(tables[_TID]) + 1
    pairs = (pids + 1) * width + (tids + 1)
    distinct = _first_seen(pairs)
    pid_values = _decoded(tables[_PID], distinct // width - 1, None)
    tid_values = _decoded(tables[_TID], distinct % width - 1, None)
    codes = builder._lanes(list(zip(pid_values, tid_values, strict=True)))
    order = np.argsort(distinct)
    return codes[order][np.searchsorted(distinct[order], pairs)]


def _kernels(
    builder: _Builder, tables: tuple[list[bytes], ...], ids: np.ndarray, floats: np.ndarray, rows: np.ndarray
) -> None:
    from ridgeline.profile.parse import _product

    kernels, text = builder.kernels, builder.kernel_text
    kernels["span"].extend(rows.tolist())
    for column, key in ((_GRID, "grid"), (_BLOCK, "block")):
        distinct = _first_seen(ids[column])
        values = _decoded(tables[column], distinct, _ABSENT)
        products = {i: (-1 if v is _ABSENT else _product(v)) for i, v in zip(distinct.tolist(), values, strict=True)}
        texts = {i: ("" if v is _ABSENT else str(v)) for i, v in zip(distinct.tolist(), values, strict=True)}
        column_ids = ids[column].tolist()
        kernels[key].extend([products[i] for i in column_ids])
        text[f"{key}_text"].extend([texts[i] for i in column_ids])
    for column, key in (
        (_REGISTERS, "registers"),
        (_SHARED, "shared_memory"),
        (_OCCUPANCY, "occupancy"),
        (_BLOCKS_SM, "blocks_per_sm"),
        (_WARPS_SM, "warps_per_sm"),
    ):
        kernels[key].frombytes(np.ascontiguousarray(floats[column], dtype=np.float64).tobytes())
