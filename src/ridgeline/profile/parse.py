"""Reading a Kineto / Chrome trace file (``.json`` or ``.json.gz``) into a :class:`~ridgeline.profile.columns.Trace`.

The events arrive in batches (:mod:`ridgeline.profile.split`); each batch is turned into typed arrays at once and
let go, so memory follows the columns (about 90 bytes an event), not the events' Python objects. Phases read:
``X`` (spans), ``i``/``I`` instants named ``[memory]`` (the allocator, with ``profile_memory=True``) and ``M``
(process and thread names); flows (``s``/``f``/``t``), other instants and counters are known and skipped; any other
phase is counted in a note. Spans with a negative duration are dropped and counted.
"""

from __future__ import annotations

import io
import math
import zlib
from array import array
from collections import Counter
from pathlib import Path
from typing import IO, Any

import numpy as np
import orjson

from ridgeline.profile.columns import KERNEL_COLUMNS, MEMORY_COLUMNS, SPAN_COLUMNS, Lane, Trace
from ridgeline.profile.scanned import _scan, add_scanned
from ridgeline.profile.split import CHUNK, EventStream

KNOWN_PHASES = {"X", "i", "I", "M", "s", "f", "t", "C", "B", "E", "b", "e", "n", "P", "O", "N", "D", "R"}
_KERNEL_CATS = {"kernel"}
_DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
_TYPECODES: dict[Any, str] = {np.float64: "d", np.int32: "i", np.int64: "q"}


class _Gunzip(io.RawIOBase):
    """A ``.gz`` file's bytes, read forward. Unlike :mod:`gzip`, a file cut short yields everything before the
    cut, then raises EOFError (gzip's ``read`` drops the last chunk it decompressed)."""

    def __init__(self, path: str | Path) -> None:
        self._file = open(path, "rb")  # noqa: SIM115 - closed by close()
        self._inflate = zlib.decompressobj(wbits=31)
        self._pending = b""
        self._ended = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = size if size >= 0 else 1 << 62
        while len(self._pending) < size and not self._ended:
            raw = self._file.read(1 << 20)
            if not raw:
                self._ended = True
                if not self._inflate.eof:
                    if self._pending:
                        break  # hand over what there is; the next read raises
                    raise EOFError("the compressed file ends before its end-of-stream marker")
                break
            try:
                self._pending += self._inflate.decompress(raw)
            except zlib.error as problem:
                raise EOFError(f"the compressed data is corrupt ({problem})") from None
            while self._inflate.eof and self._inflate.unused_data:  # a further gzip member
                rest = self._inflate.unused_data
                self._inflate = zlib.decompressobj(wbits=31)
                self._pending += self._inflate.decompress(rest)
        if not self._pending and self._ended and not self._inflate.eof:
            raise EOFError("the compressed file ends before its end-of-stream marker")
        data, self._pending = self._pending[:size], self._pending[size:]
        return data

    def close(self) -> None:
        self._file.close()
        super().close()


def open_trace(path: str | Path) -> IO[bytes]:
    """The trace's bytes, decompressed when the name ends in ``.gz``."""
    if str(path).endswith(".gz"):
        return _Gunzip(path)  # type: ignore[return-value]
    return open(path, "rb")


def read_event(path: str | Path, offset: int, length: int) -> Any:
    """One event read back from the trace at ``offset`` (of the decompressed bytes)."""
    with open_trace(path) as file:
        if isinstance(file, _Gunzip):
            while offset > 0 and (skipped := len(file.read(min(offset, 16 << 20)))):
                offset -= skipped
        else:
            file.seek(offset)
        return orjson.loads(file.read(length))


def _number(value: Any, default: float = math.nan) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return default
    return default


_EMPTY: dict[str, Any] = {}
_SCALARS = (int, str)


def _floats(values: list[Any]) -> np.ndarray:
    """Numbers as float64 (None and unreadable values: NaN); numpy converts a clean list in one call."""
    try:
        found = np.asarray(values, dtype=np.float64)
        if found.ndim == 1:  # not a list of equal-length lists
            return found
    except (TypeError, ValueError):
        pass
    return np.asarray([_number(v) for v in values], dtype=np.float64)


def _ints(values: list[Any]) -> np.ndarray:
    """Integers as int64 (anything else: -1)."""
    try:
        found = np.asarray(values, dtype=np.int64)
        if found.ndim == 1:
            return found
    except (TypeError, ValueError, OverflowError):
        pass
    return np.asarray([_integer(v) for v in values], dtype=np.int64)


