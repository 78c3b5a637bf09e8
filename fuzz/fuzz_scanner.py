"""Fuzz target: the compiled trace scanner (ridgeline.profile._scan, built with AddressSanitizer) against the
pure-Python path (orjson and numpy), on arbitrary bytes. Run by ``make fuzz`` (see fuzz/run.sh); any disagreement
or memory error is a crash.

The first byte of an input chooses the options (tests/profile/same.py's ``fuzz_input``): bits 0-1 the chunk the
stream is read in (64 B, 256 B, 4 KiB, 1 MiB), bit 2 whether the rest is a whole file or the events only (wrapped
in ``{"traceEvents": [`` and ``]}``), bits 3-7 a start for the bounds pass. Each input goes through:

- ``_scan.bounds`` against ``split.scan_numpy`` (the same commas and end), from 0 and from the chosen start;
- ``_scan.scan`` of the events before the end (or the last comma), with the count the bounds give and one off:
  where it does not decline, orjson must read exactly that many events from the same bytes;
- the whole parse, scanner on and off (``parse_stream``): the same Trace, column for column; then the span
  nesting in C against the Python one, and the overview's step breakdown in C against numpy's.

The buffers given straight to the scanner are fenced by inaccessible pages (``common.Guarded``).
"""

from __future__ import annotations

import io
import sys

import atheris
import numpy as np
from common import ROOT, Guarded, load_sanitized

sys.path.insert(0, str(ROOT))
_scan = load_sanitized("ridgeline.profile._scan")

import orjson  # noqa: E402

from ridgeline.profile import kinds, overview, split, timeline  # noqa: E402
from ridgeline.profile.columns import Trace  # noqa: E402
from ridgeline.profile.parse import nesting_python, parse_stream  # noqa: E402
from ridgeline.profile.split import NotATrace  # noqa: E402
from tests.profile.same import assert_same, fuzz_input  # noqa: E402


def check_bounds(payload: bytes, start: int) -> tuple[np.ndarray, int]:
    guarded = Guarded(payload)
    try:
        raw, end = _scan.bounds(guarded.view, start)
        commas = np.frombuffer(raw, dtype=np.int64)
        expected, expected_end = split.scan_numpy(payload, start)
        assert commas.tolist() == expected.tolist() and end == expected_end, (start, commas, end, expected)
        return commas, end
    finally:
        guarded.close()


def check_scan(body: bytes, count: int) -> None:
    """The scanner on ``body`` as ``count`` events: declined, or orjson reads that many."""
    guarded = Guarded(body)
    try:
        found = _scan.scan(guarded.view, count)
    finally:
        guarded.close()
    if found is None:
        return
    tables, ids, floats, ints = found
    assert len(ids) == 4 * 8 * count and len(floats) == 8 * 10 * count and len(ints) == 8 * 4 * count
    events = orjson.loads(b"[" + body + b"]")
    assert len(events) == count, (len(events), count)
    assert all(isinstance(e, dict) for e in events)
    for table in tables:  # each distinct text is one JSON value orjson reads
        for text in table:
            orjson.loads(text)


def parse(payload: bytes, chunk: int, scanner: bool) -> Trace | str:
    try:
        return parse_stream(io.BytesIO(payload), chunk, scanner=scanner)
    except NotATrace as problem:
        return str(problem)


def test_one_input(data: bytes) -> None:
    chunk, payload, start = fuzz_input(data)
    commas, end = check_bounds(payload, 0)
    if start <= len(payload):
        check_bounds(payload, start)
    stop = end if end >= 0 else (int(commas[-1]) if commas.size else -1)
    if stop >= 0:
        body = payload[:stop]
        count = int((commas < stop).sum()) + 1
        for n in (count, count - 1, count + 1):
            check_scan(body, max(n, 0))

    scanner, fallback = parse(payload, chunk, True), parse(payload, chunk, False)
    if isinstance(scanner, str) or isinstance(fallback, str):
        assert scanner == fallback, (scanner, fallback)
        return
    assert_same(fallback, scanner)
    trace = scanner
    spans = trace.spans
    order = np.lexsort((-spans["dur"], spans["ts"], spans["lane"]))
    lane, ts, dur = (np.ascontiguousarray(spans[k][order]) for k in ("lane", "ts", "dur"))
    raw_parent, raw_depth = _scan.nesting(lane.astype(np.int64), ts.astype(np.float64), dur.astype(np.float64))
    slow = nesting_python(lane, ts, dur, piece=7)
    assert np.frombuffer(raw_parent, np.int64).tolist() == slow[0].tolist()
    assert np.frombuffer(raw_depth, np.int32).tolist() == slow[1].tolist()

    _, starts, ends = kinds.steps(trace)
    intervals = overview.category_intervals(trace)
    fast = overview.breakdown(trace, starts, ends, intervals)
    if starts.size:
        slow_table = overview.breakdown_numpy(starts, ends, intervals)
        finite = np.isfinite(slow_table).all() and np.abs(slow_table).max() < 1e12
        if finite and (np.abs(np.concatenate([starts, ends])) < 1e12).all():
            assert np.allclose(fast, slow_table, rtol=1e-9, atol=1e-3), (fast, slow_table)

    # what the server answers from it: no exception on any trace that parses
    overview.overview(trace)
    index = timeline.rows(trace)
    first, last = timeline.extent(trace)
    if last > first:
        timeline.window(trace, index, first, last, 200, limit=20)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
