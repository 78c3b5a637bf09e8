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


def _integer(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return -1


def _product(value: Any) -> int:
    if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
        return math.prod(value)
    return -1


class _Builder:
    def __init__(self) -> None:
        self.spans: dict[str, array[Any]] = {
            name: array(_TYPECODES[kind]) for name, kind in SPAN_COLUMNS.items() if name not in ("parent", "depth")
        }
        self.memory: dict[str, array[Any]] = {name: array(_TYPECODES[kind]) for name, kind in MEMORY_COLUMNS.items()}
        self.kernels: dict[str, array[Any]] = {name: array(_TYPECODES[kind]) for name, kind in KERNEL_COLUMNS.items()}
        self.kernel_text: dict[str, list[str]] = {"grid_text": [], "block_text": []}
        self.codes: dict[str, dict[str, int]] = {"name": {}, "cat": {}, "shapes": {}}
        self.lanes: dict[tuple[str, str], int] = {}
        self.lane_info: list[Lane] = []
        self.process_names: dict[str, str] = {}
        self.process_sort: dict[str, float] = {}
        self.thread_names: dict[tuple[str, str], str] = {}
        self.phases: Counter[str] = Counter()
        self.negative = 0
        self.malformed = 0

    def code(self, table: str, text: str) -> int:
        codes = self.codes[table]
        found = codes.get(text)
        if found is None:
            found = codes[text] = len(codes)
        return found

    def lane(self, pid: Any, tid: Any) -> int:
        key = (str(pid), str(tid))
        found = self.lanes.get(key)
        if found is None:
            found = self.lanes[key] = len(self.lanes)
            self.lane_info.append(Lane(pid=key[0], tid=key[1]))
        return found

    def add(self, events: list[Any], starts: np.ndarray, lengths: np.ndarray) -> None:
        spans, code, lane = self.spans, self.code, self.lane
        ts_, dur_, name_, cat_, lane_ = spans["ts"], spans["dur"], spans["name"], spans["cat"], spans["lane"]
        offset_, length_, ext_, corr_, shapes_ = (
            spans["offset"],
            spans["length"],
            spans["external_id"],
            spans["correlation"],
            spans["shapes"],
        )
        phases = self.phases
        for event, start, length in zip(events, starts.tolist(), lengths.tolist(), strict=True):
            if not isinstance(event, dict):
                self.malformed += 1
                continue
            phase = event.get("ph")
            phases[phase if isinstance(phase, str) else "?"] += 1
            if phase == "X":
                ts, dur = event.get("ts"), event.get("dur", 0)
                if not isinstance(ts, int | float) or not isinstance(dur, int | float):
                    ts, dur = _number(ts), _number(dur, 0.0)
                    if math.isnan(ts) or math.isnan(dur):
                        self.malformed += 1
                        continue
                if dur < 0:
                    self.negative += 1
                    continue
                cat = event.get("cat")
                cat = cat if isinstance(cat, str) else ""
                args = event.get("args")
                args = args if isinstance(args, dict) else {}
                ts_.append(ts)
                dur_.append(dur)
                name = event.get("name")
                name_.append(code("name", name if isinstance(name, str) else str(name)))
                cat_.append(code("cat", cat))
                lane_.append(lane(event.get("pid"), event.get("tid")))
                offset_.append(start)
                length_.append(length)
                ext_.append(_integer(args.get("External id", -1)))
                corr_.append(_integer(args.get("correlation", -1)))
                dims = args.get("Input Dims")
                shapes_.append(code("shapes", orjson.dumps(dims).decode()) if dims is not None else -1)
                if cat.lower() in _KERNEL_CATS:
                    self._kernel(len(ts_) - 1, args)
            elif phase in ("i", "I"):
                if event.get("name") == "[memory]":
                    self._memory(event)
            elif phase == "M":
                self._metadata(event)

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
        memory["device_type"].append(_integer(args.get("Device Type", -1)))
        memory["device_id"].append(_integer(args.get("Device Id", -1)))
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
        spans = {name: np.frombuffer(column, dtype=SPAN_COLUMNS[name]).copy() for name, column in self.spans.items()}
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
    too), with ``parent`` and ``depth``; ``kernel_rows`` renumbered to match."""
    order = np.lexsort((-spans["dur"], spans["ts"], spans["lane"]))
    spans = {name: column[order] for name, column in spans.items()}
    parent, depth = nesting(spans["lane"], spans["ts"], spans["dur"])
    final = np.lexsort((spans["ts"], depth, spans["lane"]))
    spans = {name: column[final] for name, column in spans.items()}
    new_of_old = np.empty_like(final)
    new_of_old[final] = np.arange(final.size)
    parent = parent[final]
    spans["parent"] = np.where(parent >= 0, new_of_old[np.maximum(parent, 0)], -1)
    spans["depth"] = depth[final]
    first_of_original = np.empty_like(order)
    first_of_original[order] = np.arange(order.size)
    return spans, new_of_old[first_of_original[kernel_rows]] if kernel_rows.size else kernel_rows


def nesting(lane: np.ndarray, ts: np.ndarray, dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each span's enclosing span on its lane (-1 for none) and its depth, for spans sorted by (lane, ts, -dur).
    A span nests in the last open one that ends after it starts (devices' streams rarely nest; threads do)."""
    count = ts.size
    parent = np.full(count, -1, dtype=np.int64)
    depth = np.zeros(count, dtype=np.int32)
    if count == 0:
        return parent, depth
    ends = (ts + dur).tolist()
    starts = ts.tolist()
    lanes = lane.tolist()
    stack: list[int] = []
    current = -1
    parents = [-1] * count
    depths = [0] * count
    for i in range(count):
        if lanes[i] != current:
            current = lanes[i]
            stack.clear()
        start = starts[i]
        while stack and ends[stack[-1]] <= start:
            stack.pop()
        if stack:
            parents[i] = stack[-1]
            depths[i] = len(stack)
        stack.append(i)
    parent[:] = parents
    depth[:] = depths
    return parent, depth


def parse_trace(path: str | Path, chunk: int = CHUNK) -> Trace:
    """Parse the trace file at ``path``; raises :class:`~ridgeline.profile.split.NotATrace` or OSError."""
    builder = _Builder()
    with open_trace(path) as file:
        stream = EventStream(file, chunk)
        for batch in stream:
            builder.add(batch.events, batch.starts, batch.lengths)
            del batch
    surroundings = stream.surroundings
    return builder.finish(surroundings.header, list(surroundings.notes))