def _integer(value: Any, low: int = -(1 << 63), high: int = (1 << 63) - 1) -> int:
    """An integer, or one written as digits, within [low, high]; anything else -1."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if low <= value <= high else -1
    if isinstance(value, str) and value.lstrip("-").isdigit():
        number = int(value)
        return number if low <= number <= high else -1
    return -1


def _device(value: Any) -> int:
    return _integer(value, -(1 << 31), (1 << 31) - 1)


def _product(value: Any) -> int:
    if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
        product = math.prod(value)
        return product if -(1 << 63) <= product < 1 << 63 else -1
    return -1


class _Builder:
    def __init__(self) -> None:
        self.parts: dict[str, list[np.ndarray]] = {name: [] for name in SPAN_COLUMNS if name not in ("parent", "depth")}
        self.rows = 0
        self.memory: dict[str, array[Any]] = {name: array(_TYPECODES[kind]) for name, kind in MEMORY_COLUMNS.items()}
        self.kernels: dict[str, array[Any]] = {name: array(_TYPECODES[kind]) for name, kind in KERNEL_COLUMNS.items()}
        self.kernel_text: dict[str, list[str]] = {"grid_text": [], "block_text": []}
        self.codes: dict[str, dict[str, int]] = {"name": {}, "cat": {}, "shapes": {}}
        self.lanes: dict[tuple[Any, Any], int] = {}  # (pid, tid) as written -> lane
        self.lane_codes: dict[tuple[str, str], int] = {}  # (pid, tid) as text -> lane
        self.lane_info: list[Lane] = []
        self.process_names: dict[str, str] = {}
        self.process_sort: dict[str, float] = {}
        self.thread_names: dict[tuple[str, str], str] = {}
        self.phases: Counter[str] = Counter()
        self.negative = 0
        self.malformed = 0

    def add(self, events: list[Any], starts: np.ndarray, lengths: np.ndarray) -> None:
        """Take one batch, a column at a time (list comprehensions and numpy, not a loop of appends per event)."""
        phases = [e.get("ph", "?") if e.__class__ is dict else None for e in events]
        self.phases.update(p if p.__class__ is str else "?" for p in phases if p is not None)
        self.malformed += phases.count(None)
        complete = [i for i, p in enumerate(phases) if p == "X"]
        xs = [events[i] for i in complete]
        ts = _floats([e.get("ts") for e in xs])
        dur = _floats([e.get("dur", 0) for e in xs])
        unreadable = np.isnan(ts) | np.isnan(dur)
        negative = dur < 0
        self.malformed += int(unreadable.sum())
        self.negative += int((negative & ~unreadable).sum())
        keep = ~(unreadable | negative)
        if not keep.all():
            chosen = np.flatnonzero(keep)
            xs = [xs[i] for i in chosen.tolist()]
            complete = [complete[i] for i in chosen.tolist()]
            ts, dur = ts[keep], dur[keep]
        args = [a if (a := e.get("args")).__class__ is dict else _EMPTY for e in xs]
        rows = np.asarray(complete, dtype=np.int64)
        cats = self._codes("cat", [e.get("cat", "") for e in xs])
        first_row = self.rows
        parts = self.parts
        parts["ts"].append(ts)
        parts["dur"].append(dur)
        parts["name"].append(self._codes("name", [e.get("name", "") for e in xs]))
        parts["cat"].append(cats)
        parts["lane"].append(self._lanes([(e.get("pid"), e.get("tid")) for e in xs]))
        parts["offset"].append(starts[rows])
        parts["length"].append(lengths[rows])
        parts["external_id"].append(_ints([a.get("External id", -1) for a in args]))
        parts["correlation"].append(_ints([a.get("correlation", -1) for a in args]))
        dims = [a.get("Input Dims") for a in args]
        parts["shapes"].append(
            self._codes("shapes", [orjson.dumps(d).decode() if d is not None else None for d in dims])
        )
        self.rows += len(xs)
        kernel_codes = [code for text, code in self.codes["cat"].items() if text.lower() in _KERNEL_CATS]
        for row in np.flatnonzero(np.isin(cats, kernel_codes)).tolist():
            self._kernel(first_row + row, args[row])
        for i, p in enumerate(phases):
            if p == "i" or p == "I":
                if events[i].get("name") == "[memory]":
                    self._memory(events[i])
            elif p == "M":
                self._metadata(events[i])

    def _codes(self, table: str, values: list[Any]) -> np.ndarray:
        """Codes of the strings ``values`` in ``table`` (None: -1; anything else not a string: its str())."""
        codes = self.codes[table]
        found = [codes.get(v, -1) if v.__class__ is str else -1 for v in values]
        for i in [i for i, code in enumerate(found) if code < 0]:
            value = values[i]
            if value is None:
                continue
            text = value if isinstance(value, str) else str(value)
            found[i] = codes.setdefault(text, len(codes))
        return np.asarray(found, dtype=np.int32)

    def _lanes(self, keys: list[tuple[Any, Any]]) -> np.ndarray:
        lanes = self.lanes
        found = [lanes.get(k, -1) if k[0].__class__ in _SCALARS and k[1].__class__ in _SCALARS else -1 for k in keys]
        for i in [i for i, code in enumerate(found) if code < 0]:
            pid, tid = keys[i]
            text = (str(pid), str(tid))
            code = self.lane_codes.get(text)
            if code is None:
                code = self.lane_codes[text] = len(self.lane_codes)
                self.lane_info.append(Lane(pid=text[0], tid=text[1]))
            if pid.__class__ in _SCALARS and tid.__class__ in _SCALARS:
                lanes[(pid, tid)] = code
            found[i] = code
        return np.asarray(found, dtype=np.int32)

    def _kernel(self, row: int, args: dict[str, Any]) -> None:
        kernels = self.kernels
        kernels["span"].append(row)
        kernels["grid"].append(_product(args.get("grid")))
        kernels["block"].append(_product(args.get("block")))
        kernels["registers"].append(_number(args.get("registers per thread")))
        kernels["shared_memory"].append(_number(args.get("shared memory")))
        kernels["occupancy"].append(_number(args.get("est. achieved occupancy %")))
        kernels["blocks_per_sm"].append(_number(args.get("blocks per SM")))
        kernels["warps_per_sm"].append(_number(args.get("warps per SM")))
        self.kernel_text["grid_text"].append(str(args.get("grid", "")))
        self.kernel_text["block_text"].append(str(args.get("block", "")))

    def _memory(self, event: dict[str, Any]) -> None:
        args = event.get("args")
        args = args if isinstance(args, dict) else {}
        ts = _number(event.get("ts"))
        if math.isnan(ts):
            self.malformed += 1
            return
        memory = self.memory
        memory["ts"].append(ts)
        memory["device_type"].append(_device(args.get("Device Type", -1)))
        memory["device_id"].append(_device(args.get("Device Id", -1)))
        memory["allocated"].append(_number(args.get("Total Allocated")))
        memory["reserved"].append(_number(args.get("Total Reserved")))
        memory["bytes"].append(_number(args.get("Bytes")))

    def _metadata(self, event: dict[str, Any]) -> None:
        args = event.get("args")
        args = args if isinstance(args, dict) else {}
        pid, tid, what = str(event.get("pid")), str(event.get("tid")), event.get("name")
        if what == "process_name" and isinstance(args.get("name"), str):
            self.process_names[pid] = args["name"]
        elif what == "process_sort_index":
            self.process_sort[pid] = _number(args.get("sort_index"), 0.0)
        elif what == "thread_name" and isinstance(args.get("name"), str):
            self.thread_names[(pid, tid)] = args["name"]

    def finish(self, header: dict[str, Any], notes: list[str]) -> Trace:
        spans = {}
        for name in list(self.parts):  # one column at a time, each batch's pieces let go once joined
            parts = self.parts.pop(name)
            spans[name] = (
                np.concatenate(parts).astype(SPAN_COLUMNS[name], copy=False)
                if parts
                else np.empty(0, SPAN_COLUMNS[name])
            )
            del parts
        kernels = {name: np.frombuffer(c, dtype=KERNEL_COLUMNS[name]).copy() for name, c in self.kernels.items()}
        memory = {name: np.frombuffer(c, dtype=MEMORY_COLUMNS[name]).copy() for name, c in self.memory.items()}
        cats = list(self.codes["cat"])
        device_cats = np.asarray([i for i, cat in enumerate(cats) if cat.lower() in _DEVICE_CATS], dtype=np.int32)
        device_lanes = set(np.unique(spans["lane"][np.isin(spans["cat"], device_cats)]).tolist())
        for index, info in enumerate(self.lane_info):
            info.process = self.process_names.get(info.pid, "")
            info.thread = self.thread_names.get((info.pid, info.tid), "")
            info.sort = self.process_sort.get(info.pid, 0.0)
            info.device = index in device_lanes
        spans, kernels["span"] = _in_timeline_order(spans, kernels["span"])
        if self.negative:
            notes.append(f"{self.negative} span(s) with a negative duration were left out")
        if self.malformed:
            notes.append(f"{self.malformed} event(s) without a readable time or not an object were skipped")
        unknown = {phase: n for phase, n in self.phases.items() if phase not in KNOWN_PHASES}
        if unknown:
            notes.append(f"events of unknown phases were skipped: {dict(sorted(unknown.items()))}")
        if not device_lanes and spans["ts"].size:
            notes.append("no device events: a CPU-only trace (profiled without a GPU, or without CUDA activity)")
        return Trace(
            spans=spans,
            memory=memory,
            kernels=kernels,
            names=list(self.codes["name"]),
            cats=cats,
            shapes=list(self.codes["shapes"]),
            kernel_text=self.kernel_text,
            lanes=self.lane_info,
            header=header,
            notes=notes,
            counts=dict(self.phases),
        )


def _in_timeline_order(
    spans: dict[str, np.ndarray], kernel_rows: np.ndarray
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Spans sorted by lane, depth, start (a timeline row's spans never overlap, so they are sorted by their end
    too), with ``parent`` and ``depth``; ``kernel_rows`` renumbered to match. Each column is reordered once, one
    column at a time, so the peak is one column's copy above the columns themselves."""
    order = np.lexsort((-spans["dur"], spans["ts"], spans["lane"]))
    nested_parent, nested_depth = nesting(spans["lane"][order], spans["ts"][order], spans["dur"][order])
    depth = np.empty_like(nested_depth)
    depth[order] = nested_depth
    parent = np.full(order.size, -1, dtype=np.int64)
    parent[order] = np.where(nested_parent >= 0, order[np.maximum(nested_parent, 0)], -1)
    del order, nested_parent, nested_depth
    final = np.lexsort((spans["ts"], depth, spans["lane"]))
    new_of_old = np.empty_like(final)
    new_of_old[final] = np.arange(final.size)
    for name in list(spans):
        spans[name] = spans[name][final]
    spans["depth"] = depth[final]
    parent = parent[final]
    spans["parent"] = np.where(parent >= 0, new_of_old[np.maximum(parent, 0)], -1)
    return spans, new_of_old[kernel_rows] if kernel_rows.size else kernel_rows


