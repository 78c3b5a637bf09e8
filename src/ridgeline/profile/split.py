"""Cutting a Chrome-trace JSON stream into batches of whole events, without parsing the whole file at once.

A Kineto trace is one JSON object, ``{"schemaVersion": 1, "deviceProperties": [...], ..., "traceEvents": [ev, ev,
...], "traceName": ...}``, or (plain Chrome trace) a bare array of events. Gigabytes of it cannot be ``json.load``-ed
into Python objects, so the stream is read in chunks: numpy finds the structural characters of a chunk that are
outside strings (a quote counts unless an odd run of backslashes precedes it), their nesting depth by a cumulative
sum, and so the commas that end events inside ``traceEvents``. orjson then parses one batch of whole events at a
time. What surrounds the event list (device properties, distributed info) is small and parsed whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import IO, Any

import numpy as np
import orjson

_scan: ModuleType | None
try:
    from ridgeline.profile import _scan
except ImportError:  # not compiled: numpy finds the bounds
    _scan = None

CHUNK = 16 << 20
_HEADER_LIMIT = 64 << 20  # bytes before "traceEvents" we are willing to hold
_TAIL_LIMIT = 16 << 20
_START = re.compile(rb'"traceEvents"\s*:\s*\[')

_STRUCTURAL = np.zeros(256, dtype=bool)
_DELTA = np.zeros(256, dtype=np.int8)
for _char, _delta in ((b"{", 1), (b"[", 1), (b"}", -1), (b"]", -1), (b",", 0)):
    _STRUCTURAL[_char[0]] = True
    _DELTA[_char[0]] = _delta
_QUOTE, _BACKSLASH, _COMMA = 0x22, 0x5C, 0x2C


class NotATrace(ValueError):
    """The stream is not a Chrome trace (neither an object with ``traceEvents`` nor an array of events)."""


class Batch:
    """Whole events: their bytes (``body``, comma separated, starting at byte ``base`` of the decompressed stream)
    and where each lies in ``body``; ``events`` parses them with orjson on first use, ``starts``/``lengths`` then
    locating (in the stream) those that parsed. A malformed event is skipped with a note."""

    def __init__(self, body: bytes, base: int, bounds: tuple[np.ndarray, np.ndarray], notes: list[str]) -> None:
        self.body = body
        self.base = base
        self.offsets, self.ends = bounds  # each event's [start, end) in body
        self._notes = notes
        self._parsed: tuple[list[Any], np.ndarray, np.ndarray] | None = None

    @property
    def count(self) -> int:
        return int(self.offsets.size)

    def _parse(self) -> tuple[list[Any], np.ndarray, np.ndarray]:
        if self._parsed is None:
            try:
                events = orjson.loads(b"[" + self.body + b"]")
                self._parsed = (events, self.offsets + self.base, self.ends - self.offsets)
            except orjson.JSONDecodeError:
                self._parsed = self._one_by_one()
        return self._parsed

    def _one_by_one(self) -> tuple[list[Any], np.ndarray, np.ndarray]:
        """A batch with a malformed event: keep the events that parse, count the others."""
        events, kept = [], []
        for index, (start, end) in enumerate(zip(self.offsets.tolist(), self.ends.tolist(), strict=True)):
            try:
                events.append(orjson.loads(self.body[start:end]))
                kept.append(index)
            except orjson.JSONDecodeError:
                self._notes.append(f"an event at byte {self.base + start} is not valid JSON: skipped")
        chosen = np.asarray(kept, dtype=np.int64)
        return events, self.offsets[chosen] + self.base, (self.ends - self.offsets)[chosen]

    @property
    def events(self) -> list[Any]:
        return self._parse()[0]

    @property
    def starts(self) -> np.ndarray:
        """int64 offsets in the stream of the events that parsed."""
        return self._parse()[1]

    @property
    def lengths(self) -> np.ndarray:
        return self._parse()[2]


@dataclass
class Surroundings:
    """What the stream held besides its events, and what went wrong reading it."""

    header: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    complete: bool = False


def _real_quotes(data: np.ndarray) -> np.ndarray:
    quotes = np.flatnonzero(data == _QUOTE)
    suspicious = quotes[(quotes > 0) & (data[np.maximum(quotes - 1, 0)] == _BACKSLASH)]
    if suspicious.size == 0:
        return quotes
    escaped = []
    for position in suspicious.tolist():
        run = 0
        while position - run - 1 >= 0 and data[position - run - 1] == _BACKSLASH:
            run += 1
        if run % 2:
            escaped.append(position)
    return np.setdiff1d(quotes, np.asarray(escaped, dtype=quotes.dtype), assume_unique=True) if escaped else quotes


def scan(buffer: bytes | bytearray, start: int) -> tuple[np.ndarray, int]:
    """The event-ending commas of ``buffer[start:]`` (absolute positions) and where the event list closes (its
    ``]``), or -1 when it does not close in the buffer. ``start`` must be just after ``[`` or after an event's comma.
    One pass in C where the scanner is compiled, else :func:`scan_numpy` (the same cut of any bytes)."""
    if _scan is None:
        return scan_numpy(buffer, start)
    commas, end = _scan.bounds(buffer, start)
    return np.frombuffer(commas, dtype=np.int64), end


def scan_numpy(buffer: bytes | bytearray, start: int) -> tuple[np.ndarray, int]:
    """:func:`scan` with numpy: quotes, structural characters outside strings, their depth by a cumulative sum."""
    data = np.frombuffer(buffer, dtype=np.uint8)[start:]
    quotes = _real_quotes(data)
    structural = np.flatnonzero(_STRUCTURAL[data])
    outside = (np.searchsorted(quotes, structural) & 1) == 0
    structural = structural[outside]
    depth = np.cumsum(_DELTA[data[structural]], dtype=np.int64)
    closed = np.flatnonzero(depth < 0)
    end = int(structural[closed[0]]) if closed.size else -1
    commas = structural[(depth == 0) & (data[structural] == _COMMA)]
    if end >= 0:
        commas = commas[commas < end]
        end += start
    return commas.astype(np.int64) + start, end


def _parse_object(text: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


class EventStream:
    """Iterates the events of a trace stream in batches; ``surroundings`` is complete once iteration ends."""

    def __init__(self, stream: IO[bytes], chunk: int = CHUNK) -> None:
        self._stream = stream
        self._chunk = chunk
        self.surroundings = Surroundings()
        self.read_bytes = 0

    def _read(self) -> bytes:
        try:
            data = self._stream.read(self._chunk)
        except (EOFError, OSError) as problem:  # a cut .gz, an unreadable file: what was read stands
            self.surroundings.notes.append(f"the file could not be read to its end ({problem})")
            return b""
        self.read_bytes += len(data)
        return data

    def _find_start(self) -> tuple[bytearray, int, int]:
        """Read until the event list opens: (buffer, absolute offset of buffer[0], index just after its ``[``)."""
        buffer = bytearray()
        while True:
            data = self._read()
            buffer += data
            text = bytes(buffer[:4096]).lstrip()
            if text.startswith(b"["):
                return buffer, 0, buffer.index(b"[") + 1
            if text and not text.startswith(b"{"):
                raise NotATrace("not a Chrome trace: it starts with neither '{' nor '['")
            found = _START.search(buffer)
            if found:
                head = bytes(buffer[: found.start()]).rstrip().rstrip(b",") + b"}"
                self.surroundings.header = _parse_object(head)
                return buffer, 0, found.end()
            if not data or len(buffer) > _HEADER_LIMIT:
                why = "; ".join(self.surroundings.notes)
                raise NotATrace("not a Chrome trace: no 'traceEvents' list found" + (f" ({why})" if why else ""))

    def __iter__(self) -> Iterator[Batch]:
        buffer, base, position = self._find_start()
        while True:
            commas, end = scan(buffer, position)
            stop = end if end >= 0 else (int(commas[-1]) if commas.size else -1)
            if stop >= 0:
                bounds = commas[commas < stop] if end < 0 else commas
                yield self._batch(buffer, base, position, bounds, stop, last=end >= 0)
            if end >= 0:
                self._read_tail(bytes(buffer[end + 1 :]))
                return
            if stop >= 0:
                base += stop + 1
                del buffer[: stop + 1]
            else:
                base += position
                del buffer[:position]
            position = 0
            data = self._read()
            if not data:
                yield from self._truncated(buffer, base)
                return
            buffer += data

    def _batch(self, buffer: bytearray, base: int, position: int, commas: np.ndarray, stop: int, last: bool) -> Batch:
        starts = np.concatenate(([position], commas + 1)).astype(np.int64)
        ends = np.concatenate((commas, [stop])).astype(np.int64)
        with memoryview(buffer) as view:  # one copy, not a bytearray slice and then its bytes
            body = bytes(view[position:stop])
        if last and not body.strip():  # an empty list
            return Batch(b"", base, (np.empty(0, np.int64), np.empty(0, np.int64)), self.surroundings.notes)
        return Batch(body, base + position, (starts - position, ends - position), self.surroundings.notes)

    def _truncated(self, buffer: bytearray, base: int) -> Iterator[Batch]:
        self.surroundings.notes.append("the trace ends inside its event list (cut short, e.g. a job killed mid-write)")
        rest = bytes(buffer).strip().rstrip(b",")
        if rest:
            try:
                event = orjson.loads(rest)
            except orjson.JSONDecodeError:
                return
            del event
            offset = base + (len(buffer) - len(bytes(buffer).lstrip()))
            yield Batch(
                rest, offset, (np.array([0], np.int64), np.array([len(rest)], np.int64)), self.surroundings.notes
            )

    def _read_tail(self, tail: bytes) -> None:
        while len(tail) < _TAIL_LIMIT:
            data = self._read()
            if not data:
                break
            tail += data
        self.surroundings.complete = True
        text = tail.strip()
        if text.startswith(b","):
            self.surroundings.header.update(_parse_object(b"{" + text[1:].lstrip()))
