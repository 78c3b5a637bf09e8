"""Nesting of spans on a lane (what self times and timeline rows rest on), and reading a trace with tiny chunks
the same as with large ones."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ridgeline.profile.parse import nesting, parse_trace
from tests.profile import handmade


def test_nesting_by_hand() -> None:
    # lane 0: A [0, 10) holds B [1, 4) holding C [2, 3), then D [5, 6) in A; E [10, 11) after A. lane 1: F [0, 1).
    lane = np.array([0, 0, 0, 0, 0, 1])
    ts = np.array([0.0, 1, 2, 5, 10, 0])
    dur = np.array([10.0, 3, 1, 1, 1, 1])
    parent, depth = nesting(lane, ts, dur)
    assert parent.tolist() == [-1, 0, 1, 0, -1, -1]
    assert depth.tolist() == [0, 1, 2, 1, 0, 0]


def test_nesting_in_pieces_is_the_same() -> None:
    rng = np.random.default_rng(0)
    lane = np.sort(rng.integers(0, 3, 3000))
    ts, dur = rng.random(3000) * 100, rng.random(3000)
    order = np.lexsort((-dur, ts, lane))
    whole = nesting(lane[order], ts[order], dur[order])
    pieces = nesting(lane[order], ts[order], dur[order], piece=7)
    assert all((a == b).all() for a, b in zip(whole, pieces, strict=True))


def test_small_chunks_read_the_same_trace(tmp_path: Path) -> None:
    path = handmade.write(tmp_path / "t.pt.trace.json", handmade.gpu_trace(0))
    big, small = parse_trace(path), parse_trace(path, chunk=5)
    assert all((big.spans[k] == small.spans[k]).all() for k in big.spans)
    assert big.names == small.names and big.header == small.header
    assert big.span_count == sum(e["ph"] == "X" for e in json.loads(path.read_text())["traceEvents"])
