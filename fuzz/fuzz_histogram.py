"""Fuzz target: the compiled histogram count (ridgeline.writer.summaries._histogram_core, built with
AddressSanitizer) against np.histogram, on arbitrary float64 values, edges and lookup tables.

An input's first byte says how many float64s after the first two bytes are edges (sorted and made unique, finite
ones only; with fewer than two, torch's default edges), its second byte how many times 256 bytes after them are
the start of the lookup table (zero-padded to 65,536 uint16s); the rest are the values. The count must be exact
whatever the table holds (a good table only makes it faster). Run by ``make fuzz``.
"""

from __future__ import annotations

import sys

import atheris
import numpy as np
from common import ROOT, Guarded, load_sanitized

sys.path.insert(0, str(ROOT))
core = load_sanitized("ridgeline.writer.summaries._histogram_core")
from ridgeline.writer.summaries._histograms import DEFAULT_BINS, _rank_table  # noqa: E402


def test_one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    edge_bytes, table_bytes = 8 * data[0], 256 * data[1]
    rest = data[2:]
    raw = np.frombuffer(rest[: edge_bytes - edge_bytes % 8] if len(rest) >= edge_bytes else b"", np.float64)
    edges = np.unique(raw[np.isfinite(raw)])
    if len(edges) < 2:
        edges = DEFAULT_BINS
    rest = rest[edge_bytes:]
    given = np.frombuffer(rest[: min(table_bytes, len(rest)) // 2 * 2], np.uint16)
    table = np.zeros(1 << 16, np.uint16)
    table[: len(given)] = given
    rest = rest[2 * len(given) :]
    values = rest[: len(rest) // 8 * 8]
    expected = np.histogram(np.frombuffer(values, np.float64), edges)[0]
    guarded = Guarded(values)
    try:
        for ranks in (table, _rank_table()) if edges is DEFAULT_BINS else (table,):
            counts = np.frombuffer(core.count(guarded.view, np.ascontiguousarray(edges), ranks), np.int64)
            assert np.array_equal(counts, expected), (counts, expected)
    finally:
        guarded.close()


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