def nesting(lane: np.ndarray, ts: np.ndarray, dur: np.ndarray, piece: int = 1 << 20) -> tuple[np.ndarray, np.ndarray]:
    """Each span's enclosing span on its lane (-1 for none) and its depth, for spans sorted by (lane, ts, -dur).
    A span nests in the last open one that ends after it starts (devices' streams rarely nest; threads do). In C
    where the scanner is compiled, else :func:`nesting_python`."""
    if _scan is None:
        return nesting_python(lane, ts, dur, piece)
    parent, depth = _scan.nesting(
        np.ascontiguousarray(lane, dtype=np.int64),
        np.ascontiguousarray(ts, np.float64),
        np.ascontiguousarray(dur, np.float64),
    )
    return np.frombuffer(parent, dtype=np.int64), np.frombuffer(depth, dtype=np.int32)


def nesting_python(
    lane: np.ndarray, ts: np.ndarray, dur: np.ndarray, piece: int = 1 << 20
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`nesting` in Python, ``piece`` spans at a time, so the Python lists it needs stay small."""
    count = ts.size
    parent = np.full(count, -1, dtype=np.int64)
    depth = np.zeros(count, dtype=np.int32)
    stack: list[tuple[float, int]] = []  # (end, span) of the open spans
    current = None
    for first in range(0, count, piece):
        last = min(first + piece, count)
        starts = ts[first:last].tolist()
        ends = (ts[first:last] + dur[first:last]).tolist()
        lanes = lane[first:last].tolist()
        parents = [-1] * (last - first)
        depths = [0] * (last - first)
        for i, start in enumerate(starts):
            if lanes[i] != current:
                current = lanes[i]
                stack.clear()
            while stack and stack[-1][0] <= start:
                stack.pop()
            if stack:
                parents[i] = stack[-1][1]
                depths[i] = len(stack)
            stack.append((ends[i], first + i))
        parent[first:last] = parents
        depth[first:last] = depths
    return parent, depth


def parse_trace(path: str | Path, chunk: int = CHUNK, *, scanner: bool = True) -> Trace:
    """Parse the trace file at ``path``; raises :class:`~ridgeline.profile.split.NotATrace` or OSError. Each batch
    goes through the compiled scanner when it is built and takes the batch (``scanner=False``: never), else through
    orjson; both give the same Trace."""
    with open_trace(path) as file:
        return parse_stream(file, chunk, scanner=scanner)


def parse_stream(file: IO[bytes], chunk: int = CHUNK, *, scanner: bool = True) -> Trace:
    """:func:`parse_trace` of the (decompressed) bytes ``file`` reads."""
    builder = _Builder()
    stream = EventStream(file, chunk)
    for batch in stream:
        if not (scanner and add_scanned(builder, batch)):
            builder.add(batch.events, batch.starts, batch.lengths)
        del batch
    surroundings = stream.surroundings
    return builder.finish(surroundings.header, list(surroundings.notes))
