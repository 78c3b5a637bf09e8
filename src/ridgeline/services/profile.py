"""PyTorch profiler traces of the served runs: finding them, parsing each once, and answering the profile views.

A trace belongs to the run whose directory holds it: what ``torch.profiler.tensorboard_trace_handler(dir)`` writes
(``{worker}.{timestamp}.pt.trace.json``, ``.gz`` too) and any other ``*.trace.json[.gz]`` (Chrome trace from
Kineto) beside the event files, one file per worker or rank. Parsed columns are cached in
``<the log directory's cache dir>/profile/`` (:mod:`ridgeline.profile.cache`; nowhere when it was opened without a
cache) and the last few traces kept loaded; a trace is parsed by
one thread while others asking for it wait. Only local run directories are searched (:mod:`ridgeline.services.traces`).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ridgeline.profile import cache as trace_cache
from ridgeline.profile.columns import Trace
from ridgeline.profile.parse import parse_trace, read_event
from ridgeline.profile.split import NotATrace
from ridgeline.profile.timeline import Rows, rows
from ridgeline.services.traces import TraceFile, find_traces
from ridgeline.store.logdir import LogDir

T = TypeVar("T")
MAX_TRACE_BYTES = 8 << 30  # larger files are refused rather than risking the server's memory


class TraceError(Exception):
    """A trace that cannot be read (named, with why)."""


@dataclass
class Loaded:
    """A loaded trace, its timeline rows, and the answers computed from it so far (a trace never changes once
    loaded: a rewritten file is another key)."""

    trace: Trace
    rows: Rows
    answers: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    def answer(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        if key not in self.answers:
            self.answers[key] = compute()
        found: T = self.answers[key]
        return found


class ProfileService:
    """Loads traces (memory, then the cache directory, then the file) and keeps the last ``keep`` loaded.

    ``cache_dir`` None (a log directory opened without a cache, ``--no-cache``): nothing is read from or written
    to disk; a trace is parsed again by each new service."""

    @classmethod
    def of(cls, logdir: LogDir) -> ProfileService:
        """The service for ``logdir``: traces cached in ``<its cache directory>/profile``, or not at all."""
        return cls(logdir.cache_dir / "profile" if logdir.cache_dir is not None else None)

    def __init__(self, cache_dir: str | os.PathLike[str] | None, keep: int = 8) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None  # None: parse, keep in memory only
        self.keep = keep
        self._loaded: OrderedDict[str, Loaded] = OrderedDict()
        self._lock = threading.Lock()
        self._parsing: dict[str, threading.Lock] = {}

    def trace_file(self, logdir: LogDir, run: str, name: str) -> TraceFile:
        for candidate in find_traces(logdir, run):
            if candidate.name == name:
                return candidate
        raise TraceError(f"run {run!r} has no trace {name!r}")

    def load(self, file: TraceFile) -> Loaded:
        if file.size > MAX_TRACE_BYTES:
            raise TraceError(
                f"trace {file.name!r} is {file.size / 2**30:.1f} GiB: over the {MAX_TRACE_BYTES >> 30} GiB ridgeline "
                "reads (profile fewer steps: schedule(active=...))"
            )
        try:
            key = trace_cache.trace_key(file.path)
        except OSError as problem:
            raise TraceError(f"trace {file.name!r} cannot be read: {problem}") from None
        with self._lock:
            found = self._loaded.get(key)
            if found is not None:
                self._loaded.move_to_end(key)
                return found
            parsing = self._parsing.setdefault(key, threading.Lock())
        with parsing:
            with self._lock:
                if key in self._loaded:
                    return self._loaded[key]
            trace = trace_cache.load(self.cache_dir, key) if self.cache_dir is not None else None
            if trace is None:
                try:
                    trace = parse_trace(file.path)
                except (NotATrace, OSError) as problem:
                    raise TraceError(f"trace {file.name!r} cannot be read: {problem}") from None
                if self.cache_dir is not None:
                    trace_cache.save(self.cache_dir, key, trace)
                    trace = trace_cache.load(self.cache_dir, key) or trace  # memory-mapped from here on
            loaded = Loaded(trace, rows(trace))
            with self._lock:
                self._loaded[key] = loaded
                self._parsing.pop(key, None)
                while len(self._loaded) > self.keep:
                    self._loaded.popitem(last=False)
            return loaded

    def loaded(self, logdir: LogDir, run: str, name: str) -> Loaded:
        return self.load(self.trace_file(logdir, run, name))

    def event(self, logdir: LogDir, run: str, name: str, span: int) -> dict[str, Any]:
        """One span with everything the trace recorded of it (its ``args``), read back from the file."""
        file = self.trace_file(logdir, run, name)
        trace = self.load(file).trace
        if not 0 <= span < trace.span_count:
            raise TraceError(f"trace {name!r} has no event {span} (it has {trace.span_count})")
        spans = trace.spans
        try:
            raw = read_event(file.path, int(spans["offset"][span]), int(spans["length"][span]))
        except (OSError, ValueError, EOFError) as problem:
            raise TraceError(f"event {span} of {name!r} cannot be read back: {problem}") from None
        args = raw.get("args") if isinstance(raw, dict) else None
        lane = trace.lanes[int(spans["lane"][span])]
        return {
            "id": span,
            "name": trace.names[int(spans["name"][span])],
            "cat": trace.cats[int(spans["cat"][span])],
            "ts": float(spans["ts"][span]),
            "dur": float(spans["dur"][span]),
            "lane": lane.label,
            "args": args if isinstance(args, dict) else {},
        }
